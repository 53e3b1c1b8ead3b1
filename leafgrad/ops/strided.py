"""Ops on a tensor's memory layout: ``as_strided`` (a view of the storage with explicit
sizes and strides) and the in-place metadata changes ``transpose_``, ``t_``, ``resize_``,
``resize_as_``.

The storage of a tensor is the NumPy array that owns its memory (``Tensor.storage()``);
strides and offsets count elements, as in PyTorch.
"""

from __future__ import annotations

import operator

import numpy as np

from .._batched import BatchedTensor, batched
from .._engine.graph import OpNode
from .._exposure import exports, public
from .._storage import storage_array
from .._tensor import Tensor, _normalize_dim, _wrap
from ._optable import Linear
from ._primitive import _compose, primitive
from .indexing import _index_add
from .inplace import _check_target


class _Positions:
    """For each element of an ``as_strided`` result, the flat (row-major) index of the
    input's element at the same storage position, or -1 where the input has none there.

    Kept in an object (not an array) so releasing the graph keeps it: the backward needs
    only this geometry, as PyTorch's needs only sizes and strides."""

    __slots__ = ("index",)

    def __init__(self, index: np.ndarray) -> None:
        self.index = index


def _storage_positions(shape, strides, offset) -> np.ndarray:
    """Storage position (in elements) of each element of a layout, in row-major order."""
    positions = np.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        step = np.arange(n, dtype=np.int64) * s
        positions += step.reshape((n,) + (1,) * (len(shape) - d - 1))
    return positions.reshape(-1)


def _input_positions(x: Tensor, size, stride, storage_offset) -> _Positions:
    wanted = _storage_positions(size, stride, storage_offset)
    have = _storage_positions(x._data.shape, x.stride(), x.storage_offset())
    lookup = np.full(max(int(wanted.max(initial=-1)), int(have.max(initial=-1))) + 1, -1)
    lookup[have[::-1]] = np.arange(have.size)[::-1]  # the first element at each position
    return _Positions(lookup[wanted] if wanted.size else wanted)


def _as_strided_forward(x, *, size, stride, storage_offset, positions):
    storage = storage_array(x)
    itemsize = x.itemsize
    flat = storage.reshape(-1, order="A") if storage.size else storage.reshape(-1)
    if not np.may_share_memory(flat, storage):
        raise RuntimeError("as_strided: internal error, the storage could not be viewed flat")
    flat = flat.view(x.dtype) if flat.dtype != x.dtype else flat
    needed = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if 0 not in size and needed > flat.size:
        raise RuntimeError(
            f"as_strided: sizes {list(size)}, strides {list(stride)} and storage offset "
            f"{storage_offset} need a storage of {needed} elements, but it has {flat.size}"
        )
    return np.lib.stride_tricks.as_strided(
        flat[storage_offset:], shape=size, strides=tuple(s * itemsize for s in stride)
    )


def _as_strided_grad(grad, x, result, *, size, stride, storage_offset, positions):

    index = positions.index
    flat = grad.reshape(-1)
    inside = index >= 0
    if not inside.all():  # storage the input does not cover gets no gradient
        flat = flat[_wrap(inside)]
        index = index[inside]
    numel = int(np.prod(x._data.shape))
    return _index_add(flat, shape=(numel,), dim=0, index=index).view(x._data.shape)


_as_strided = primitive(
    "as_strided",
    _as_strided_forward,
    _as_strided_grad,
    node_name="AsStridedBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
    metadata=("size", "stride"),
)


@public()
def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A view of ``input``'s storage with ``size``, ``stride`` (in elements) and
    ``storage_offset`` (default: ``input``'s). RuntimeError for negative strides or a layout
    reaching past the storage."""
    size = tuple(operator.index(n) for n in size)
    stride = tuple(operator.index(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"as_strided: got {len(size)} sizes but {len(stride)} strides; give one per dim"
        )
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: negative strides are not supported, got {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"as_strided: sizes must be non-negative, got {list(size)}")
    offset = input.storage_offset() if storage_offset is None else operator.index(storage_offset)
    if offset < 0:
        raise RuntimeError(f"as_strided: the storage offset must be >= 0, got {offset}")
    if type(input) is BatchedTensor:
        return _as_strided_batched(input, size, stride, offset)
    positions = _input_positions(input, size, stride, offset)
    return _as_strided(input, size=size, stride=stride, storage_offset=offset, positions=positions)


def _as_strided_batched(x, size, stride, offset) -> Tensor:
    """as_strided of every example under vmap: each example's layout moved by its offset in
    the batch value; as in PyTorch, only within the memory the example itself covers."""

    def reach(shape, strides, start):
        return start + sum((n - 1) * s for n, s in zip(shape, strides))

    if 0 not in size and 0 not in x.shape:
        lo, hi = x.storage_offset(), reach(x.shape, x.stride(), x.storage_offset())
        if offset < lo or reach(size, stride, offset) > hi:
            raise RuntimeError(
                f"vmap: as_strided(size={list(size)}, stride={list(stride)}, storage_offset="
                f"{offset}) reaches storage [{offset}, {reach(size, stride, offset)}] outside "
                f"the example's own [{lo}, {hi}], which under vmap would read another "
                "example; keep the view inside the example"
            )
    value = x._value
    out = as_strided(value, (value.shape[0],) + size, (value.stride(0),) + stride, offset)
    return batched(out, x._level)


# ----- in-place metadata changes -----


def _take_view_history(
    target: Tensor, view: Tensor, name: str, node_name=None, undo=None
) -> Tensor:
    """``target`` becomes ``view`` (same memory, new layout) with its history, in place;
    ``node_name`` renames the node as PyTorch names the in-place op's (``t_``: ``TBackward1``).
    ``undo`` maps the new layout back to the old (``t_``: ``t``): the views of a base that
    changes its layout then find their elements from the new one (None: as_strided_, whose
    views are left as they were)."""

    _check_target(target, name)
    if undo is not None and target._base is None:
        _keep_views_in_place(target, undo)
    target._data = view._data
    target._bump_version()
    if view.grad_fn is not None:
        node = view.grad_fn
        if node_name is not None:
            node.__class__ = OpNode.named(node_name)  # same slots: only the name differs
            node._name = node_name
        target.grad_fn = node
        target._output_nr = view._output_nr
    if target._base is not None and view._view_fn is not None:
        target._view_fn = view._view_fn
    return target


def _keep_views_in_place(base: Tensor, undo) -> None:
    """The live views of ``base``, whose layout is about to change, keep looking at the same
    elements: each view's function first undoes the change (PyTorch's views are geometry on
    the storage, which a base's new layout does not move)."""
    counter = base._version_counter
    if counter is None or len(counter) < 2:
        return
    for ref in counter[1]:
        view = ref()
        if view is not None and view._base is base and view._view_fn is not None:
            view._view_fn = _compose(undo, view._view_fn)


@public(function=False)
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dims ``dim0`` and ``dim1`` of this tensor in place (its layout, not its memory)."""
    ndim = self._data.ndim
    d0 = _normalize_dim(operator.index(dim0), ndim, "transpose_")
    d1 = _normalize_dim(operator.index(dim1), ndim, "transpose_")
    return _take_view_history(
        self, self.transpose(d0, d1), "transpose_", "TransposeBackward1",
        undo=lambda t: t.transpose(d0, d1),
    )  # fmt: skip


@public(function=False)
def t_(self: Tensor) -> Tensor:
    """``t()`` in place: a matrix is transposed, 0-D and 1-D tensors are left as they are."""
    return _take_view_history(self, self.t(), "t_", "TBackward1", undo=lambda t: t.t())


@public(function=False)
def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """Give this tensor shape ``sizes`` in place: the first elements are kept (in row-major
    order), new ones are uninitialised. RuntimeError for a tensor that requires grad."""
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = tuple(sizes[0])
    shape = tuple(operator.index(n) for n in sizes)
    if any(n < 0 for n in shape):
        raise RuntimeError(f"resize_: sizes must be non-negative, got {list(shape)}")
    if self._requires_grad:
        raise RuntimeError(
            "resize_: cannot resize a tensor that requires grad; resize a detach()ed copy, "
            "or make a new tensor of the wanted shape"
        )
    numel = int(np.prod(shape))
    flat = self._data.reshape(-1)
    if numel <= flat.size:
        self._data = flat[:numel].reshape(shape)
    else:
        data = np.empty(numel, dtype=self._data.dtype)
        data[: flat.size] = flat
        self._data = data.reshape(shape)
    self._bump_version()
    return self


@public(function=False)
def resize_as_(self: Tensor, the_template: Tensor, memory_format=None) -> Tensor:
    """``resize_`` to ``the_template``'s shape."""
    return resize_(self, tuple(the_template._data.shape))


__all__ = exports(globals())
