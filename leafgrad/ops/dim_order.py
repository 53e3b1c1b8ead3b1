"""``Tensor.dim_order``: a tensor's dims from outermost to innermost in memory, read from
its strides (size-1 dims and equal strides leave the order ambiguous, as in PyTorch)."""

from __future__ import annotations

import itertools

import numpy as np

from .._exposure import exports, public
from .._memory_format import channels_last, channels_last_3d, contiguous_format, is_laid_out
from .._tensor import Tensor


@public(function=False)
def dim_order(self: Tensor, *, ambiguity_check=False) -> tuple:
    """The dims from outermost to innermost in memory (``(0, 2, 3, 1)`` for channels_last).

    ``ambiguity_check=True`` raises a RuntimeError when size-1 dims or equal strides allow
    more than one order; a list of memory formats accepts a tensor laid out as one of them.
    """
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    shape, strides = self._data.shape, self.stride()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = bool(ambiguity_check) if isinstance(ambiguity_check, bool) else True
    if check and _has_many_orders(shape, strides) and not _one_format(self._data, formats):
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the given "
            "memory formats. Pass ambiguity_check=False, or a list of the formats to accept"
        )
    order, ambiguous = _memory_order(self._data, shape, strides)
    if check and ambiguous:
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(order)


def _has_many_orders(shape, strides) -> bool:
    return 1 in shape or any(a == b for a, b in itertools.pairwise(strides))


def _one_format(data: np.ndarray, formats: list) -> bool:
    """Whether ``data`` is laid out as exactly one of ``formats``."""
    return sum(is_laid_out(data, fmt) for fmt in formats) == 1


def _memory_order(data: np.ndarray, shape, strides) -> tuple[list, bool]:
    """Dims outermost first, by stride (dims with stride 0 or tied strides keep their place
    unless their sizes decide), and whether some neighbours stayed undecided."""
    ndim = len(shape)
    if ndim <= 1:
        return list(range(ndim)), False
    cl = {4: channels_last, 5: channels_last_3d}.get(ndim)
    row_major = is_laid_out(data, contiguous_format)
    in_cl = cl is not None and is_laid_out(data, cl)
    if row_major and not in_cl:
        return list(range(ndim)), False
    if in_cl and not row_major:
        return [0, *range(2, ndim), 1], False

    def outer(a: int, b: int) -> int:
        """1 when dim ``a`` must go outside ``b`` in memory, -1 when it stays, 0 undecided."""
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if _covers(shape[b], shape[a]) else 1
        if _covers(sb, sa):
            return -1
        return 1 if _covers(sa, sb) else 0

    inner_first = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):  # insertion sort that leaves undecided pairs in place
        j = i
        for k in range(i - 1, -1, -1):
            decision = outer(inner_first[k], inner_first[j])
            if decision > 0:
                inner_first[k], inner_first[j] = inner_first[j], inner_first[k]
                j = k
            elif decision < 0:
                break
    ambiguous = any(outer(inner_first[i], inner_first[i + 1]) != -1 for i in range(ndim - 1))
    return inner_first[::-1], ambiguous


def _covers(a: int, b: int) -> bool:
    """``a >= b`` in the sense strides are compared (a multiple counts, 0 is smallest)."""
    if b == 0:
        return True
    if a == 0:
        return False
    return a >= b or a % b == 0


__all__ = exports(globals())
