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

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64

_ALL = (float16, float32, float64, int8, uint8, int16, int32, int64, bool)
_FROM_NP = {d.np: d for d in _ALL}
_default = [float32]


def from_numpy_dtype(np_dtype) -> dtype:
    """The leafgrad dtype of a NumPy dtype; TypeError for kinds leafgrad lacks."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"leafgrad has no dtype for NumPy dtype {np.dtype(np_dtype)}; "
            "supported: float16/32/64, int8/16/32/64, uint8, bool"
        ) from None


def as_dtype(d) -> dtype:
    """A ``dtype=`` argument as a leafgrad dtype: a dtype or Python ``float``/``int``/``bool``.

    Like PyTorch, NumPy dtypes and strings are refused with a TypeError.
    """
    if isinstance(d, dtype):
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
    _default[0] = d


def _scalar_category(value) -> int:
    # NumPy integers count as ints; NumPy bools, like NumPy floats, reach PyTorch as floats.
    if isinstance(value, builtins.bool):
        return _BOOL
    if isinstance(value, (builtins.int, np.integer)):
        return _INT
    return _FLOAT


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
    if a._category != b._category:
        return a if a._category > b._category else b
    # Within one category NumPy agrees with PyTorch (uint8 + int8 -> int16, f16 + f32 -> f32).
    return _FROM_NP[np.promote_types(a.np, b.np)]


def promote_types(a, b) -> dtype:
    """The dtype PyTorch computes ``a`` with ``b`` in (torch.promote_types)."""
    return _promote(as_dtype(a), as_dtype(b))
