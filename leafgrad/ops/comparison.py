"""Comparisons and logic: bool results that never require grad."""

from __future__ import annotations

import numpy as np

from ._optable import NonDifferentiable
from ._primitive import primitive


def _compare(name, fn):
    return primitive(name, fn, kind=NonDifferentiable(), broadcast=True, scalars=True)


eq = _compare("eq", np.equal)
ne = _compare("ne", np.not_equal)
lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

isnan = primitive("isnan", np.isnan, kind=NonDifferentiable(), dtype_rule="keep")
isinf = primitive("isinf", np.isinf, kind=NonDifferentiable(), dtype_rule="keep")
isfinite = primitive("isfinite", np.isfinite, kind=NonDifferentiable(), dtype_rule="keep")
isposinf = primitive("isposinf", np.isposinf, kind=NonDifferentiable(), dtype_rule="keep")
isneginf = primitive("isneginf", np.isneginf, kind=NonDifferentiable(), dtype_rule="keep")


def _logical(name, fn):
    return primitive(
        name, fn, kind=NonDifferentiable(), dtype_rule="keep", broadcast=True, scalars=True
    )


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)
logical_not = primitive("logical_not", np.logical_not, kind=NonDifferentiable(), dtype_rule="keep")


def _bitwise(name, fn):
    def forward(x, y):
        if np.result_type(x, y).kind == "f":
            # PyTorch has no floating-point kernel for these: NotImplementedError.
            raise NotImplementedError(
                f"{name}: not defined for floating-point tensors; use logical ops on bool tensors"
            )
        return fn(x, y)

    return primitive(name, forward, kind=NonDifferentiable(), broadcast=True, scalars=True)


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def _invert_forward(x):
    if x.dtype.kind == "f":
        raise TypeError(
            "bitwise_not (~): only defined for integer and bool tensors, not floating point"
        )
    return np.invert(x)


bitwise_not = primitive("bitwise_not", _invert_forward, kind=NonDifferentiable(), dtype_rule="keep")


def _close_forward(x, y, *, rtol, atol, equal_nan):
    return np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


_isclose = primitive("isclose", _close_forward, kind=NonDifferentiable(), broadcast=True)


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """Elementwise ``|input - other| <= atol + rtol * |other|``."""
    return _isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(
    input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether every element is close (see ``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other) -> bool:
    """Same shape and same values."""
    return input._data.shape == other._data.shape and bool((input._data == other._data).all())


__all__ = [
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_and",
    "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "isclose", "allclose", "equal",
]  # fmt: skip

METHODS = {name: globals()[name] for name in __all__}
METHODS.update({
    "__eq__": eq, "__ne__": ne, "__lt__": lt, "__le__": le, "__gt__": gt, "__ge__": ge,
    "__and__": bitwise_and, "__or__": bitwise_or, "__xor__": bitwise_xor,
    "__rand__": lambda s, o: bitwise_and(o, s), "__ror__": lambda s, o: bitwise_or(o, s),
    "__rxor__": lambda s, o: bitwise_xor(o, s), "__invert__": bitwise_not,
})  # fmt: skip
