"""Reductions over ``dim`` (an int, a tuple or None for all) with ``keepdim``."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _normalize_dim
from ._primitive import primitive


def _dims(dim, ndim: int, op: str):
    """``dim`` as a sorted tuple of non-negative axes, or None for all."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        axes = tuple(sorted(_normalize_dim(int(d), ndim, op) for d in dim))
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"{op}: dim {list(dim)} names a dimension more than once")
        return axes
    return (_normalize_dim(int(dim), ndim, op),)


def _restore(grad: Tensor, shape, dims, keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back to the input's ``shape``."""
    if not keepdim and dims is not None and grad._data.ndim != len(shape):
        keep_shape = tuple(1 if i in dims else s for i, s in enumerate(shape))
        grad = grad.reshape(keep_shape)
    return grad.expand(shape)


def _sum_forward(x, *, dim, keepdim, dtype=None):
    if dtype is None and x.dtype.kind in "bui" and x.dtype != np.int64:
        dtype = np.int64
    axis = None if dim is None else dim
    if x.ndim == 0:
        axis = None
    return np.sum(x, axis=axis, keepdims=keepdim, dtype=dtype)


_sum_all = primitive(
    "sum",
    _sum_forward,
    (lambda grad, x, result, *, dim, keepdim, dtype=None: _restore(grad, x._data.shape, dim, keepdim),),
    node_name="SumBackward0",
    dtype_rule="keep",
)
_sum_dim = primitive(
    "sum",
    _sum_forward,
    (lambda grad, x, result, *, dim, keepdim, dtype=None: _restore(grad, x._data.shape, dim, keepdim),),
    node_name="SumBackward1",
    dtype_rule="keep",
)


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (all elements when None); integers sum in int64 like PyTorch."""
    np_dtype = None if dtype is None else _as_np(dtype)
    dims = _dims(dim, input._data.ndim, "sum")
    if dim is None:
        return _sum_all(input, dim=None, keepdim=False, dtype=np_dtype)
    return _sum_dim(input, dim=dims, keepdim=keepdim, dtype=np_dtype)


def _as_np(dtype):
    from .._dtype import as_dtype

    return as_dtype(dtype).np


def _mean_forward(x, *, dim, keepdim, dtype=None):
    if x.dtype.kind != "f" and dtype is None:
        raise RuntimeError(
            f"mean: input dtype should be floating point, got {x.dtype}; convert with .float() "
            "or pass dtype="
        )
    return np.mean(x, axis=dim if x.ndim else None, keepdims=keepdim, dtype=dtype)


def _mean_grad(grad, x, result, *, dim, keepdim, dtype=None):
    shape = x._data.shape
    count = x._data.size if dim is None else int(np.prod([shape[d] for d in dim]))
    return _restore(grad / count, shape, dim, keepdim)


_mean_all = primitive("mean", _mean_forward, (_mean_grad,), node_name="MeanBackward0", dtype_rule="keep")
_mean_dim = primitive("mean", _mean_forward, (_mean_grad,), node_name="MeanBackward1", dtype_rule="keep")


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Arithmetic mean over ``dim`` (all elements when None); floating inputs only."""
    np_dtype = None if dtype is None else _as_np(dtype)
    if dim is None:
        return _mean_all(input, dim=None, keepdim=False, dtype=np_dtype)
    return _mean_dim(input, dim=_dims(dim, input._data.ndim, "mean"), keepdim=keepdim, dtype=np_dtype)


__all__ = ["sum", "mean"]
METHODS = {"sum": sum, "mean": mean}
