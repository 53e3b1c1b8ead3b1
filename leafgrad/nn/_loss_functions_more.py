"""More losses as functions (KL divergence, Gaussian/Poisson NLL, margin and embedding losses),
composed from differentiable leafgrad ops with PyTorch's formulas, defaults and reductions."""

from __future__ import annotations

import math
import warnings

import leafgrad as _lg

from .. import Tensor
from ..ops import multi_margin as _multi_margin
from ..ops import soft_margin as _soft_margin
from ..ops.losses import REDUCTIONS
from ._activation_functions import logsigmoid
from ._layer_functions import pairwise_distance
from ._loss_functions import _check_tensors, _constant_weights, _reduce, _reduction

__all__ = [
    "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "kl_div",
    "margin_ranking_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
    "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
]  # fmt: skip


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """``target * (log target - input)`` (``input`` holds log-probabilities; with
    ``log_target`` so does ``target``); ``'batchmean'`` divides the sum by ``input.size(0)``."""
    _check_tensors("kl_div", input=input, target=target)
    if size_average is not None or reduce is not None:
        reduction = _reduction("kl_div", size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "kl_div: reduction='mean' divides the total loss by both the batch size and the "
            "support size; 'batchmean' divides only by the batch size, as the KL divergence is "
            "defined. 'mean' will be changed to behave the same as 'batchmean' in the next major "
            "release.",
            stacklevel=2,
        )
    if reduction != "batchmean":
        reduction = _reduction("kl_div", None, None, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _lg.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.dim() != 0 else total
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """``0.5 (log var + (input - target)^2 / var)`` (+ ``0.5 log 2 pi`` when ``full``);
    ``var`` is clamped to ``eps`` with the gradient of the unclamped value, as PyTorch's."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _lg.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and (
            sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1
        ):
            pass
        else:
            raise ValueError(
                f"var is of incorrect size: gaussian_nll_loss got input {list(input.shape)} and "
                f"var {list(var.shape)}; var must match input, or miss or have size 1 in one dim"
            )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # PyTorch clamps a clone in place under no_grad: values clamped, gradient of var itself.
    var = var + (var.clamp(min=eps) - var).detach()
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``,
    plus Stirling's ``target log target - target + 0.5 log(2 pi target)`` for targets > 1 when
    ``full``."""
    reduction = _reduction("poisson_nll_loss", size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        safe = _lg.where(target > 1, target, _lg.ones_like(target))
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + _lg.where(target > 1, stirling, _lg.zeros_like(stirling))
    return _reduce(loss, reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction = _reduction("margin_ranking_loss", size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss: all input tensors should have the same number of dimensions, "
            f"got input1 {list(input1.shape)}, input2 {list(input2.shape)}, target "
            f"{list(target.shape)}"
        )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``."""
    reduction = _reduction("hinge_embedding_loss", size_average, reduce, reduction)
    zeros = _lg.zeros_like(input)
    loss = _lg.where(target != 1, (margin - input).clamp_min(0), zeros) + _lg.where(
        target != -1, input, zeros
    )
    return _reduce(loss, reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where -1."""
    reduction = _reduction("cosine_embedding_loss", size_average, reduce, reduction)
    if target.dim() not in (0, 1):
        raise RuntimeError(
            f"cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not "
            f"supported (got target {list(target.shape)})"
        )
    if input1.dim() != input2.dim() or input1.dim() != target.dim() + 1:
        raise RuntimeError(
            f"cosine_embedding_loss: expected input1 {list(input1.shape)} and input2 "
            f"{list(input2.shape)} to have one more dimension than target {list(target.shape)}"
        )
    dim = input1.dim() - 1
    eps = 1e-12  # PyTorch's EPSILON, added to each squared magnitude
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = _lg.zeros_like(cos)
    loss = _lg.where(target == 1, 1 - cos, zeros) + _lg.where(
        target == -1, (cos - margin).clamp_min(0), zeros
    )
    return _reduce(loss, reduction)


def soft_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """``log(1 + exp(-target * input))`` as PyTorch's kernel computes it (inf once ``-target *
    input`` overflows ``exp``), recorded as its op (SoftMarginLossBackward0)."""
    reduction = _reduction("soft_margin_loss", size_average, reduce, reduction)
    _check_tensors("soft_margin_loss", input=input, target=target)
    _constant_weights("soft_margin_loss", target=target)  # PyTorch's kernel: no target grad
    if target.dtype != input.dtype:
        target = target.to(input.dtype)  # (its floating input's; PyTorch's iterator casts)
    return _soft_margin.soft_margin_loss(input, target, reduction=REDUCTIONS[reduction])


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross-entropy with logits per class, averaged over the classes (last dim)."""
    reduction = _reduction("multilabel_soft_margin_loss", size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Per sample ``sum_{j != y} w_y max(0, margin - x_y + x_j)^p / C``: input ``(N, C)`` or
    ``(C,)``, target class indices ``(N,)`` or ``()``; recorded as PyTorch's op
    (MultiMarginLossBackward0), whose gradient, as PyTorch's, has no derivative."""
    reduction = _reduction("multi_margin_loss", size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if (
        input.dim() > 2
        or target.dim() > 1
        or target.numel() != (input.shape[0] if input.dim() == 2 else 1)
    ):
        raise RuntimeError(
            f"multi_margin_loss: expected input (N, C) or (C,) and target (N,) or (), got input "
            f"{list(input.shape)} and target {list(target.shape)}"
        )
    _constant_weights("multi_margin_loss", weight=weight)  # PyTorch's kernel: no weight grad
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(
            f"multi_margin_loss: expected scalar type {input.dtype} for weight but found "
            f"{weight.dtype}; cast the weight to the input's dtype"
        )
    classes = target._data
    if classes.size and (
        classes.min() < 0 or classes.max() >= (input.shape[-1] if input.dim() else 1)
    ):
        raise RuntimeError("target out of range (multi_margin_loss: each class in [0, C))")
    return _multi_margin.multi_margin_loss(
        input,
        target,
        p=int(p),
        margin=float(margin),
        weight=None if weight is None else weight._data,
        reduction=REDUCTIONS[reduction],
    )


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(a, pos) - d(a, neg))`` with ``d`` the ``p``-norm pairwise distance;
    ``swap`` uses ``min(d(a, neg), d(pos, neg))``."""
    reduction = _reduction("triplet_margin_loss", size_average, reduce, reduction)
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(
            "triplet_margin_loss: the anchor, positive, and negative tensors are expected to "
            f"have the same number of dimensions, but got anchor {anchor.dim()}D, positive "
            f"{positive.dim()}D, and negative {negative.dim()}D inputs"
        )
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _lg.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)
