"""PyTorch's legacy typed constructors: ``FloatTensor(2, 3)``, ``LongTensor([1, 2])`` ...

As in PyTorch they are not Tensor subclasses: calling one makes a plain Tensor of its dtype
(sizes give a tensor of that shape, a sequence its values, nothing an empty 1-D tensor), and
``isinstance(t, FloatTensor)`` asks whether ``t`` is a float32 CPU tensor. The ``torch.cuda``
ones exist, never match, and fail to construct as on a CPU-only build. Types whose dtype
leafgrad lacks (bfloat16, complex) raise a TypeError saying so.
"""

from __future__ import annotations

from . import _dtype
from ._tensor import Tensor, _wrap
from ._warn import warn_once

__all__ = [
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor", "BFloat16Tensor", "set_default_tensor_type",
]  # fmt: skip


class TensorType(type):
    """The metaclass of the typed constructors (PyTorch's ``tensortype``)."""

    def __instancecheck__(cls, obj) -> bool:
        return (
            not cls.is_cuda
            and cls.dtype is not None
            and isinstance(obj, Tensor)
            and obj._data.dtype == cls.dtype.np
        )

    def __call__(cls, *args, size=None, device=None):
        if cls.is_cuda:
            raise TypeError(
                f"type {cls.__module__}.{cls.__name__} not available. Torch not compiled with "
                "CUDA enabled (leafgrad runs on the CPU only)"
            )
        if cls.dtype is None:
            raise TypeError(
                f"{cls.__module__}.{cls.__name__}: leafgrad has no {cls._missing} dtype; "
                "supported: float16/32/64, int8/16/32/64, uint8, bool"
            )
        if len(args) == 1 and isinstance(args[0], Tensor):
            source = args[0]
            if source._data.dtype != cls.dtype.np:
                raise TypeError(
                    f"{cls.__name__}(): expected a tensor of dtype {cls.dtype}, got {source.dtype}"
                    f"; convert it first with .to({cls.dtype})"
                )
            return Tensor(source)  # the same memory, as in PyTorch
        return _wrap(Tensor._legacy_data(args, device, cls.dtype, size))


def _tensor_type(name: str, dtype, *, module: str = "torch", is_cuda: bool = False):
    cls = TensorType(name, (), {"dtype": dtype, "is_cuda": is_cuda, "is_sparse": False})
    cls.__module__ = module
    return cls


FloatTensor = _tensor_type("FloatTensor", _dtype.float32)
DoubleTensor = _tensor_type("DoubleTensor", _dtype.float64)
HalfTensor = _tensor_type("HalfTensor", _dtype.float16)
LongTensor = _tensor_type("LongTensor", _dtype.int64)
IntTensor = _tensor_type("IntTensor", _dtype.int32)
ShortTensor = _tensor_type("ShortTensor", _dtype.int16)
CharTensor = _tensor_type("CharTensor", _dtype.int8)
ByteTensor = _tensor_type("ByteTensor", _dtype.uint8)
BoolTensor = _tensor_type("BoolTensor", _dtype.bool)
BFloat16Tensor = _tensor_type("BFloat16Tensor", None)
BFloat16Tensor._missing = "bfloat16"

_CPU_TYPES = {name: globals()[name] for name in __all__ if name.endswith("Tensor")}

# torch.cuda's twins: the same names, on a device this build does not have.
CUDA_TYPES = {
    name: _tensor_type(name, cls.dtype, module="torch.cuda", is_cuda=True)
    for name, cls in _CPU_TYPES.items()
}


def by_name(name: str):
    """The typed constructor a ``Tensor.type("torch.FloatTensor")`` string names, or None."""
    module, _, short = name.rpartition(".")
    if module == "torch":
        return _CPU_TYPES.get(short)
    if module == "torch.cuda":
        return CUDA_TYPES.get(short)
    return None


def set_default_tensor_type(t) -> None:
    """PyTorch's legacy ``set_default_tensor_type(torch.DoubleTensor)`` (or its name): sets the
    default dtype; floating CPU types only (TypeError otherwise). Deprecated since PyTorch
    2.1, so it warns, once per process as PyTorch does."""
    warn_once(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives."
    )
    kind = by_name(t) if isinstance(t, str) else t
    if not isinstance(kind, TensorType):
        raise TypeError(
            f"invalid type object {t!r}: only floating-point types (torch.FloatTensor, "
            "torch.DoubleTensor ...) are supported as the default type"
        )
    if kind.is_cuda or kind.dtype is None:
        kind()  # raises: no CUDA, or a dtype leafgrad lacks
    if not kind.dtype.is_floating_point:
        raise TypeError(
            f"only floating-point types are supported as the default type, got "
            f"{kind.__module__}.{kind.__name__}"
        )
    _dtype.set_default_dtype(kind.dtype)
