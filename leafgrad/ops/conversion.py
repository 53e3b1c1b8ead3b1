"""Copies and dtype conversions: to, clone, double/float/long/..., type_as."""

from __future__ import annotations

from .. import _dtype, _legacy
from .._exposure import exports, public
from .._memory_format import (
    contiguous_format,
    copy_in_format,
    empty_in_format,
    is_laid_out,
    preserve_format,
)
from .._tensor import Tensor
from .._tensor import check_device as _check_device
from .._tensor import device as _device
from ._optable import Linear
from ._plain import cast_like
from ._primitive import primitive


def _to_copy_forward(x, *, dtype, memory_format=None):
    if memory_format is None:
        if x.flags.c_contiguous:
            return x.astype(dtype.np)
        # PyTorch's preserve_format: the strides of a dense input, else row-major (NumPy's
        # order "K" would lay an expanded input out column-major).
        memory_format = preserve_format
    out = empty_in_format(x, memory_format, dtype.np, "to")
    out[...] = x
    return out


_to_copy = primitive(
    "to",
    _to_copy_forward,
    (lambda grad, x, result, **kw: cast_like(grad, x),),  # x: its dtype only
    node_name="ToCopyBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
)


clone_ = primitive(
    "clone",
    lambda x, *, memory_format=None: copy_in_format(x, memory_format, "clone"),
    (lambda grad, x, result, **kw: grad,),
    node_name="CloneBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
)


@public()
def clone(input: Tensor, *, memory_format=preserve_format) -> Tensor:
    """A copy of ``input`` that stays in the graph, laid out as ``memory_format`` says (by
    default with ``input``'s own strides when it is dense)."""
    return clone_(input, memory_format=memory_format)


@public(function=False)
def to(
    input: Tensor,
    *args,
    dtype=None,
    device=None,
    copy: bool = False,
    non_blocking: bool = False,
    memory_format=None,
) -> Tensor:
    """Convert dtype (``t.to(torch.float64)``, ``t.to(other)``, ``t.to("cpu", dtype)``) and,
    with ``memory_format``, layout (``input`` itself when nothing changes and not ``copy``)."""
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
        fmt = preserve_format if memory_format is None else memory_format
        if copy or (fmt is not preserve_format and not is_laid_out(input._data, fmt)):
            return clone_(input, memory_format=fmt)
        return input
    if memory_format is None:
        return _to_copy(input, dtype=_dtype.as_dtype(dtype))
    return _to_copy(input, dtype=_dtype.as_dtype(dtype), memory_format=memory_format)


def _caster(name, dt):
    def cast(self, memory_format=None):
        if self._data.dtype != dt.np:  # to's conversion (not self itself), at once
            return _to_copy(self, dtype=dt)
        return to(self, dt)

    return public(function=False, method=(name,))(cast)


@public(function=False)
def type_as(input: Tensor, other: Tensor) -> Tensor:
    return to(input, other.dtype)


@public(function=False)
def contiguous(input: Tensor, *, memory_format=contiguous_format) -> Tensor:
    """``input`` itself when its memory is laid out as ``memory_format`` says (row-major by
    default), else such a copy (in the graph, as ``clone``)."""
    if is_laid_out(input._data, memory_format):
        return input
    if memory_format is preserve_format:
        raise RuntimeError(
            "preserve memory format is unsupported by the contiguous operator; pass "
            "torch.contiguous_format or torch.channels_last"
        )
    return clone_(input, memory_format=memory_format)


@public(function=False)
def cpu(input: Tensor, *, memory_format=preserve_format) -> Tensor:
    """``input`` itself: it is on the CPU already (PyTorch ignores ``memory_format`` here)."""
    return input


@public(function=False)
def cuda(input: Tensor, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
    """Fails as on a CPU-only build of PyTorch: there is no CUDA device."""
    _check_device("cuda" if device is None else device)
    return input


@public(function=False, method=("type",))
def _type(input: Tensor, dtype=None, non_blocking=False):
    """``t.type()``: the type's name (``"torch.FloatTensor"``); ``t.type(d)``: ``t`` converted
    to ``d``, a dtype, a typed constructor (``torch.DoubleTensor``) or its name."""
    if dtype is None:
        return _dtype.legacy_type_name(input._data.dtype)
    if isinstance(dtype, str):
        named = _legacy.by_name(dtype)
        if named is None:
            raise ValueError(f"invalid type: {dtype!r}")
        dtype = named
    if isinstance(dtype, _legacy.TensorType):
        if dtype.is_cuda:
            raise RuntimeError(
                f"type(): cannot convert to {dtype.__module__}.{dtype.__name__}: this build has "
                "no CUDA (leafgrad runs on the CPU only)"
            )
        if dtype.dtype is None:
            dtype()  # raises: leafgrad has no such dtype
        dtype = dtype.dtype
    return to(input, _dtype.as_dtype(dtype))


_CASTS = {
    "double": _dtype.float64, "float": _dtype.float32, "half": _dtype.float16,
    "long": _dtype.int64, "int": _dtype.int32, "short": _dtype.int16, "bool": _dtype.bool,
    "byte": _dtype.uint8, "char": _dtype.int8,
}  # fmt: skip
_CASTERS = [_caster(name, dt) for name, dt in _CASTS.items()]  # Tensor.double() ...

__all__ = exports(globals())
