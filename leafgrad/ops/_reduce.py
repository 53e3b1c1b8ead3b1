"""Shared by the reduction families: ``dim`` normalisation and restoring reduced dims.

Only imports downward (dtypes, tensor, NumPy), so reduction, extrema, softmax and statistics can all
import it in any order.
"""

from __future__ import annotations

import operator

import numpy as np

from .._dtype import as_dtype
from .._tensor import Tensor, _normalize_dim
from .broadcast import _expand


def check_keepdim(keepdim, op: str) -> None:
    """PyTorch's TypeError for a ``keepdim`` that is not a Python bool (an int or a NumPy
    bool included: PyTorch's argument parser takes ``True`` and ``False`` only)."""
    if keepdim is not False and keepdim is not True:
        raise TypeError(
            f"{op}(): argument 'keepdim' must be bool, not {type(keepdim).__name__}"
            f" (pass keepdim=True or keepdim=False)"
        )


def _dim_index(dim, op: str) -> int:
    """One dim as an int: a Python or NumPy integer, or an integer tensor of one element
    (PyTorch takes those); a float or a bool is a TypeError, as in PyTorch."""
    if isinstance(dim, (bool, np.bool_)) or isinstance(dim, (float, np.floating)):
        raise TypeError(f"{op}(): dim must be an int or a tuple of ints, not {type(dim).__name__}")
    try:
        return operator.index(dim)
    except TypeError:
        raise TypeError(
            f"{op}(): dim must be an int or a tuple of ints, not {type(dim).__name__}"
        ) from None


def _dims(dim, ndim: int, op: str):
    """``dim`` as a sorted tuple of non-negative axes, or None for all."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        axes = tuple(sorted(_normalize_dim(_dim_index(d, op), ndim, op) for d in dim))
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"{op}: dim {list(dim)} names a dimension more than once")
        return axes
    return (_normalize_dim(_dim_index(dim, op), ndim, op),)


def _axes(dim, ndim: int, op: str) -> tuple:
    """Like ``_dims`` but None (or ``()``) spelled out as every axis."""
    if type(dim) is int and 0 <= dim < ndim:
        return (dim,)  # the common case, without the general checks
    dims = _dims(dim, ndim, op)
    return tuple(range(ndim)) if dims is None else dims


def _one_dim(dim, ndim: int, op: str) -> int:
    """A single ``dim`` (an int, as PyTorch requires for this op), made non-negative."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{op}(): dim must be a single int, not {type(dim).__name__} ({dim!r})")
    return _normalize_dim(int(dim), ndim, op)


def _np_axis(x, dims):
    """The NumPy ``axis`` for ``dims``: a 0-d array has no axes, so reduce it whole."""
    return None if dims is None or x.ndim == 0 else dims


def _keepdims(t: Tensor, shape, dims, keepdim: bool) -> Tensor:
    """A reduced tensor reshaped so its reduced dimensions are 1 (broadcasts against input).
    Also an array, in a plain rule: only ``ndim`` and ``reshape``, which both have."""
    if not keepdim and dims is not None and t.ndim != len(shape):
        t = t.reshape(tuple(1 if i in dims else s for i, s in enumerate(shape)))
    return t


def _unsqueezed(t: Tensor, shape, dims, keepdim: bool) -> Tensor:
    """A reduced tensor with its reduced dimensions back as 1s, as PyTorch's
    ``unsqueeze_multiple`` in its reductions' backwards: an unsqueeze op per dim (ascending)
    on a tensor, one reshape of a plain rule's array; as it is with ``keepdim``, for every
    element (``dims`` None) and from a 0-d input. (``_keepdims`` reshapes, as PyTorch's
    ``restore_reduced_dims`` for amax and amin.)"""
    if keepdim or dims is None or t.ndim == len(shape):
        return t
    dims = sorted(d % len(shape) for d in dims)
    if type(t) is np.ndarray:  # (a reshape: np.expand_dims costs ~2 us of argument checks)
        return t.reshape(tuple(1 if i in dims else s for i, s in enumerate(shape)))
    for d in dims:
        t = t.unsqueeze(d)
    return t


def _restore(grad: Tensor, shape: tuple, dims, keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back to the input's ``shape`` (a tensor, or an array in
    a plain rule): PyTorch's ``sum_backward``."""
    return _expand(_unsqueezed(grad, shape, dims, keepdim), shape=shape)


def _as_np(dtype):
    return as_dtype(dtype).np


def _int_to_long(x, dtype):
    """PyTorch sums and multiplies bools and integers in int64 unless told otherwise."""
    if dtype is None and x.dtype.kind in "bui":
        return np.int64
    return dtype


def _require_tensor(input, op: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): input must be a Tensor, not {type(input).__name__}")
