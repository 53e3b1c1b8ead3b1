"""Dtypes, the default dtype and PyTorch's type-promotion rules."""

from __future__ import annotations

import builtins

import numpy as np

__all__ = [
    "dtype",
    "float32",
    "float64",
    "float16",
    "int32",
    "int64",
    "int16",
    "int8",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "get_default_dtype",
    "set_default_dtype",
]

# Category ranks used by promotion: bool < integer < floating.
_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:
    """A tensor element type; prints as PyTorch does (``torch.float32``)."""

    __slots__ = ("_category", "itemsize", "name", "np")

    def __init__(self, name: str, np_dtype) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        kind = self.np.kind
        self._category = _BOOL if kind == "b" else _FLOAT if kind == "f" else _INT

    @property
    def is_floating_point(self) -> bool:
        return self._category == _FLOAT

    @property
    def is_complex(self) -> bool:
        return False

    @property
    def is_signed(self) -> bool:
        return self.np.kind in "fi"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name


float16 = dtype("float16", np.float16)
float32 = dtype("float32", np.float32)
float64 = dtype("float64", np.float64)
int8 = dtype("int8", np.int8)
uint8 = dtype("uint8", np.uint8)
int16 = dtype("int16", np.int16)
int32 = dtype("int32", np.int32)
int64 = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)
# PyTorch's "barebones" unsigned types: storage, conversion and a few kernels; they promote
# with no other integer type (see _promote).
uint16 = dtype("uint16", np.uint16)
uint32 = dtype("uint32", np.uint32)
uint64 = dtype("uint64", np.uint64)

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64

_ALL = (float16, float32, float64, int8, uint8, int16, int32, int64, bool, uint16, uint32, uint64)
_FROM_NP = {d.np: d for d in _ALL}
_BAREBONES = (uint16, uint32, uint64)
_default = [float32]


class _AbsentDtype(dtype):
    """Refused on purpose: a PyTorch dtype NumPy cannot hold (bfloat16, complex, float8). It
    exists, so code can name and compare it; ``as_dtype`` refuses it wherever a tensor would
    be made."""

    __slots__ = ("_complex", "_signed")

    def __init__(self, name: str, itemsize: int, *, complex_: bool = False, signed=True) -> None:
        self.name, self.np, self.itemsize = name, None, itemsize
        self._category = _INT if complex_ else _FLOAT  # a complex dtype is not floating point
        self._complex, self._signed = complex_, signed

    @property
    def is_complex(self) -> bool:
        return self._complex

    @property
    def is_signed(self) -> bool:
        return self._signed


bfloat16 = _AbsentDtype("bfloat16", 2)
complex32 = _AbsentDtype("complex32", 4, complex_=True)
complex64 = _AbsentDtype("complex64", 8, complex_=True)
complex128 = _AbsentDtype("complex128", 16, complex_=True)
chalf, cfloat, cdouble = complex32, complex64, complex128
float8_e4m3fn = _AbsentDtype("float8_e4m3fn", 1)
float8_e4m3fnuz = _AbsentDtype("float8_e4m3fnuz", 1)
float8_e5m2 = _AbsentDtype("float8_e5m2", 1)
float8_e5m2fnuz = _AbsentDtype("float8_e5m2fnuz", 1)
float8_e8m0fnu = _AbsentDtype("float8_e8m0fnu", 1, signed=False)
float4_e2m1fn_x2 = _AbsentDtype("float4_e2m1fn_x2", 1)
ABSENT = (bfloat16, complex32, complex64, complex128, float8_e4m3fn, float8_e4m3fnuz,
          float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn_x2)  # fmt: skip


def _refuse_absent(d: dtype) -> None:
    why = (
        "its ops and derivatives are real-only (keep real and imaginary parts apart)"
        if d.is_complex
        else f"NumPy, which holds its values, has no {d.name} type"
    )
    raise TypeError(
        f"leafgrad has no {d} tensors: {why}; use torch.float32 or torch.float64 instead"
    )


# PyTorch's names of its dtypes inside its C++ messages: the ScalarType ("Float") and the
# C++ type ("float"), by NumPy dtype name.
_SCALAR_TYPE_NAMES = {
    "float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
    "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool",
    "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
}  # fmt: skip
_C_TYPE_NAMES = {
    "float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
    "uint8": "unsigned char", "int16": "short int", "int32": "int", "int64": "long int",
    "bool": "bool",
}  # fmt: skip


def scalar_type_name(np_dtype) -> str:
    """PyTorch's ScalarType name of a NumPy dtype, as its messages spell it (``Float``)."""
    name = np.dtype(np_dtype).name
    return _SCALAR_TYPE_NAMES.get(name, name)


def legacy_type_name(np_dtype) -> str:
    """A tensor's legacy type, as ``t.type()`` and PyTorch's messages name it
    (``torch.FloatTensor``)."""
    return f"torch.{scalar_type_name(np_dtype)}Tensor"


def c_type_name(np_dtype) -> str:
    """The C++ type name PyTorch's messages give a NumPy dtype (``float``, ``long int``)."""
    name = np.dtype(np_dtype).name
    return _C_TYPE_NAMES.get(name, name)


def from_numpy_dtype(np_dtype) -> dtype:
    """The leafgrad dtype of a NumPy dtype; TypeError for kinds leafgrad lacks."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"leafgrad has no dtype for NumPy dtype {np.dtype(np_dtype)}; "
            "supported: float16/32/64, int8/16/32/64, uint8/16/32/64, bool"
        ) from None


def as_dtype(d) -> dtype:
    """A ``dtype=`` argument as a leafgrad dtype: a dtype or Python ``float``/``int``/``bool``.

    Like PyTorch, NumPy dtypes and strings are refused with a TypeError.
    """
    if isinstance(d, dtype):
        if d.np is None:
            _refuse_absent(d)
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    raise TypeError(
        f"dtype must be a leafgrad dtype such as torch.float32 (or Python float, int, bool), "
        f"not {type(d).__name__} {d!r}"
    )


def get_default_dtype() -> dtype:
    """The dtype Python floats become: float32 unless set otherwise."""
    return _default[0]


def set_default_dtype(d) -> None:
    """Set the dtype Python floats become; only floating dtypes are allowed (TypeError)."""
    if not isinstance(d, dtype):
        raise TypeError(
            f"set_default_dtype: expected a leafgrad dtype such as torch.float64, got {d!r}"
        )
    if not d.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating-point dtypes are allowed, got {d}")
    if d.np is None:
        _refuse_absent(d)
    _default[0] = d


def _scalar_category(value) -> int:
    # NumPy integers count as ints; NumPy bools, like NumPy floats, reach PyTorch as floats.
    if isinstance(value, builtins.bool):
        return _BOOL
    if isinstance(value, (builtins.int, np.integer)):
        return _INT
    return _FLOAT


def casts_to(src: np.dtype, dst: np.dtype) -> bool:
    """PyTorch's can_cast for a result written into a tensor (in place, out=): never float
    to integer or bool, nor an integer to bool; signed and unsigned integers cast both ways
    (NumPy's same_kind refuses int16 to uint8, PyTorch wraps)."""
    if src.kind in "fc":
        return dst.kind == "c" or (dst.kind == "f" and src.kind == "f")
    return dst.kind != "b" or src.kind == "b"


def keeps_floating_dtype(tensor, *numbers) -> bool:
    """Whether ``tensor`` is floating and ``numbers`` are Python floats and ints (Nones
    skipped): ``result_type``'s common case (``1 - x``, ``clamp(x, 0, 1)``), where it
    returns the tensor's own dtype, answered without its work."""
    if tensor._data.dtype.kind != "f":
        return False
    for n in numbers:
        if n is not None and type(n) is not builtins.float and type(n) is not builtins.int:
            return False
    return True


def result_type(*operands) -> dtype:
    """PyTorch's promotion of Tensors and Python scalars.

    Dimensioned tensors decide first; zero-dim tensors and then Python scalars only
    count when they belong to a higher category (bool < int < float).
    """
    dim_t = zero_t = None
    scalar_cat = -1
    for x in operands:
        data = getattr(x, "_data", None)
        if data is None:
            scalar_cat = max(scalar_cat, _scalar_category(x))
            continue
        d = _FROM_NP[data.dtype]
        if data.ndim:
            dim_t = d if dim_t is None else _promote(dim_t, d)
        else:
            zero_t = d if zero_t is None else _promote(zero_t, d)
    result = dim_t
    if zero_t is not None and (result is None or zero_t._category > result._category):
        result = zero_t
    if scalar_cat >= 0:
        if result is None:
            result = (bool, int64, _default[0])[scalar_cat]
        elif scalar_cat > result._category:
            result = int64 if scalar_cat == _INT else _default[0]
    return result


def _promote(a: dtype, b: dtype) -> dtype:
    """PyTorch's promotion table: a float absorbs any int or bool (float32 + int64 is float32)."""
    if a is b:
        return a
    if a._category != b._category and _FLOAT in (a._category, b._category):
        return a if a._category > b._category else b
    if a in _BAREBONES or b in _BAREBONES:
        raise RuntimeError(
            f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{a} and {b}; convert one of them first (e.g. .to(torch.int64))"
        )
    if a._category != b._category:
        return a if a._category > b._category else b
    # Within one category NumPy agrees with PyTorch (uint8 + int8 -> int16, f16 + f32 -> f32).
    return _FROM_NP[np.promote_types(a.np, b.np)]


def promote_types(a, b) -> dtype:
    """The dtype PyTorch computes ``a`` with ``b`` in (torch.promote_types)."""
    return _promote(as_dtype(a), as_dtype(b))
