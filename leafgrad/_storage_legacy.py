"""PyTorch's legacy storage constructors (``FloatStorage(3)``, ``LongStorage([1, 2])`` ...).

As in PyTorch, calling one makes a (deprecated) ``TypedStorage`` of its dtype, and
``isinstance(s, FloatStorage)`` asks whether ``s`` is a float32 typed storage. Those whose
dtype leafgrad lacks (bfloat16, complex, quantized) exist and refuse to construct.
"""

from __future__ import annotations

from . import _dtype
from ._storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]


class _LegacyStorageType(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, TypedStorage) and cls.dtype is not None and obj.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        if cls.dtype is None:
            raise TypeError(
                f"torch.{cls.__name__}: leafgrad has no {cls._missing} tensors (NumPy holds "
                "the values); use FloatStorage or DoubleStorage"
            )
        return TypedStorage(*args, dtype=cls.dtype, device=device)


_KINDS = [
    ("Float", "float32"), ("Double", "float64"), ("Half", "float16"), ("Long", "int64"),
    ("Int", "int32"), ("Short", "int16"), ("Char", "int8"), ("Byte", "uint8"),
    ("Bool", "bool"), ("BFloat16", None), ("ComplexFloat", None), ("ComplexDouble", None),
    ("QInt8", None), ("QUInt8", None), ("QInt32", None), ("QUInt4x2", None), ("QUInt2x4", None),
]  # fmt: skip

for _kind, _name in _KINDS:
    _cls = _LegacyStorageType(
        f"{_kind}Storage",
        (),
        {"dtype": getattr(_dtype, _name) if _name else None, "_missing": _kind.lower(),
         "__doc__": f"Makes a TypedStorage of {_name or _kind.lower()} elements.",
         "__module__": "torch"},
    )  # fmt: skip
    globals()[_cls.__name__] = _cls
    __all__.append(_cls.__name__)
