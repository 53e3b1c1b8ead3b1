"""Ops that choose how memory is seen: ``unfold`` (sliding windows as a view), ``ravel``,
the deprecated out-of-place ``resize``/``resize_as``, ``set_`` (take over other memory),
and ``empty_strided``/``new_empty_strided`` (a tensor with the strides asked for)."""

from __future__ import annotations

import operator

import numpy as np

from .. import _dtype
from .._exposure import exports, public
from .._factory import _finish, _size_tuple
from .._storage import TypedStorage, UntypedStorage
from .._tensor import Tensor, _normalize_dim
from .._warn import warn_at_user
from . import unfold as _unfold
from .inplace import _check_target
from .strided import resize_as_ as _resize_as_method


@public()
def ravel(input: Tensor) -> Tensor:
    """``input`` as 1-D, row-major: a view when the layout allows, else a copy."""
    return input.reshape(-1)


@public(function=False)
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Windows of ``size`` elements every ``step`` along ``dimension``: that dim becomes the
    window count and a last dim of length ``size`` is added. A view, recorded as PyTorch's
    (UnfoldBackward0); a 0-D tensor counts as one element."""
    size, step = operator.index(size), operator.index(step)
    ndim = self._data.ndim
    dim = _normalize_dim(operator.index(dimension), ndim, "unfold")
    length = self._data.shape[dim] if ndim else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {dim} is {length} but size is {size}; "
            "unfold takes windows no longer than the dim"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0 (the window length in unfold)")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0 (the distance between windows)")
    return _unfold.unfold(self, dimension=dim, size=size, step=step)


@public(function=False)
def resize(self: Tensor, *sizes) -> Tensor:
    """Deprecated out-of-place ``resize_``: ``self`` viewed with ``sizes`` (given as separate
    ints), which must hold as many elements (differentiable)."""
    warn_at_user("non-inplace resize is deprecated")
    if any(not isinstance(n, (int, np.integer)) for n in sizes):
        # PyTorch's resize takes the sizes unpacked only: a tuple never matches the count
        raise RuntimeError(
            f"requested resize to {sizes!r}, but the given tensor has a size of "
            f"{'x'.join(map(str, self._data.shape))} ({self._data.size} elements). autograd's "
            "resize can only change the shape of a given tensor, while preserving the number "
            "of elements; pass the sizes unpacked: t.resize(*shape)"
        )
    return _resized(self, tuple(operator.index(n) for n in sizes))


@public(function=False)
def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated out-of-place ``resize_as_``: ``self`` viewed with ``tensor``'s shape."""
    warn_at_user("non-inplace resize_as is deprecated")
    return _resized(self, tuple(tensor._data.shape))


def _resized(self: Tensor, shape: tuple) -> Tensor:
    numel = int(np.prod(shape))
    if numel != self._data.size:
        sizes = "x".join(map(str, shape))
        have = "x".join(map(str, self._data.shape))
        raise RuntimeError(
            f"requested resize to {sizes} ({numel} elements in total), but the given tensor "
            f"has a size of {have} ({self._data.size} elements). autograd's resize can only "
            "change the shape of a given tensor, while preserving the number of elements; "
            "use resize_() on a detached tensor to change the count"
        )
    return self.contiguous().view(shape)


@public(method=False)
def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """``input.resize_as_(the_template)``: ``input`` resized in place to the template's shape."""
    return _resize_as_method(input, the_template, memory_format)


@public(function=False)
def set_(self: Tensor, source=None, storage_offset: int = 0, size=None, stride=None) -> Tensor:
    """Make this tensor use other memory, in place: ``set_()`` empty, ``set_(tensor)``
    that tensor's memory and layout, ``set_(storage, offset, size, stride)`` a layout of a
    storage (``t.untyped_storage()``, ``t.storage()``). Writes through one show in the other."""
    _check_target(self, "set_")
    if source is None:
        data = np.zeros((0,), dtype=self._data.dtype)
    elif isinstance(source, Tensor):
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"set_: expected a tensor of dtype {self.dtype}, got {source.dtype}; convert "
                "one of them first"
            )
        data = source._data
        if size is not None:
            data = _layout_of(data.reshape(-1, order="A"), storage_offset, size, stride)
    elif isinstance(source, (UntypedStorage, TypedStorage)):
        flat = source._array.reshape(-1, order="A").view(np.uint8).view(self._data.dtype)
        if size is None:
            size = (flat.size - storage_offset,)
        data = _layout_of(flat, storage_offset, size, stride)
    else:
        raise TypeError(
            f"set_() takes nothing, a Tensor or a storage (then storage_offset, size, stride); "
            f"got {type(source).__name__}"
        )
    self._data = data
    self._bump_version()
    return self


def _layout_of(flat: np.ndarray, offset: int, size, stride) -> np.ndarray:
    """The view of the 1-D ``flat`` with ``size``, ``stride`` (row-major if None), ``offset``."""
    size = _size_tuple(size, "set_")
    stride = _row_major(size) if stride is None else tuple(operator.index(s) for s in stride)
    _check_layout(size, stride, "set_")
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if 0 not in size and needed > flat.size:
        raise RuntimeError(
            f"set_: sizes {list(size)}, strides {list(stride)} and offset {offset} need a "
            f"storage of {needed} elements, but it has {flat.size}"
        )
    itemsize = flat.itemsize
    return np.lib.stride_tricks.as_strided(
        flat[offset:], shape=size, strides=tuple(s * itemsize for s in stride)
    )


def _row_major(size: tuple) -> tuple:
    strides, step = [], 1
    for n in reversed(size):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _check_layout(size: tuple, stride: tuple, op: str) -> None:
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)}) in {op}; give one stride per dim"
        )
    if any(s < 0 for s in stride) or any(n < 0 for n in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}: {op} takes non-negative sizes and strides"
        )


def _strided(size, stride, dtype, op: str) -> np.ndarray:
    """Zeros (leafgrad's ``empty`` is zero-filled) laid out with ``stride`` in a storage
    just big enough."""
    size = _size_tuple(size, op)
    stride = tuple(operator.index(s) for s in stride)
    _check_layout(size, stride, op)
    needed = 0 if 0 in size else sum((n - 1) * s for n, s in zip(size, stride)) + 1
    buffer = np.zeros(needed, dtype=dtype.np)
    return np.lib.stride_tricks.as_strided(
        buffer, shape=size, strides=tuple(s * buffer.itemsize for s in stride)
    )


@public(method=False)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """A tensor of ``size`` whose strides are ``stride`` (zero-filled, like ``empty``)."""
    dt = _dtype.get_default_dtype() if dtype is None else _dtype.as_dtype(dtype)
    return _finish(_strided(size, stride, dt, "empty_strided"), requires_grad, device)


@public(function=False)
def new_empty_strided(self: Tensor, size, stride, dtype=None, layout=None, device=None,
                      requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``empty_strided`` with this tensor's dtype unless ``dtype`` is given."""
    dt = self.dtype if dtype is None else _dtype.as_dtype(dtype)
    data = _strided(size, stride, dt, "new_empty_strided")
    return _finish(data, requires_grad, device)


__all__ = exports(globals())
