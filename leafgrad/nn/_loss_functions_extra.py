"""``multilabel_margin_loss`` and ``triplet_margin_with_distance_loss``, composed from
leafgrad ops so they differentiate to any order."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ._layer_functions import pairwise_distance
from ._loss_functions import _reduce, _reduction

__all__ = ["multilabel_margin_loss", "triplet_margin_with_distance_loss"]


def multilabel_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """``sum_{j, i} max(0, 1 - (x[y_j] - x[i])) / C`` over the target classes ``y_j`` (the
    entries of ``target`` before its first ``-1``) and the other classes ``i``."""
    reduction = _reduction("multilabel_margin_loss", size_average, reduce, reduction)
    if input.dim() not in (0, 1, 2) or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(
            "multilabel_margin_loss: expected a non-empty (C) or (N, C) input and a target of "
            f"the same shape, but got input {list(input.shape)} and target {list(target.shape)}"
        )
    if target.dtype != _lg.int64:
        raise RuntimeError(
            f"multilabel_margin_loss: expected an int64 target of class indices, got {target.dtype}"
        )
    unbatched = input.dim() < 2
    x = input.reshape(1, -1) if unbatched else input
    labels = target.numpy().reshape(x.shape)
    classes = x.shape[1]
    if labels.size and (labels.max() >= classes or labels.min() < -1):
        raise RuntimeError(
            f"multilabel_margin_loss: target values must be in [-1, {classes - 1}], got "
            f"[{labels.min()}, {labels.max()}]"
        )
    # Targets are the entries before the first -1 of each row.
    stop = np.cumsum(labels == -1, axis=1) > 0
    slot = ~stop
    picked = np.where(slot, labels, 0)
    is_target = np.zeros(labels.shape, bool)
    rows = np.nonzero(slot)[0]
    is_target[rows, picked[slot]] = True
    x_target = x.gather(1, _lg.tensor(picked, dtype=_lg.int64))  # (N, C): x[y_j] per slot
    pairs = _lg.relu(1 - x_target.unsqueeze(2) + x.unsqueeze(1))  # (N, j, i)
    weight = (slot[:, :, None] & ~is_target[:, None, :]).astype(np.float64)
    loss = (pairs * _lg.tensor(weight, dtype=x.dtype)).sum((1, 2)) / classes
    if unbatched and reduction == "none":
        loss = loss.reshape(()) if input.dim() == 0 else loss.squeeze(0)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(a, pos) - d(a, neg))`` for any distance ``d`` (default
    ``pairwise_distance``); ``swap`` uses ``min(d(a, neg), d(pos, neg))``."""
    if margin <= 0:
        raise ValueError(
            f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got "
            f"{margin} instead"
        )
    reduction = _reduction("triplet_margin_with_distance_loss", None, None, reduction)
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and "
            f"negative {negative.dim()}D inputs"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = _lg.minimum(d_neg, distance(positive, negative))
    return _reduce(_lg.clamp_min(margin + d_pos - d_neg, 0.0), reduction)
