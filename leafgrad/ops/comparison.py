"""Comparisons, logic and nonzero: results that never require grad (bools, indices)."""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._inputs import same_dtype
from ._optable import NonDifferentiable
from ._primitive import primitive


def _compare(name, fn):
    return primitive(
        name,
        fn,
        kind=NonDifferentiable(),
        broadcast=True,
        scalars="other",  # torch.eq(1.0, t) raises TypeError; t.eq(1.0) and 1.0 < t work
        expose=public(operators=(f"__{name}__",)),
    )


eq = _compare("eq", np.equal)
ne = _compare("ne", np.not_equal)
lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

isnan = primitive("isnan", np.isnan, kind=NonDifferentiable(), dtype_rule="keep", expose=public())
isinf = primitive("isinf", np.isinf, kind=NonDifferentiable(), dtype_rule="keep", expose=public())
isfinite = primitive(
    "isfinite", np.isfinite, kind=NonDifferentiable(), dtype_rule="keep", expose=public()
)
isposinf = primitive(
    "isposinf", np.isposinf, kind=NonDifferentiable(), dtype_rule="keep", expose=public()
)
isneginf = primitive(
    "isneginf", np.isneginf, kind=NonDifferentiable(), dtype_rule="keep", expose=public()
)


def _logical(name, fn):
    return primitive(
        name,
        fn,
        kind=NonDifferentiable(),
        dtype_rule="keep",
        broadcast=True,
        expose=public(),  # tensors only: torch.logical_and(t, True) raises TypeError
    )


logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)
logical_not = primitive(
    "logical_not", np.logical_not, kind=NonDifferentiable(), dtype_rule="keep", expose=public()
)


def _bitwise(name, fn, operator):
    def forward(x, y):
        if np.result_type(x, y).kind == "f":
            # PyTorch has no floating-point kernel for these: NotImplementedError.
            raise NotImplementedError(
                f"{name}: not defined for floating-point tensors; use logical ops on bool tensors"
            )
        return fn(x, y)

    return primitive(
        name,
        forward,
        kind=NonDifferentiable(),
        broadcast=True,
        scalars=True,
        expose=public(
            inplace=True,
            operators=(f"__{operator}__",),
            reflected=(f"__r{operator}__",),
            inplace_operators=(f"__i{operator}__",),
        ),
    )


bitwise_and = _bitwise("bitwise_and", np.bitwise_and, "and")
bitwise_or = _bitwise("bitwise_or", np.bitwise_or, "or")
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor, "xor")


def _invert_forward(x):
    if x.dtype.kind == "f":
        raise NotImplementedError(
            f"\"bitwise_not_cpu\" not implemented for '{x.dtype}': bitwise_not is only "
            "defined for integer and bool tensors; use logical_not for a truth value"
        )
    return np.invert(x)


bitwise_not = primitive(
    "bitwise_not",
    _invert_forward,
    kind=NonDifferentiable(),
    dtype_rule="keep",
    expose=public(inplace=True),
)


@public(function=False, method=("__invert__",))
def _invert(self: Tensor) -> Tensor:
    """``~self``: as ``bitwise_not``, but a TypeError for a float tensor, as in PyTorch."""
    if self._data.dtype.kind == "f":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors; "
            "use logical_not for a truth value"
        )
    return bitwise_not(self)


def _close_forward(x, y, *, rtol, atol, equal_nan):
    return np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


_isclose = primitive("isclose", _close_forward, kind=NonDifferentiable(), broadcast=True)


@public()
def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """Elementwise ``|input - other| <= atol + rtol * |other|``."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):  # PyTorch does not promote
        same_dtype(input, other, lambda a, b: f"isclose: {a} did not match {b}")
    return _isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


@public()
def allclose(
    input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether every element is close (see ``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


@public()
def equal(input, other) -> bool:
    """Same shape and same values."""
    return input._data.shape == other._data.shape and bool((input._data == other._data).all())


# ----- nonzero -----


@public()
def nonzero(input: Tensor, *, as_tuple: bool = False):
    """Indices of the non-zero entries: int64 of shape (n, ndim), or one 1-D tensor per dim."""
    data = input._data
    if as_tuple:
        return tuple(_wrap(i.astype(np.int64, copy=False)) for i in np.nonzero(np.atleast_1d(data)))
    if data.ndim == 0:
        return _wrap(np.zeros((1 if data.item() else 0, 0), dtype=np.int64))
    return _wrap(np.argwhere(data).astype(np.int64, copy=False))


@public()
def argwhere(input: Tensor) -> Tensor:
    """The indices of the non-zero entries, int64 of shape (n, ndim): ``nonzero(input)``."""
    return nonzero(input)


__all__ = exports(globals())
