"""The values of a view embedded in a copy of its input: ``diagonal_scatter``,
``select_scatter``, ``slice_scatter`` and ``as_strided_scatter`` (``src`` where the view
looks, ``input`` elsewhere). Each writes ``src`` through the view of a clone, so gradients
reach ``input`` outside the view and ``src`` inside it, to every order."""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._out import accepts_out
from .index_writes import put


def _tensors(op: str, input, src) -> None:
    for what, t in (("input", input), ("src", src)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{what}' must be Tensor, not {type(t).__name__}")


def _same_size(src: Tensor, view_shape: tuple) -> None:
    if tuple(src._data.shape) != tuple(view_shape):
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src._data.shape)}, slice size = {list(view_shape)}; reshape src to the "
            "slice's size"
        )


def _embedded(input: Tensor, src: Tensor, view_fn) -> Tensor:
    out = input.clone()
    region = view_fn(out)
    _same_size(src, region._data.shape)
    region.copy_(src)
    return out


@public()
def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """``input`` with ``src`` on the diagonal that ``input.diagonal(offset, dim1, dim2)``
    reads."""
    _tensors("diagonal_scatter", input, src)
    return _embedded(input, src, lambda t: t.diagonal(offset, dim1, dim2))


@public()
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``src`` at ``input.select(dim, index)``."""
    _tensors("select_scatter", input, src)
    return _embedded(input, src, lambda t: t.select(dim, index))


@public()
@accepts_out(same_dtype=True)
def slice_scatter(
    input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1
) -> Tensor:
    """``input`` with ``src`` at the slice ``start:end:step`` along ``dim``."""
    _tensors("slice_scatter", input, src)
    if step <= 0:
        raise RuntimeError(f"slice_scatter: slice step must be positive, got {step}")
    nd = input._data.ndim
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < max(nd, 1):
        raise IndexError(
            f"slice_scatter: dimension {dim} is out of range for a tensor with {nd} dims"
        )
    key = (slice(None),) * d + (slice(start, end, step),)
    return _embedded(input, src, lambda t: t[key])


@public()
def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``input`` with ``src`` where ``input.as_strided(size, stride, storage_offset)`` looks
    (in ``input``'s own storage layout)."""
    _tensors("as_strided_scatter", input, src)
    size = tuple(int(n) for n in size)
    stride = tuple(int(s) for s in stride)
    _same_size(src, size)
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    # which storage place each element of input holds, and so which element each place is
    start, strides = input.storage_offset(), input.stride()
    grid = np.indices(input._data.shape).reshape(input._data.ndim, -1)
    places = start + (np.asarray(strides, np.int64)[:, None] * grid).sum(0)
    element = {int(p): i for i, p in enumerate(places.tolist())}
    view = np.indices(size).reshape(len(size), -1) if size else np.zeros((0, 1), np.int64)
    wanted = offset + (np.asarray(stride, np.int64)[:, None] * view).sum(0)
    missing = [int(p) for p in wanted.tolist() if int(p) not in element]
    if missing:
        raise RuntimeError(
            f"as_strided_scatter: size {list(size)}, stride {list(stride)} and storage offset "
            f"{offset} reach storage place {missing[0]}, which input (shape "
            f"{list(input.shape)}) does not hold"
        )
    index = _wrap(np.array([element[int(p)] for p in wanted.tolist()], np.int64))
    if src._data.dtype != input._data.dtype:
        src = src.to(input.dtype)
    return put(input, index, src.reshape(-1))


__all__ = exports(globals())
