"""Which of equal elements ``kthvalue`` returns: PyTorch's CPU quickselect, replayed.

PyTorch's ``kthvalue`` selects with its own quickselect (Sedgewick's partition, a median of
three pivot, NaN largest), not a stable sort, so among equal values it returns the index
that this partition sequence leaves at position ``k - 1``. Only rows whose ``k``-th value
has an equal elsewhere in the row depend on it; those rows are replayed here element by
element (Python: linear in the row's length), every other row takes a stable sort's pick.
"""

from __future__ import annotations

import math

import numpy as np


def _greater_or_nan(a, b) -> bool:
    """PyTorch's ``gt_or_nan``: NaN above every number, else ``a > b``."""
    return (math.isnan(a) and not math.isnan(b)) or a > b


def quickselect_index(row: list, k: int) -> int:
    """The index PyTorch's CPU quickselect leaves at position ``k`` (0-based) of ``row``."""
    values = list(row)
    indices = list(range(len(values)))
    gt = _greater_or_nan

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    low, high = 0, len(values) - 1
    while True:
        if high <= low:
            return indices[k]
        if high == low + 1:
            if gt(values[low], values[high]):
                swap(low, high)
            return indices[k]
        middle = (low + high) >> 1
        swap(middle, low + 1)
        if gt(values[low + 1], values[high]):
            swap(low + 1, high)
        if gt(values[low], values[high]):
            swap(low, high)
        if gt(values[low + 1], values[low]):
            swap(low + 1, low)
        i, j = low + 1, high
        pivot = values[low]
        while True:
            i += 1
            while gt(pivot, values[i]):
                i += 1
            j -= 1
            while gt(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1


def kth_positions(x: np.ndarray, axis: int, k: int) -> np.ndarray:
    """Per row along ``axis`` (kept as size 1): the index of its ``k``-th smallest element
    (1-based) as PyTorch's CPU ``kthvalue`` returns it."""
    order = np.argsort(x, axis=axis, kind="stable")
    picked = np.take(order, [k - 1], axis=axis)
    value = np.take_along_axis(x, picked, axis)
    equal = x == value
    if x.dtype.kind in "fc":
        equal |= np.isnan(x) & np.isnan(value)
    tied = equal.sum(axis=axis, keepdims=True) > 1
    if not tied.any():
        return picked
    rows = np.moveaxis(x, axis, -1)
    out = np.moveaxis(picked, axis, -1).copy()
    tied_rows = np.moveaxis(tied, axis, -1)[..., 0]
    # np.ndindex, not np.nonzero: a 1-D input has one row, a 0-d ``tied_rows``.
    for position in np.ndindex(tied_rows.shape):
        if tied_rows[position]:
            out[position] = quickselect_index(rows[position].tolist(), k - 1)
    return np.moveaxis(out, -1, axis)
