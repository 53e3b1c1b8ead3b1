"""``embedding_bag``: sums, means or maxima of bags of embedding rows, composed from
leafgrad ops (one lookup, then a padded ``(bags, longest, dim)`` reduction)."""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ._layer_functions import _check_padding_idx

__all__ = ["embedding_bag"]


def _bags(input: Tensor, offsets, include_last_offset: bool) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices and the bag of each, from 2-D fixed-length bags or 1-D ``offsets``."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{type(offsets)}"
            )
        bags, length = input.shape
        return input.numpy().reshape(-1), np.repeat(np.arange(bags), length)
    if input.dim() != 1:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = offsets.numpy().astype(np.int64)
    flat = input.numpy()
    if starts.size and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {starts[0]}"
        )
    if starts.size and (np.any(np.diff(starts) < 0) or starts[-1] > flat.size):
        raise RuntimeError(
            f"embedding_bag: offsets must be non-decreasing and at most {flat.size} (the number "
            f"of indices), got {starts.tolist()}"
        )
    if include_last_offset:
        # As PyTorch on CPU: the last bag runs to the end, whatever the last offset says.
        starts = starts[:-1]
    bag = np.searchsorted(starts, np.arange(flat.size), side="right") - 1
    return flat, bag, len(starts)


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """``(bags, dim)``: each bag's rows of ``weight`` reduced by ``mode`` (``sum``, ``mean``,
    ``max``); entries equal to ``padding_idx`` are left out and an empty bag gives zeros."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError(
            f"embedding_bag: per_sample_weights of shape {list(per_sample_weights.shape)} must "
            f"have the shape of input {list(input.shape)}"
        )
    padding_idx = _check_padding_idx(padding_idx, weight.shape[0])
    if input.dim() == 2:
        flat, bag = _bags(input, offsets, include_last_offset)
        count = input.shape[0]
    else:
        flat, bag, count = _bags(input, offsets, include_last_offset)
    keep = bag >= 0
    if padding_idx is not None:
        keep &= flat != padding_idx
    rows = _lg.nn.functional.embedding(
        _lg.tensor(flat, dtype=_lg.int64), weight, None, max_norm, norm_type, scale_grad_by_freq
    )
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    # Position of every kept entry inside its bag, for a padded (bags, longest) layout.
    sizes = np.bincount(bag[keep], minlength=count)
    longest = max(int(sizes.max()) if sizes.size else 0, 1)
    slot = np.zeros(flat.size, dtype=np.int64)
    firsts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    kept_bags = bag[keep]
    slot[keep] = np.arange(kept_bags.size) - firsts[kept_bags]
    layout = np.full((count, longest), flat.size, dtype=np.int64)  # flat.size: a zero row
    layout[kept_bags, slot[keep]] = np.nonzero(keep)[0]
    table = _lg.cat([rows, rows.new_zeros((1, weight.shape[1]))])
    padded = table.index_select(0, _lg.tensor(layout.reshape(-1))).reshape(count, longest, -1)
    filled = _lg.tensor(layout < flat.size).unsqueeze(2)
    if mode == "max":
        best = padded.masked_fill(~filled, float("-inf")).max(1)[0]
        return best.masked_fill(_lg.tensor(sizes == 0).unsqueeze(1), 0.0)
    total = padded.sum(1)
    if mode == "sum":
        return total
    return total / _lg.tensor(np.maximum(sizes, 1), dtype=total.dtype).unsqueeze(1)
