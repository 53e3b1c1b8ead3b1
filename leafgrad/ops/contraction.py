"""Contractions over named dims: tensordot, inner and vdot.

Composites of permute, reshape and matmul (as PyTorch composes tensordot), so their
gradients are matmul's, to any order.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from ._out import with_out
from .linalg import _check_dtypes, _check_ndim, _check_same_length, _dot
from .matmul import matmul


def _tensors(op: str, *args) -> None:
    for a in args:
        if not isinstance(a, Tensor):
            raise TypeError(f"{op}(): expected Tensors, got {type(a).__name__}")


def _same_dtype(op: str, a: Tensor, b: Tensor) -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"{op}: both inputs must have the same dtype, got {a.dtype} and {b.dtype}; convert "
            "one with .to(dtype)"
        )


def _dims_lists(dims, a: Tensor, b: Tensor) -> tuple:
    """``dims`` (an int, two lists, or a tensor of either) as two lists of non-negative dims."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        n = int(dims)
        if n < 0:
            raise RuntimeError(f"tensordot: dims must be non-negative, got {n}")
        if n > a._data.ndim or n > b._data.ndim:
            raise RuntimeError(
                f"tensordot: dims={n} is more than the dims of the inputs, of shapes "
                f"{list(a.shape)} and {list(b.shape)}"
            )
        return list(range(a._data.ndim - n, a._data.ndim)), list(range(n))
    if not (isinstance(dims, (list, tuple)) and len(dims) == 2):
        raise RuntimeError(
            f"tensordot: dims must be an int or two lists of dims, got dims={dims!r}"
        )
    first, second = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(first) != len(second):
        raise RuntimeError(
            f"tensordot: the two lists of dims must be equally long, got {first} and {second}"
        )
    da = [_normalize_dim(operator.index(d), a._data.ndim, "tensordot") for d in first]
    db = [_normalize_dim(operator.index(d), b._data.ndim, "tensordot") for d in second]
    for ds in (da, db):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"tensordot: a dim appears more than once in {ds}")
    return da, db


@public(method=False)
def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """The sum of products of ``a`` and ``b`` over the paired ``dims``: the last ``dims`` of
    ``a`` with the first of ``b``, or the two lists ``(dims_a, dims_b)``; the free dims of
    ``a`` then those of ``b`` remain."""
    _tensors("tensordot", a, b)
    if out is not None:
        return with_out("tensordot", lambda: tensordot(a, b, dims), (a, b), out)
    da, db = _dims_lists(dims, a, b)
    _same_dtype("tensordot", a, b)
    for i, j in zip(da, db):
        if a._data.shape[i] != b._data.shape[j]:
            raise RuntimeError(
                f"tensordot: contracted dims must match, but dim {i} of the first (shape "
                f"{list(a.shape)}) has size {a._data.shape[i]} and dim {j} of the second "
                f"(shape {list(b.shape)}) has size {b._data.shape[j]}"
            )
    free_a = [d for d in range(a._data.ndim) if d not in da]
    free_b = [d for d in range(b._data.ndim) if d not in db]
    shape_a = [a._data.shape[d] for d in free_a]
    shape_b = [b._data.shape[d] for d in free_b]
    k = math.prod(a._data.shape[d] for d in da)
    left = a.permute(*free_a, *da).reshape(math.prod(shape_a), k)
    right = b.permute(*db, *free_b).reshape(k, math.prod(shape_b))
    return matmul(left, right).reshape(*shape_a, *shape_b)


@public()
def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The dot products of the last dims (a product when either is 0-d): shape
    ``input.shape[:-1] + other.shape[:-1]``."""
    _tensors("inner", input, other)
    if out is not None:
        return with_out("inner", lambda: inner(input, other), (input, other), out)
    if input._data.ndim == 0 or other._data.ndim == 0:
        return input * other
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(
            f"inner: the last dims must match, got shapes {list(input.shape)} and "
            f"{list(other.shape)}"
        )
    _same_dtype("inner", input, other)
    return tensordot(input, other, ([-1], [-1]))


@public()
def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The dot product of two 1-D tensors (for real tensors, ``dot``)."""
    _tensors("vdot", input, other)
    if out is not None:
        return with_out("vdot", lambda: vdot(input, other), (input, other), out)
    _check_ndim("vdot", input, (1,), "input")
    _check_ndim("vdot", other, (1,), "other")
    _check_same_length("vdot", input, other)
    _check_dtypes("vdot", input, other)
    return _dot(input, other)


__all__ = exports(globals())
