"""Sums over the leading or the trailing axes of a C-contiguous float32/float64 array, taken
as one product with a vector of ones (BLAS's gemv).

Why: NumPy reduces a C-contiguous array over its rows one row at a time, and over short
rows one inner loop per row: ~20 ns a row either way here, (1e4, 20) float64 ~0.4 ms
against ~0.05 ms as a product (PyTorch 0.02-0.06 ms). The products round no worse: over
rows NumPy keeps one running sum per column, and within a row of at most ``MAX_REDUCED``
elements its pairwise sum is a few running sums, as BLAS's dot products are.
"""

from __future__ import annotations

import functools

import numpy as np

MIN_KEPT = 32  # fewer sums than this: NumPy's reduction is quicker ((16, 20): 1.2 against 1.6 us)
MAX_REDUCED = 1024  # longer sums: NumPy's pairwise blocks round better, and are quick


def add_reduce(x, axis, keepdims: bool = False):
    """``np.add.reduce(x, axis, keepdims=keepdims)``, by a product where ``over_axes`` takes
    it (``axis``: None or a sorted tuple of non-negative axes)."""
    if type(axis) is tuple:
        total = over_axes(x, axis)
        if total is not None:
            return kept(total, x.shape, axis) if keepdims else total
    return np.add.reduce(x, axis=axis, keepdims=keepdims)


def kept(total: np.ndarray, shape: tuple, axes: tuple) -> np.ndarray:
    """``total`` (reduced over ``axes`` of ``shape``) with those axes kept, of size 1."""
    return total.reshape(tuple(1 if i in axes else n for i, n in enumerate(shape)))


def over_axes(x, axes):
    """``x`` summed over ``axes`` (a sorted tuple of non-negative axes, without keepdims) by
    a product, or None where NumPy's reduction should run: other dtypes or layouts, axes
    neither leading nor trailing, few or long sums. (The shape is read first: a small
    array's sums, the common answer None, cost no dtype or layout reads.)"""
    if type(x) is not np.ndarray:
        return None
    k, ndim = len(axes), x.ndim
    if not k or k == ndim:
        return None
    if axes[0] == 0 and axes[-1] == k - 1:
        return over_leading(x, k)
    if axes[0] == ndim - k and axes[-1] == ndim - 1:
        return over_trailing(x, k)
    return None


def over_leading(x, k: int):
    """The sum of a C-contiguous float32/float64 array over its first ``k`` axes (a bias's
    gradient, ``x.sum(0)``), or None where NumPy's reduction is as quick."""
    if type(x) is not np.ndarray:
        return None
    rows = 1
    for n in x.shape[:k]:
        rows *= n
    cols = x.size // rows if rows else 0
    if rows < MIN_KEPT or not cols or cols > MAX_REDUCED:
        return None
    if x.dtype.char not in "fd" or not x.flags.c_contiguous:
        return None
    return np.dot(ones(rows, x.dtype), x.reshape(rows, cols)).reshape(x.shape[k:])


def over_trailing(x, k: int):
    """The sum of a C-contiguous float32/float64 array over its last ``k`` axes (``x.sum(1)``
    of a batch of short rows), or None where NumPy's reduction is as quick."""
    cols = 1
    for n in x.shape[x.ndim - k :]:
        cols *= n
    rows = x.size // cols if cols else 0
    if rows < MIN_KEPT or not cols or cols > MAX_REDUCED:
        return None
    if type(x) is not np.ndarray or x.dtype.char not in "fd" or not x.flags.c_contiguous:
        return None
    return np.dot(x.reshape(rows, cols), ones(cols, x.dtype)).reshape(x.shape[: x.ndim - k])


def over_middle(g):
    """``g: (K, ..., m)`` summed over its middle axes, one row of sums per channel (the fused
    Taylor path's first-layer weight gradient): one batched product with ones where ``g`` is
    a C-contiguous float32/float64 block (NumPy reduces a middle axis one row at a time:
    (3, 1000, 20) float64 55 -> 9 us), else NumPy's reduction."""
    channels, m = g.shape[0], g.shape[-1]
    rows = g.size // (channels * m) if channels * m else 0
    if g.ndim >= 3 and rows and g.dtype.char in "fd" and g.flags.c_contiguous:
        return np.matmul(ones(rows, g.dtype), g.reshape(channels, rows, m))
    return g.sum(axis=tuple(range(1, g.ndim - 1)))


@functools.lru_cache(maxsize=64)
def ones(n: int, dtype) -> np.ndarray:
    """A read-only vector of ``n`` ones (kept: a training loop sums the same few sizes)."""
    vector = np.ones(n, dtype)
    vector.flags.writeable = False
    return vector
