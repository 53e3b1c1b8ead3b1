"""Copies of views (``view_copy``, ``permute_copy``, ``split_copy`` ...: the view's values in
new memory), ``split_with_sizes``, and the unsafe splits, whose pieces share the input's
memory without being views to autograd (so they may be modified in place; the input's
version counter does not see it, as in PyTorch)."""

from __future__ import annotations

import functools
import operator

import numpy as np

from .._engine.forward import jet_state as _jet_state
from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap
from ._optable import Linear
from ._out import accepts_out
from ._primitive import primitive, with_outputs
from .joining import _split_forward, _split_grads, chunk_plan, split, split_plan
from .slicing import narrow
from .trace_diag import diagonal_copy as _diagonal_copy


def _unsafe_primitive(name: str, overload: str, node_name: str):
    return primitive(
        name,
        _split_forward,
        vjp_all=_split_grads,
        kind=Linear(),
        overload=overload,
        node_name=node_name,
        dtype_rule="keep",
        num_outputs=2,
        plain_rules=True,
    )


_UNSAFE = {
    "UnsafeSplitBackward0": _unsafe_primitive("unsafe_split", "Tensor", "UnsafeSplitBackward0"),
    "UnsafeSplitWithSizesBackward0": _unsafe_primitive(
        "unsafe_split_with_sizes", "", "UnsafeSplitWithSizesBackward0"
    ),
}


@functools.cache
def _unsafe_op(n: int, node_name: str):
    return with_outputs(_UNSAFE[node_name], n)


def _unsafe_pieces(input: Tensor, sizes: list, dim: int, node_name: str) -> tuple:
    """The pieces of ``sizes`` along ``dim``, cut by the unsafe (non-view) op."""
    if _jet_state.mode is not None:  # Taylor mode: single-output ops only, as in split
        offsets = np.cumsum((0, *sizes[:-1])).tolist()
        return tuple(narrow(input, dim, o, n) for o, n in zip(offsets, sizes))
    out = _unsafe_op(len(sizes), node_name)(input, dim=dim, sizes=tuple(sizes))
    return out if isinstance(out, tuple) else (out,)


def _dim(input: Tensor, dim, op: str) -> int:
    return _normalize_dim(operator.index(dim), input._data.ndim, op)


@public()
def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Views of ``input`` along ``dim`` of the listed sizes (adding up to the dim's size)."""
    return split(input, list(split_sizes), dim)


@public()
def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    """``split`` into pieces of ``split_size`` whose in-place changes autograd allows."""
    d, sizes, _ = split_plan(input, operator.index(split_size), dim, "unsafe_split")
    return _unsafe_pieces(input, sizes, d, "UnsafeSplitBackward0")


@public()
def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split_with_sizes`` whose pieces autograd lets change in place."""
    d, sizes, _ = split_plan(input, list(split_sizes), dim, "unsafe_split_with_sizes")
    return _unsafe_pieces(input, sizes, d, "UnsafeSplitWithSizesBackward0")


@public()
def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` whose pieces autograd lets change in place."""
    d, sizes, _ = chunk_plan(input, chunks, dim, "unsafe_chunk")
    return _unsafe_pieces(input, sizes, d, "UnsafeSplitBackward0")


# ----- copies of views -----


def _copy(view: Tensor) -> Tensor:
    return view.clone()


@public(method=False)
@accepts_out(same_dtype=True)
def view_copy(input: Tensor, size) -> Tensor:
    """``input.view(size)`` in new memory."""
    return _copy(input.view(size))


@public(method=False)
@accepts_out(same_dtype=True)
def permute_copy(input: Tensor, dims) -> Tensor:
    return _copy(input.permute(dims))


@public(method=False)
@accepts_out(same_dtype=True)
def t_copy(input: Tensor) -> Tensor:
    return _copy(input.t())


@public(method=False)
@accepts_out(same_dtype=True)
def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _copy(input.transpose(dim0, dim1))


@public(method=False)
@accepts_out(same_dtype=True)
def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    offset, dim1, dim2 = operator.index(offset), operator.index(dim1), operator.index(dim2)
    if _dim(input, dim1, "diagonal_copy") == _dim(input, dim2, "diagonal_copy"):
        raise RuntimeError(f"diagonal_copy: dim1 and dim2 must differ, both are {dim1}")
    return _diagonal_copy(input, offset=offset, dim1=dim1, dim2=dim2)  # DiagonalBackward0_copy


@public(method=False)
@accepts_out(same_dtype=True)
def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    return _copy(input.expand(size))


@public(method=False)
@accepts_out(same_dtype=True)
def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    return _copy(input.select(dim, index))


@public(method=False)
@accepts_out(same_dtype=True)
def slice_copy(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    """``input`` sliced ``start:end:step`` along ``dim``, in new memory."""
    d = _dim(input, dim, "slice_copy")
    step = operator.index(step)
    if step <= 0:
        raise RuntimeError(f"slice_copy: slice step must be positive, got {step}")
    key = (slice(None),) * d + (slice(start, end, step),)
    return _copy(input[key])


@public(method=False)
@accepts_out(same_dtype=True)
def squeeze_copy(input: Tensor, dim=None) -> Tensor:
    return _copy(input.squeeze(dim))


@public(method=False)
@accepts_out(same_dtype=True)
def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return _copy(input.unsqueeze(dim))


@public(method=False)
@accepts_out(same_dtype=True)
def alias_copy(input: Tensor) -> Tensor:
    return _copy(input)


@public(method=False)
@accepts_out(same_dtype=True)
def detach_copy(input: Tensor) -> Tensor:
    return _copy(input.detach())


@public(method=False)
@accepts_out(same_dtype=True)
def as_strided_copy(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    return _copy(input.as_strided(size, stride, storage_offset))


@public()
@accepts_out(same_dtype=True)
def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``input.narrow(dim, start, length)`` in new memory."""
    return _copy(narrow(input, dim, start, length))


@public(method=False)
@accepts_out(same_dtype=True)
def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of ``size`` along ``dimension``, ``step`` apart, as a new last dim."""
    d = _dim(input, dimension, "unfold_copy")
    size, step = operator.index(size), operator.index(step)
    length = input._data.shape[d] if input._data.ndim else 1
    if step <= 0:
        raise RuntimeError(f"unfold_copy: step is {step} but must be > 0")
    if size < 0 or size > length:
        raise RuntimeError(
            f"unfold_copy: maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    x = input.reshape(1) if input._data.ndim == 0 else input
    count = (length - size) // step + 1
    index = (np.arange(count)[:, None] * step + np.arange(size)[None, :]).reshape(-1)
    taken = x.index_select(d, _wrap(index))
    shape = x._data.shape[:d] + (count, size) + x._data.shape[d + 1 :]
    out = taken.reshape(shape).movedim(d + 1, -1)
    return out.reshape(out._data.shape[1:]) if input._data.ndim == 0 else out


@public(method=False)
@accepts_out(same_dtype=True)
def unbind_copy(input: Tensor, dim: int = 0) -> tuple:
    return tuple(_copy(p) for p in input.unbind(dim))


@public(method=False)
@accepts_out(same_dtype=True)
def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    return tuple(_copy(p) for p in split(input, split_size, dim))


@public(method=False)
@accepts_out(same_dtype=True)
def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return tuple(_copy(p) for p in split(input, list(split_sizes), dim))


__all__ = exports(globals())
