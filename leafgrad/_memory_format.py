"""Memory formats (``torch.contiguous_format``, ``channels_last`` ...) and the strides they give.

A NumPy array has real strides, so the layouts PyTorch chooses can be reproduced exactly:
``contiguous_format`` is row-major, ``channels_last`` (4-D) keeps the channel dim innermost
(NHWC in memory), ``channels_last_3d`` the same for 5-D, and ``preserve_format`` keeps a dense
input's strides, or else orders dims as the input's strides do (PyTorch's
``infer_dense_strides``). Imports nothing from the package.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d"]
__all__ += ["preserve_format"]


class memory_format:
    """A memory layout; the four instances are the only ones (as in PyTorch)."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.memory_format' instances")

    @classmethod
    def _make(cls, name: str) -> memory_format:
        fmt = object.__new__(cls)
        fmt._name = name
        return fmt

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # unpickles as this module's instance of that name


contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")

# Dims from innermost to outermost in memory, for the formats that fix an order.
_CHANNELS_LAST = {channels_last: (4, (1, 3, 2, 0)), channels_last_3d: (5, (1, 4, 3, 2, 0))}


def _strides_for(shape, inner_first) -> tuple:
    """Dense strides (in elements) laying out dims in the order ``inner_first``."""
    strides = [0] * len(shape)
    step = 1
    for d in inner_first:
        strides[d] = step
        if shape[d] > 1:  # size 0 and 1 dims do not advance (as PyTorch)
            step *= shape[d]
    return tuple(strides)


def _element_strides(data: np.ndarray) -> tuple:
    return tuple(s // data.itemsize for s in data.strides)


def is_non_overlapping_and_dense(shape, strides) -> bool:
    """PyTorch's test: the elements tile one block of memory, in some order of the dims."""
    order = sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d]))
    need = 1
    for d in order:
        if shape[d] < 2:
            return True
        if strides[d] != need:
            return False
        need *= shape[d]
    return True


def _inferred_order(shape, strides) -> list:
    """PyTorch's infer_dense_strides: dims innermost first, by the input's strides (an
    insertion sort that leaves dims with stride 0, or tied and no larger, where they are)."""

    def compare(a, b):
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return -1 if strides[a] < strides[b] else 1
        return 1 if shape[a] > shape[b] else 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        j = i
        for k in range(i - 1, -1, -1):
            c = compare(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    return perm


def _plainly_row_major(data: np.ndarray, fmt) -> bool:
    """The common case, decided cheaply: a row-major result with NumPy's own strides (a
    row-major input without size-1 dims, whose strides PyTorch would keep or give anyway)."""
    return (
        (fmt is None or fmt is preserve_format or fmt is contiguous_format)
        and data.flags.c_contiguous
        and 1 not in data.shape
    )


def _check(fmt, op: str) -> memory_format:
    if fmt is None:
        return preserve_format
    if not isinstance(fmt, memory_format):
        raise TypeError(
            f"{op}(): memory_format must be a torch.memory_format such as "
            f"torch.contiguous_format, not {type(fmt).__name__}"
        )
    return fmt


def target_strides(data: np.ndarray, fmt, op: str) -> tuple:
    """The strides (in elements) PyTorch gives a new tensor shaped like ``data`` in ``fmt``."""
    fmt = _check(fmt, op)
    shape = data.shape
    if fmt in _CHANNELS_LAST:
        rank, inner_first = _CHANNELS_LAST[fmt]
        if data.ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")
        return _strides_for(shape, inner_first)
    if fmt is contiguous_format:
        return _strides_for(shape, range(data.ndim - 1, -1, -1))
    strides = _element_strides(data)
    if min(strides, default=0) >= 0 and is_non_overlapping_and_dense(shape, strides):
        return strides
    return _strides_for(shape, _inferred_order(shape, [abs(s) for s in strides]))


def empty_in_format(data: np.ndarray, fmt, dtype, op: str) -> np.ndarray:
    """An uninitialised array of ``data``'s shape and ``dtype``, laid out as ``fmt`` says."""
    strides = target_strides(data, fmt, op)
    dtype = np.dtype(dtype)
    buffer = np.empty(max(data.size, 1), dtype)
    return as_strided(buffer, data.shape, [s * dtype.itemsize for s in strides])


def like_in_format(values: np.ndarray, like: np.ndarray, fmt, op: str) -> np.ndarray:
    """``values`` (``like``'s shape) laid out as ``fmt`` gives a new tensor like ``like``
    (``values`` itself when that is row-major): what the ``*_like`` factories return."""
    if _plainly_row_major(like, fmt):
        return values
    strides = target_strides(like, fmt, op)
    if strides == _strides_for(like.shape, range(like.ndim - 1, -1, -1)):
        return values
    out = as_strided(
        np.empty(max(values.size, 1), values.dtype),
        values.shape,
        [s * values.itemsize for s in strides],
    )
    out[...] = values
    return out


def copy_in_format(data: np.ndarray, fmt, op: str) -> np.ndarray:
    """A copy of ``data`` laid out as ``fmt`` says."""
    if _plainly_row_major(data, fmt):
        return data.copy()
    if fmt is contiguous_format and data.size:  # (``contiguous()``'s copy of a transposed x)
        # NumPy's row-major strides are PyTorch's but for size-0 dims (size-1 dims step
        # over the dims inside them in both): no strided view to build.
        return data.copy(order="C")
    out = empty_in_format(data, fmt, data.dtype, op)
    out[...] = data
    return out


def is_laid_out(data: np.ndarray, fmt) -> bool:
    """``Tensor.is_contiguous(memory_format=fmt)``: whether the strides are ``fmt``'s."""
    fmt = contiguous_format if fmt is None else _check(fmt, "is_contiguous")
    if fmt in _CHANNELS_LAST:
        rank, inner_first = _CHANNELS_LAST[fmt]
        if data.ndim != rank:
            return False
        strides = _element_strides(data)
        want = _strides_for(data.shape, inner_first)
        return all(data.shape[d] < 2 or strides[d] == want[d] for d in range(rank))
    return bool(data.flags.c_contiguous)


def copy_for_grad(values: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """A copy of ``values`` laid out as PyTorch's AccumulateGrad lays out a leaf's first
    gradient: with the leaf's strides when the leaf is non-overlapping and dense (say
    channels_last), else row-major."""
    if leaf.flags.c_contiguous:
        return np.array(values, dtype=leaf.dtype, order="C")
    strides = _element_strides(leaf)
    if min(strides, default=0) < 0 or not is_non_overlapping_and_dense(leaf.shape, strides):
        return np.array(values, dtype=leaf.dtype, order="C")
    out = as_strided(
        np.empty(max(leaf.size, 1), leaf.dtype),
        leaf.shape,
        [s * leaf.itemsize for s in strides],
    )
    out[...] = values
    return out
