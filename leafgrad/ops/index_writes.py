"""Writes at indices, out of place and in place: ``index_add``, ``index_copy``,
``index_fill``, ``index_reduce`` (slices along a dim), ``index_put`` (an advanced index),
``put`` (flat positions) and ``masked_scatter`` (where a mask is True).

``index_add``, ``index_copy``, ``index_fill`` and ``put`` check their arguments here and
call primitives of their own (``index_write_primitives``); the rest are composed of
differentiable primitives (index-put, scatter_reduce), so their derivatives of every order
follow. The in-place twins (``index_add_`` ...) write the result back (``ops/inplace.py``),
so they record the same nodes.
"""

from __future__ import annotations

import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap
from .._warn import warn_once
from . import inplace as _inplace
from ._batch_loop import loops_over_examples
from ._inputs import fill_number, guarding_indices
from ._out import accepts_out
from .index_write_primitives import (
    _index_add,
    _index_copy,
    _index_fill_scalar,
    _index_fill_tensor,
    _put,
    masked_scatter_values,
)
from .scatter_reduce import scatter_reduce


def _tensor(x, op: str, what: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {what} must be a Tensor, not {type(x).__name__}")
    return x


def _index_vector(op: str, index) -> np.ndarray:
    """A 0-d or 1-D int32/int64 index as a flat int64 array."""
    _tensor(index, op, "index")
    data = index._data
    if data.dtype not in (np.int32, np.int64):
        raise RuntimeError(
            f"{op}: Expected dtype int32/int64 for index but got: {index.dtype}; convert it "
            "with .long()"
        )
    if data.ndim > 1:
        raise IndexError(
            f"{op}: Index is supposed to be a vector, but got dim: {data.ndim} (shape "
            f"{list(data.shape)}); flatten it first"
        )
    return data.reshape(-1).astype(np.int64)  # a copy: the backward reads them as they were


def _in_range(op: str, idx: np.ndarray, d: int, size: int, error=RuntimeError, negative=False):
    lo = -size if negative else 0
    bad = idx[(idx < lo) | (idx >= size)]
    if bad.size:
        raise error(
            f"{op}: index {int(bad[0])} is out of bounds for dimension {d} with size {size}"
        )
    return np.where(idx < 0, idx + size, idx)


def _along(op: str, input: Tensor, dim, index):
    """``(x, d, idx)``: ``input`` (a 0-d one as shape (1,)), the dim, the index vector."""
    _tensor(input, op, "input")
    idx = _index_vector(op, index)
    d = _normalize_dim(operator.index(dim), input._data.ndim, op)
    x = input.reshape(1) if input._data.ndim == 0 else input
    return x, d, idx


def _slices_from(op: str, x: Tensor, d: int, idx: np.ndarray, source) -> Tensor:
    """``source`` checked to hold one slice of ``x`` (along ``d``) per index."""
    _tensor(source, op, "source")
    src = source.reshape(1) if source._data.ndim == 0 else source
    if src._data.dtype != x._data.dtype:
        raise RuntimeError(
            f"{op}: self ({x.dtype}) and source ({source.dtype}) must have the same scalar "
            "type; convert source with .to(self.dtype)"
        )
    if src._data.ndim != x._data.ndim:
        raise RuntimeError(
            f"{op}: source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(x.shape)} source.shape = {list(src.shape)}"
        )
    if src._data.shape[d] != idx.size:
        raise RuntimeError(
            f"{op}: Number of indices ({idx.size}) should be equal to source.size(dim): "
            f"({src._data.shape[d]}), for dim: {d}"
        )
    rest = [s for k, s in enumerate(x._data.shape) if k != d]
    if [s for k, s in enumerate(src._data.shape) if k != d] != rest:
        raise RuntimeError(
            f"{op}: source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(x.shape)} source.shape = {list(src.shape)}"
        )
    return src


def _back(result: Tensor, input: Tensor) -> Tensor:
    return result.reshape(()) if input._data.ndim == 0 else result


@public(inplace=True)
@accepts_out(same_dtype=True)
@loops_over_examples("index_add", ("index",))
@guarding_indices("index")
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """``input`` with ``alpha * source[i]`` added to slice ``index[i]`` along ``dim``."""
    op = "index_add_()"
    x, d, idx = _along(op, input, dim, index)
    _slices_from(op, x, d, idx, source)
    idx = _in_range(op, idx, d, x._data.shape[d])
    return _index_add(input, source, dim=d, index=idx, alpha=alpha)


@public(inplace=True)
@accepts_out(same_dtype=True)
@loops_over_examples("index_copy", ("index",))
@guarding_indices("index")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with slice ``index[i]`` along ``dim`` replaced by ``source[i]``."""
    op = "index_copy_()"
    x, d, idx = _along(op, input, dim, index)
    _tensor(source, op, "source")
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(
            f"{op}: self and source expected to have the same dtype, but got (self) {x.dtype} "
            f"and (source) {source.dtype}; convert source with .to(self.dtype)"
        )
    src = source.reshape(1) if source._data.ndim == 0 else source
    if src._data.ndim == x._data.ndim and src._data.shape[d] != idx.size:
        raise IndexError(
            f"{op}: Number of indices ({idx.size}) should be equal to source.size(dim) "
            f"({src._data.shape[d]})"
        )
    _slices_from(op, x, d, idx, src)
    idx = _in_range(op, idx, d, x._data.shape[d], error=IndexError)
    return _index_copy(input, source, dim=d, index=idx)


@public(inplace=True)
@loops_over_examples("index_fill", ("index",))
@guarding_indices("index")
def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``input`` with the slices ``index`` along ``dim`` set to ``value`` (a number or a 0-d
    tensor, which then gets their gradient)."""
    op = "index_fill_()"
    x, d, idx = _along(op, input, dim, index)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s); pass value.item() or a 0-d tensor"
        )
    _in_range(op, idx, d, x._data.shape[d], error=IndexError, negative=True)
    if isinstance(value, Tensor):
        return _index_fill_tensor(input, value, dim=d, index=idx)
    value = fill_number(value, input, "index_fill")
    return _index_fill_scalar(input, dim=d, index=idx, value=value)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@public(inplace=True)
@accepts_out(same_dtype=True)
@guarding_indices("index")
def index_reduce(
    input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self=True
) -> Tensor:
    """``input`` with each ``source[i]`` combined into slice ``index[i]`` along ``dim`` by
    ``reduce`` ("prod", "mean", "amax", "amin"); ``include_self=False`` leaves ``input``'s
    values out of the slices written to."""
    op = "index_reduce()"
    warn_once("index_reduce() is in beta and the API may change at any time.")
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            f"{op}: Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    x, d, idx = _along(op, input, dim, index)
    src = _slices_from(op, x, d, idx, source)
    idx = _in_range(op, idx, d, x._data.shape[d], error=IndexError)
    shape = [1] * x._data.ndim
    shape[d] = -1
    spread = np.broadcast_to(idx.reshape(shape), src._data.shape)
    out = scatter_reduce(x, d, _wrap(spread.copy()), src, reduce, include_self=include_self)
    return _back(out, input)


def _index_key(op: str, indices) -> tuple:
    """``indices`` (a tuple or list of Tensors) as an index; byte masks become bool ones."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"{op}: argument 'indices' must be tuple of Tensors, not {type(indices).__name__}"
        )
    key = []
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{op}: expected Tensor as element {k} in argument 0, but got {type(t).__name__}"
            )
        kind = t._data.dtype.kind
        if kind not in "iub" or t._data.dtype in (np.int8, np.uint16, np.uint32, np.uint64):
            raise IndexError(
                f"{op}: tensors used as indices must be long, int, byte or bool tensors, got "
                f"{t.dtype}"
            )
        # A copy either way: the backward reads the indices as they were.
        key.append(t.bool() if t._data.dtype == np.uint8 else _wrap(t._data.copy()))
    return tuple(key)


@public(inplace=True)
@loops_over_examples("index_put", ("indices",))
@guarding_indices("indices")
def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` (broadcast) written at ``input[indices]``, or added there
    (repeated positions summed) with ``accumulate``."""
    op = "index_put()"
    _tensor(input, op, "input")
    key = _index_key(op, indices)
    _tensor(values, op, "values")
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {input.dtype} "
            f"for the destination and {values.dtype} for the source; convert values first"
        )
    arrays = tuple(k._data for k in key)
    try:
        shape = np.empty(input._data.shape, np.bool_)[arrays].shape
        if not accumulate:
            return _inplace.index_put(input, values, key=key)
    except (IndexError, ValueError) as exc:
        raise type(exc)(
            f"{op}: cannot put values of shape {list(values.shape)} at those indices of a "
            f"tensor of shape {list(input.shape)}: {exc}"
        ) from None
    except RuntimeError:
        raise _values_do_not_fit(values, shape, op) from None
    if not _broadcasts_to(values._data.shape, shape):  # (np.add.at broadcasts the values)
        raise _values_do_not_fit(values, shape, op)
    return _inplace.index_put_accumulate(input, values, key=key)


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _values_do_not_fit(values: Tensor, shape: tuple, op: str) -> RuntimeError:
    return RuntimeError(
        f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
        f"indexing result of shape {list(shape)} ({op})"
    )


@public(inplace=True)
@loops_over_examples("put", ("index",))
@guarding_indices("index")
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``source`` written at the flat (row-major) positions ``index``
    (negative ones count from the end), or added there with ``accumulate``."""
    op = "put_()"
    _tensor(input, op, "input")
    _tensor(index, op, "index")
    _tensor(source, op, "source")
    if index._data.dtype != np.int64:
        raise RuntimeError(
            f"{op}: Expected a long tensor for index, but got {index.dtype}; use .long()"
        )
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{op}: self and source expected to have the same dtype, but got self.dtype = "
            f"{input.dtype} and source.dtype = {source.dtype}"
        )
    if source._data.size != index._data.size:
        raise IndexError(
            f"{op}: Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source._data.size}, index.numel() = {index._data.size}"
        )
    n = input._data.size
    idx = index._data
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(
            f"{op}: out of range: tried to access index {int(bad[0])} on a tensor of {n} elements."
        )
    # a copy: the backward reads the indices as they were
    return _put(input, source, index=idx.copy(), accumulate=bool(accumulate))


@public(inplace=True)
@guarding_indices("mask")
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` (broadcast with ``mask``) with the first elements of ``source``, in
    row-major order, where the bool ``mask`` is True."""
    op = "masked_scatter"
    _tensor(input, op, "input")
    _tensor(mask, op, "mask")
    _tensor(source, op, "source")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}"
        )
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{op}: expected self and source to have same dtypes but got {input.dtype} and "
            f"{source.dtype}; convert source with .to(self.dtype)"
        )
    try:
        shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    except ValueError:
        raise RuntimeError(
            f"{op}: mask of shape {list(mask.shape)} cannot be broadcast with the input of "
            f"shape {list(input.shape)}"
        ) from None
    where = np.broadcast_to(mask._data, shape).reshape(-1)
    count = int(where.sum())
    if source._data.size < count:
        raise RuntimeError(
            f"{op}: Number of elements of source < number of ones in mask ({source._data.size} "
            f"< {count}); give source at least as many elements as mask has True values"
        )
    # a copy: the backward reads the mask as it was
    return masked_scatter_values(input, source, mask=mask._data.copy())


__all__ = exports(globals())
