"""histc and histogram under vmap: every example's histogram at once.

Both read values before any primitive (the data's range gives the edges), so they batch as
whole functions: on the values of all examples, each example one row, with its own edges
when it has its own range. The counts, like the unbatched ones, have no gradient.
"""

from __future__ import annotations

import numpy as np

from .._batched import physical, rewrap, union_levels, with_levels
from .._ranges import _fma
from .._tensor import Tensor, _wrap


def _rows(tensors: list) -> tuple:
    """The values of ``tensors`` batched alike (every vmap level in front), the levels, and
    the leading (batch) shape."""
    levels = union_levels(*tensors)
    arrays = [physical(with_levels(t, levels))._data for t in tensors]
    return arrays, levels, arrays[0].shape[: len(levels)]


def _linspace_rows(lo: np.ndarray, hi: np.ndarray, steps: int, dt: np.dtype) -> np.ndarray:
    """``linspace(lo[r], hi[r], steps)`` per row, as ``_ranges._linspace_values`` computes one."""
    idx = np.arange(steps, dtype=np.int64)
    half = steps // 2
    up, down = idx[:half], steps - idx[half:] - 1
    s, e = lo.astype(dt)[:, None], hi.astype(dt)[:, None]
    with np.errstate(all="ignore"):
        step = (e - s) / dt.type(steps - 1)
        if dt == np.float16:  # half arithmetic rounds after every operation
            return np.concatenate((s + step * up.astype(dt), e - step * down.astype(dt)), 1)
        step = step.astype(np.float64)
        s, e = s.astype(np.float64), e.astype(np.float64)
        return np.concatenate((_fma(step, up, s), _fma(-step, down, e)), 1).astype(dt)


def _upper_bound(edges: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``searchsorted(edges[r], x[r], side='right')`` for every row ``r`` (a binary search)."""
    lo = np.zeros(x.shape, np.int64)
    hi = np.full(x.shape, edges.shape[1], np.int64)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        right = np.take_along_axis(edges, np.minimum(mid, edges.shape[1] - 1), 1) <= x
        lo = np.where(active & right, mid + 1, lo)
        hi = np.where(active & ~right, mid, hi)


def _counts(x, pos, edges, weight, dtype) -> np.ndarray:
    """Per row, the (weighted) number of its elements in each bin; elements outside
    ``[first, last edge]`` (and NaNs) are skipped, the last bin holds its right edge."""
    rows, bins = x.shape[0], edges.shape[1] - 1
    inside = (x >= edges[:, :1]) & (x <= edges[:, -1:])
    flat = (np.arange(rows)[:, None] * bins + np.minimum(pos, bins - 1))[inside]
    w = None if weight is None else weight[inside]
    counts = np.bincount(flat, weights=w, minlength=rows * bins)[: rows * bins]
    return counts.reshape(rows, bins).astype(dtype)


def _data_range(x: np.ndarray) -> tuple:
    if x.shape[1] == 0:
        return np.zeros(x.shape[0]), np.ones(x.shape[0])
    return x.min(1).astype(np.float64), x.max(1).astype(np.float64)


def histogram(input: Tensor, bins, range, weight, density: bool, check_range) -> tuple:
    """``(hist, bin_edges)`` of every example; ``bins`` an int or a tensor of edges (either may
    be batched), ``check_range(lo, hi)`` the unbatched op's checks of one range."""
    tensors = [input] + ([weight] if weight is not None else [])
    if isinstance(bins, Tensor):
        tensors.append(bins)
    arrays, levels, lead = _rows(tensors)
    x = arrays[0].reshape(int(np.prod(lead)), input._data.size)
    w = None if weight is None else arrays[1].reshape(x.shape)
    if isinstance(bins, Tensor):
        edges = arrays[-1].reshape(x.shape[0], -1)
    else:
        if range is not None:
            lo, hi = (np.full(x.shape[0], float(v)) for v in range)
        else:
            lo, hi = _data_range(x)
        for a, b in zip(lo.tolist(), hi.tolist()):
            check_range(a, b)
        same = lo == hi  # NumPy's convention: a one-value range is widened by 0.5 each way
        lo, hi = np.where(same, lo - 0.5, lo), np.where(same, hi + 0.5, hi)
        edges = _linspace_rows(lo, hi, int(bins) + 1, x.dtype)
    hist = _counts(x, _upper_bound(edges, x) - 1, edges, w, x.dtype)
    if density:
        with np.errstate(all="ignore"):
            hist = hist / hist.sum(1, keepdims=True) / np.diff(edges, axis=1)
    hist = rewrap(_wrap(hist.reshape(lead + hist.shape[1:])), levels)
    return hist, rewrap(_wrap(edges.reshape(lead + edges.shape[1:])), levels)


def histc(input: Tensor, bins: int, lo: float, hi: float, check_range) -> Tensor:
    """The counts of every example over ``[lo, hi]`` (each example's own range when they are
    equal); ``check_range(lo, hi)`` the unbatched op's checks of one range."""
    arrays, levels, lead = _rows([input])
    x = arrays[0].reshape(int(np.prod(lead)), input._data.size)
    low, high = np.full(x.shape[0], lo), np.full(x.shape[0], hi)
    if lo == hi and x.shape[1]:
        low, high = _data_range(x)
    same = low == high
    low, high = np.where(same, low - 1, low), np.where(same, high + 1, high)
    for a, b in zip(low.tolist(), high.tolist()):
        check_range(a, b)
    edges = _linspace_rows(low, high, bins + 1, x.dtype)
    first, last = edges[:, :1], edges[:, -1:]
    with np.errstate(all="ignore"):  # histc divides onto equal bins in the input's precision
        scaled = (x - first) * x.dtype.type(bins) / (last - first)
    pos = np.where((x >= first) & (x <= last), scaled, 0).astype(np.int64)
    return rewrap(_wrap(_counts(x, pos, edges, None, x.dtype).reshape(lead + (bins,))), levels)
