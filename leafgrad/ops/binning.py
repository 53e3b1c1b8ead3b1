"""Binning: searchsorted, bucketize, histc, histogram and bincount.

Their results are indices or counts: none has a derivative. As in PyTorch, histogram (and
bincount with weights) of a tensor that requires grad is recorded, and backward raises.
"""

from __future__ import annotations

import numpy as np

from .._batched import BatchedTensor
from .._exposure import exports, public
from .._ranges import _linspace_values
from .._tensor import Tensor, _wrap
from . import _batch_binning
from ._batch_loop import loops_over_examples
from ._optable import NoDerivative
from ._out import with_out, with_outs
from ._primitive import primitive
from ._reduce import _require_tensor
from ._returned import returned

_Histogram = returned("histogram", ["hist", "bin_edges"])
_HistogramOut = returned("histogram_out", ["hist", "bin_edges"])


# ----- searchsorted / bucketize -----


def _side(right: bool, side) -> bool:
    """Whether to search from the right, from ``right=`` and ``side=`` (which must agree)."""
    if side is None:
        return bool(right)
    if side not in ("left", "right"):
        raise RuntimeError(
            f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
        )
    if right and side == "left":
        raise RuntimeError(
            "torch.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    return side == "right"


def _search(boundaries: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """PyTorch's binary search, vectorised: row by row over the leading dims of an N-D
    ``boundaries`` (1-D boundaries serve every value). Its comparisons (``!(mid >= v)``,
    ``!(mid > v)``) place NaNs as PyTorch does, which NumPy's searchsorted does not."""
    if boundaries.dtype != values.dtype:  # compare in the promoted dtype, as PyTorch does
        common = np.promote_types(boundaries.dtype, values.dtype)
        boundaries, values = boundaries.astype(common), values.astype(common)
    n = boundaries.shape[-1]
    if boundaries.ndim == 1 and not (
        boundaries.dtype.kind == "f" and (np.isnan(boundaries).any() or np.isnan(values).any())
    ):
        # Without NaNs NumPy's search of one sorted row finds the same places, faster.
        return np.searchsorted(boundaries, values, side="right" if right else "left")
    rows = boundaries.reshape(-1, n)
    flat = values.reshape(rows.shape[0], -1) if boundaries.ndim > 1 else values.reshape(1, -1)
    row = np.arange(rows.shape[0])[:, None]
    start = np.zeros(flat.shape, dtype=np.int64)
    end = np.full(flat.shape, n, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                break
            mid = start + ((end - start) >> 1)
            at = rows[row, np.minimum(mid, n - 1)]
            go_right = ~(at > flat) if right else ~(at >= flat)
            start = np.where(active & go_right, mid + 1, start)
            end = np.where(active & ~go_right, mid, end)
    return start.reshape(values.shape)


def _check_searchable(array: np.ndarray, op: str) -> None:
    if array.dtype == np.bool_:
        raise NotImplementedError(f"{op}: not implemented for bool tensors; convert with .int()")


@public(method=False)
def searchsorted(
    sorted_sequence: Tensor,
    input,
    *,
    out_int32: bool = False,
    right: bool = False,
    side=None,
    sorter=None,
    out=None,
) -> Tensor:
    """Indices where ``input`` would be inserted into ``sorted_sequence`` (sorted along its last
    dim, or made so by the int64 ``sorter``) to keep it sorted: the first such place, or the
    last with ``right=True`` / ``side="right"``. N-D sequences search row by row: their leading
    dims must match ``input``'s. ``input`` may be a number (a 0-d result)."""
    if out is not None:
        options = dict(out_int32=out_int32, right=right, side=side, sorter=sorter)
        compute = lambda: searchsorted(sorted_sequence, input, **options)
        return with_out("searchsorted", compute, (), out)  # no grad to refuse: indices
    _require_tensor(sorted_sequence, "searchsorted")
    from_right = _side(right, side)
    seq = sorted_sequence._data
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    _check_searchable(seq, "searchsorted")
    _check_searchable(values, "searchsorted")
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if seq.ndim > 1 and (values.ndim != seq.ndim or values.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            f"dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
        )
    if sorter is not None:
        order = sorter._data
        if order.dtype != np.int64:
            raise RuntimeError(
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                f"{sorter.dtype}"
            )
        if order.shape != seq.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {list(seq.shape)} and sorter tensor {list(order.shape)}"
            )
        seq = np.take_along_axis(seq, order, axis=-1)
    found = _search(seq, values, from_right)
    return _wrap(np.asarray(found, dtype=np.int32 if out_int32 else np.int64))


@public(method=False)
def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out=None):
    """The index of the bucket of each element: ``boundaries[i-1] < x <= boundaries[i]``
    (``boundaries[i-1] <= x < boundaries[i]`` with ``right=True``); 1-D ``boundaries``."""
    _require_tensor(boundaries, "bucketize")
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"bucketize(): boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


# ----- histc / histogram -----


def _floating(input: Tensor, op: str) -> np.ndarray:
    _require_tensor(input, op)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"{op}: not implemented for {input.dtype} tensors; convert with .float() first"
        )
    return input._data


def _positions(x: np.ndarray, edges: np.ndarray, linear: bool) -> tuple:
    """The bin of each element of ``x`` inside ``[edges[0], edges[-1]]`` (the last bin holds
    its right edge), and which elements those are (NaNs and elements outside are skipped).

    ``linear``: histc's division onto equal bins, in the input's precision; otherwise the
    binary search on the edges that histogram's local search amounts to.
    """
    inside = (x >= edges[0]) & (x <= edges[-1])
    x = x[inside]
    bins = edges.size - 1
    if linear:
        with np.errstate(all="ignore"):
            scaled = (x - edges[0]) * x.dtype.type(bins) / (edges[-1] - edges[0])
        pos = scaled.astype(np.int64)
    else:
        pos = np.searchsorted(edges, x, side="right") - 1
    return np.minimum(pos, bins - 1), inside


def _count(pos, bins: int, weights, dtype) -> np.ndarray:
    return np.bincount(pos, weights=weights, minlength=bins)[:bins].astype(dtype)


def _check_bins(bins: int, op: str) -> None:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(
            f"{op}(): bins must be an int or a Tensor of edges, not {type(bins).__name__}"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")


@public()
def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:
    """Counts of ``input``'s elements in ``bins`` equal bins over ``[min, max]`` (the data's
    range when ``min == max``; widened by 1 each way when that is one value too). Elements
    outside are ignored. Floating inputs only; never requires grad (as in PyTorch)."""
    if out is not None:
        return with_out("histc", lambda: histc(input, bins, min, max), (), out)  # never recorded
    x = _floating(input, "histc")
    _check_bins(bins, "histc")
    lo, hi = float(min), float(max)
    if type(input) is BatchedTensor:
        return _batch_binning.histc(input, int(bins), lo, hi, _check_histc_range)
    x = x.reshape(-1)
    if lo == hi and x.size:
        lo, hi = float(np.min(x)), float(np.max(x))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    _check_histc_range(lo, hi)
    edges = _linspace_values(lo, hi, int(bins) + 1, x.dtype)
    pos, _ = _positions(x, edges, linear=True)
    return _wrap(_count(pos, int(bins), None, x.dtype))


def _check_histc_range(lo: float, hi: float) -> None:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    if not lo < hi:
        raise RuntimeError(f"torch.histc: max must be larger than min (got min {lo}, max {hi})")


def _histogram_forward(x, *edges, bins, lo, hi, weight, density):
    if not edges:
        edges = (_linspace_values(lo, hi, bins + 1, x.dtype),)
    edges = edges[0]
    flat = x.reshape(-1)
    pos, inside = _positions(flat, edges, linear=False)
    w = None if weight is None else weight.reshape(-1)[inside]
    hist = _count(pos, edges.size - 1, w, x.dtype)
    if density:
        with np.errstate(all="ignore"):
            hist = hist / hist.sum() / np.diff(edges)
    return hist, edges.copy()


_histogram_bin_ct = primitive(
    "histogram", _histogram_forward, kind=NoDerivative(), overload="bin_ct",
    dtype_rule="keep", num_outputs=2,
)  # fmt: skip
_histogram_bins = primitive(
    "histogram", _histogram_forward, kind=NoDerivative(), overload="bins_tensor",
    dtype_rule="keep", num_outputs=2,
)  # fmt: skip


@public()
def histogram(input: Tensor, bins=100, *, range=None, weight=None, density: bool = False, out=None):
    """``(hist, bin_edges)``: a histogram of ``input``'s elements over ``bins`` equal bins on
    ``range`` (the data's range by default) or over the given edges (a 1-D tensor); the last
    bin includes its right edge. ``weight`` (input's shape and dtype) weights each element;
    ``density`` normalises to a probability density. Floating inputs only."""
    if out is not None:
        options = dict(range=range, weight=weight, density=density)
        compute = lambda: histogram(input, bins, **options)
        return with_outs("histogram", compute, (input,), out, _HistogramOut)
    x = _floating(input, "histogram")
    w = None
    if weight is not None:
        if weight._data.shape != x.shape:
            raise RuntimeError(
                f"torch.histogramdd: the weight tensor should have the input's shape "
                f"{list(x.shape)}, but got shape {list(weight.shape)}"
            )
        if weight._data.dtype != x.dtype:
            raise RuntimeError(
                f"torch.histogramdd: input tensor and weight tensor should have the same "
                f"dtype, but got input({input.dtype}), and weight({weight.dtype})"
            )
        w = weight._data
    params = dict(bins=0, lo=0.0, hi=0.0, weight=w, density=density)
    if isinstance(bins, Tensor):
        if bins._data.ndim != 1 or bins._data.size < 1 or bins._data.dtype != x.dtype:
            raise RuntimeError(
                f"torch.histogram(): bins must be a 1-D tensor of at least one edge with the "
                f"input's dtype {input.dtype}, got shape {list(bins.shape)} and {bins.dtype}"
            )
    else:
        _check_bins(bins, "histogram")
    if any(type(t) is BatchedTensor for t in (input, weight, bins)):
        batched = _batch_binning.histogram(input, bins, range, weight, density, _check_range)
        return _Histogram(*batched)
    if isinstance(bins, Tensor):
        hist, edges = _histogram_bins(input, bins, **params)
    else:
        lo, hi = _outer_edges(x, range)
        params.update(bins=int(bins), lo=lo, hi=hi)
        hist, edges = _histogram_bin_ct(input, **params)
    return _Histogram(hist, edges)


def _outer_edges(x: np.ndarray, range) -> tuple:
    """The first and last edge: ``range``, else the data's extremes (0 and 1 when empty)."""
    if range is not None:
        lo, hi = (float(v) for v in range)
    elif x.size:
        lo, hi = float(np.min(x)), float(np.max(x))
    else:
        lo, hi = 0.0, 1.0
    _check_range(lo, hi)
    if lo == hi:  # NumPy's convention: a one-value range is widened by 0.5 each way
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _check_range(lo: float, hi: float) -> None:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo}, {hi}] is not finite")
    if lo > hi:
        raise RuntimeError(
            f"torch.histogramdd: min should not exceed max, but got min {lo} max {hi} for "
            "dimension 0"
        )


# ----- bincount -----


def _bincount_forward(x, *weights, minlength):
    w = weights[0] if weights else None
    if w is not None:
        # float32 weights count in float32; every other dtype in float64 (as PyTorch).
        dtype = np.float32 if w.dtype == np.float32 else np.float64
        return np.bincount(x, weights=w, minlength=minlength).astype(dtype)
    return np.bincount(x, minlength=minlength).astype(np.int64)


_bincount = primitive(
    "bincount", _bincount_forward, kind=NoDerivative(), dtype_rule="keep",
)  # fmt: skip


@public()
@loops_over_examples("bincount", ("input", "weights"))
def bincount(input: Tensor, weights=None, minlength: int = 0) -> Tensor:
    """How often each value occurs in the 1-D non-negative integer ``input`` (int64), or the
    sums of ``weights`` per value; at least ``minlength`` bins."""
    _require_tensor(input, "bincount")
    x = input._data
    if x.dtype == np.bool_ or x.dtype.kind == "f":
        raise NotImplementedError(
            f"bincount: not implemented for {input.dtype} tensors; pass integers (.long())"
        )
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError(
            f"bincount only supports 1-d non-negative integral inputs (got shape {list(x.shape)})"
        )
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
    if weights is None:
        return _bincount(input, minlength=int(minlength))
    if weights._data.shape != x.shape:
        raise RuntimeError(
            f"bincount: weights should be 1-d and have the same length as input (input "
            f"{list(x.shape)}, weights {list(weights.shape)})"
        )
    return _bincount(input, weights, minlength=int(minlength))


__all__ = exports(globals())
