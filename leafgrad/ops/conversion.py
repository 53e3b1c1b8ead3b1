"""Copies and dtype conversions: to, clone, double/float/long/..., type_as."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._exposure import exports, public
from .._tensor import Tensor
from .._tensor import check_device as _check_device
from .._tensor import device as _device
from ._optable import Linear
from ._primitive import primitive

_to_copy = primitive(
    "to",
    lambda x, *, dtype: x.astype(dtype.np),
    (lambda grad, x, result, *, dtype: grad.to(_dtype.from_numpy_dtype(x._data.dtype)),),
    node_name="ToCopyBackward0",
    dtype_rule="keep",
    kind=Linear(),
)


def _clone_forward(x, *, memory_format=None):
    # PyTorch's clone keeps the order of the strides (a transposed tensor stays transposed,
    # gaps closed), as NumPy's order "K"; memory_format "contiguous" and expanded tensors
    # (zero strides) copy row-major.
    if memory_format is None and not x.flags.c_contiguous and 0 not in x.strides:
        return x.copy(order="K")
    return x.copy()


clone_ = primitive(
    "clone",
    _clone_forward,
    (lambda grad, x, result, **kw: grad,),
    node_name="CloneBackward0",
    dtype_rule="keep",
    kind=Linear(),
)


@public()
def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy of ``input`` that stays in the graph."""
    return clone_(input)


@public(function=False)
def to(
    input: Tensor, *args, dtype=None, device=None, copy: bool = False, non_blocking: bool = False
) -> Tensor:
    """Convert dtype (``t.to(torch.float64)``, ``t.to(other)``, ``t.to("cpu", dtype)``)."""
    for a in args:
        if isinstance(a, _dtype.dtype) or a is float or a is int or a is bool:
            dtype = _dtype.as_dtype(a)
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, _device)) or (isinstance(a, int) and not isinstance(a, bool)):
            _check_device(a)
        else:
            raise TypeError(f"to(): unexpected argument {a!r}; pass a dtype, a device or a Tensor")
    if device is not None:
        _check_device(device)
    if dtype is None or _dtype.as_dtype(dtype).np == input._data.dtype:
        return clone_(input) if copy else input
    return _to_copy(input, dtype=_dtype.as_dtype(dtype))


def _caster(name, dt):
    def cast(self, memory_format=None):
        return to(self, dt)

    return public(function=False, method=(name,))(cast)


@public(function=False)
def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to(input, other.dtype)


@public(function=False)
def contiguous(input: Tensor, memory_format=None) -> Tensor:
    """``input`` itself when its memory is laid out row-major, else a row-major copy (in the
    graph, as ``clone``)."""
    return input if input._data.flags.c_contiguous else clone_(input, memory_format="contiguous")


@public(function=False)
def cpu(input: Tensor, memory_format=None) -> Tensor:
    return input


@public(function=False)
def cuda(input: Tensor, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
    """Fails as on a CPU-only build of PyTorch: there is no CUDA device."""
    _check_device("cuda" if device is None else device)
    return input


@public(function=False, method=("type",))
def _type(input: Tensor, dtype=None, non_blocking=False):
    if dtype is None:
        return f"torch.{_TYPE_NAMES[input._data.dtype]}"
    return to(input, _dtype.as_dtype(dtype))


_TYPE_NAMES = {
    np.dtype(np.float32): "FloatTensor", np.dtype(np.float64): "DoubleTensor",
    np.dtype(np.float16): "HalfTensor", np.dtype(np.int64): "LongTensor",
    np.dtype(np.int32): "IntTensor", np.dtype(np.int16): "ShortTensor",
    np.dtype(np.int8): "CharTensor", np.dtype(np.uint8): "ByteTensor",
    np.dtype(np.bool_): "BoolTensor",
}  # fmt: skip

_CASTS = {
    "double": _dtype.float64, "float": _dtype.float32, "half": _dtype.float16,
    "long": _dtype.int64, "int": _dtype.int32, "short": _dtype.int16, "bool": _dtype.bool,
    "byte": _dtype.uint8, "char": _dtype.int8,
}  # fmt: skip
_CASTERS = [_caster(name, dt) for name, dt in _CASTS.items()]  # Tensor.double() ...

__all__ = exports(globals())
