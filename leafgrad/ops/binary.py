"""Elementwise functions of two tensors beyond arithmetic: logaddexp, logaddexp2, copysign,
nextafter, heaviside, gcd, lcm, and signbit.

copysign and nextafter are piecewise linear in their first input and constant in the
second (PyTorch's gradients: ``±1`` or 0 at a zero, and 1); heaviside is recorded without a
derivative, as in PyTorch; gcd, lcm and signbit take no gradient.
"""

from __future__ import annotations

import numpy as np

from .._dtype import result_type
from .._exposure import exports, public
from .._tensor import Tensor
from ._optable import Generic, NoDerivative, NonDifferentiable, PiecewiseLinear
from ._out import accepts_out, with_out
from ._plain import operand, values_of
from ._primitive import primitive
from ._tangents import tangent_sum
from .arithmetic import add_scalar
from .composites import exp2
from .elementwise import exp
from .indexing import _masked_fill_scalar


def _tensor_pair(op: str, input, other) -> None:
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): {name} must be a Tensor, not {type(t).__name__}")


def _floating(op: str, *tensors) -> None:
    dt = result_type(*tensors)
    if not dt.is_floating_point:
        raise NotImplementedError(f"{op}: not implemented for {dt}; convert with .float() first")


# ----- logaddexp2 -----


def _logaddexp2_jvp(tx, ty, x, y, result):
    return tangent_sum(
        None if tx is None else tx / (1 + exp2(y - x)),
        None if ty is None else ty / (1 + exp2(x - y)),
    )


_logaddexp2 = primitive(
    "logaddexp2",
    np.logaddexp2,
    (
        lambda grad, x, y, result: grad / (1 + exp2(y - x)),
        lambda grad, x, y, result: grad / (1 + exp2(x - y)),
    ),
    kind=Generic(jvp=_logaddexp2_jvp),
    saves=("self", "other"),
    node_name="Logaddexp2Backward0",
    broadcast=True,
    plain_rules=True,
)


@public()
def logaddexp2(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``log2(2**input + 2**other)`` without overflow (floating tensors); PyTorch's
    gradients ``1 / (1 + 2**(other - input))``."""
    if out is not None:
        return with_out("logaddexp2", lambda: logaddexp2(input, other), (input, other), out)
    _tensor_pair("logaddexp2", input, other)
    _floating("logaddexp2", input, other)
    return _logaddexp2(input, other)


# ----- logaddexp -----


def _logaddexp_forward(x, y):
    """PyTorch's CPU kernel: ``max + log1p(exp(-|x - y|))``, and ``x`` itself where both are
    the same infinity (where the formula's ``inf - inf`` would give NaN)."""
    top = np.maximum(x, y)
    out = top + np.log1p(np.exp(-np.abs(x - y)))
    same_infinity = (x == y) & (np.abs(x) == np.inf)
    return np.where(same_infinity, x, out) if same_infinity.any() else out


def _logaddexp_grad(grad, x, y):
    """PyTorch's ``grad / (1 + exp(other - self))``, its ``1 +`` add.Scalar (AddBackward1)."""
    return grad / add_scalar(exp(y - x), other=1)


def _logaddexp_jvp(tx, ty, x, y, result):
    return tangent_sum(
        None if tx is None else _logaddexp_grad(tx, x, y),
        None if ty is None else _logaddexp_grad(ty, y, x),
    )


_logaddexp = primitive(
    "logaddexp",
    _logaddexp_forward,
    (
        lambda grad, x, y, result: _logaddexp_grad(grad, x, y),
        lambda grad, x, y, result: _logaddexp_grad(grad, y, x),
    ),
    kind=Generic(jvp=_logaddexp_jvp),
    saves=("self", "other"),
    node_name="LogaddexpBackward0",
    broadcast=True,
    plain_rules=True,
)


@public()
@accepts_out
def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))`` without overflow, in the operands' promoted floating
    dtype (bool and integer operands are cast to it; two of them raise, as in PyTorch);
    PyTorch's gradients ``1 / (1 + exp(other - input))``."""
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            kind = type(t).__name__
            raise TypeError(f"logaddexp(): argument '{name}' must be Tensor, not {kind}")
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"logaddexp: not implemented for {dtype}; convert with .float() first"
        )
    return _logaddexp(input.to(dtype), other.to(dtype))  # (no-ops where the dtype is theirs)


# ----- copysign / nextafter: piecewise linear in the first input -----


def _copysign_grad(grad, x, result):
    """PyTorch's ``grad * (result / x)`` with 0 where ``x`` is 0, written as it is so the
    second derivative matches too (0, and NaN at a zero input: 0 / 0 in the quotient)."""
    return grad * _masked_fill_scalar(result / x, x == 0, fill=0)  # masked_fill past its checks


def _no_grad_rule(grad, *args, result, **params):
    # zeros outside any graph: a tensor, or an array in a plain rule
    return operand(np.zeros_like(values_of(grad)), grad)


_copysign_tensor = primitive(
    "copysign",
    np.copysign,
    (lambda grad, x, y, result: _copysign_grad(grad, x, result), _no_grad_rule),
    kind=PiecewiseLinear(),
    saves=("self", "result"),
    overload="Tensor",
    node_name="CopysignBackward0",
    dtype_rule="float",
    broadcast=True,
    plain_rules=True,
)
_copysign_scalar = primitive(
    "copysign",
    lambda x, *, other: np.copysign(x, np.asarray(other, x.dtype)),
    lambda grad, x, result, *, other: _copysign_grad(grad, x, result),
    kind=PiecewiseLinear(),
    saves=("self", "result"),
    overload="Scalar",
    node_name="CopysignBackward1",
    dtype_rule="float",
    plain_rules=True,
)


@public(inplace=True)
def copysign(input: Tensor, other, *, out=None) -> Tensor:
    """``input``'s magnitudes with ``other``'s signs (a tensor, broadcast, or a number);
    the result is floating."""
    if out is not None:
        return with_out("copysign", lambda: copysign(input, other), (input, other), out)
    if not isinstance(input, Tensor):
        raise TypeError(f"copysign(): input must be a Tensor, not {type(input).__name__}")
    if isinstance(other, Tensor):
        return _copysign_tensor(input, other)
    if not isinstance(other, (int, float, np.number, np.bool_)):  # bools: +1.0 and +0.0
        raise TypeError(
            f"copysign(): other must be a Tensor or a number, not {type(other).__name__}"
        )
    return _copysign_scalar(input, other=float(other))


_nextafter = primitive(
    "nextafter",
    np.nextafter,
    # PyTorch's: the gradient passes except where the two are equal (the result is then y)
    (lambda grad, x, y, result: _masked_fill_scalar(grad, x == y, fill=0), _no_grad_rule),
    kind=PiecewiseLinear(),
    saves=("self", "other"),
    node_name="NextafterBackward0",
    broadcast=True,
    plain_rules=True,
)


@public(inplace=True)
def nextafter(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The next floating-point value after ``input`` towards ``other`` (gradient 1 for
    ``input`` where the two differ, else 0; 0 for ``other``; as PyTorch)."""
    if out is not None:
        return with_out("nextafter", lambda: nextafter(input, other), (input, other), out)
    _tensor_pair("nextafter", input, other)
    _floating("nextafter", input, other)
    return _nextafter(input, other)


# ----- heaviside: no derivative -----


def _heaviside_forward(x, values):
    step = (x > 0).astype(x.dtype)
    return np.where(x == 0, values, step).astype(x.dtype)


_heaviside = primitive(
    "heaviside", _heaviside_forward, kind=NoDerivative(), dtype_rule="keep", broadcast=True
)


@public(inplace=True)
def heaviside(input: Tensor, values: Tensor, *, out=None) -> Tensor:
    """The step function: 0 below zero, 1 above, ``values`` (broadcast) at zero; NaN gives 0."""
    if out is not None:
        return with_out("heaviside", lambda: heaviside(input, values), (input, values), out)
    _tensor_pair("heaviside", input, values)
    if input._data.dtype != values._data.dtype:
        raise RuntimeError(
            f"heaviside: input ({input.dtype}) and values ({values.dtype}) must have the same "
            "dtype; convert one with .to(dtype)"
        )
    return _heaviside(input, values)


# ----- integers and sign bits: no gradient -----


def _lcm_forward(a, b):
    # PyTorch's |a / gcd * b|: wraps on overflow the way int64 arithmetic does.
    g = np.gcd(a, b)
    safe = np.where(g == 0, 1, g)
    return np.where(g == 0, 0, np.abs(a // safe * b)).astype(a.dtype)


_gcd = primitive("gcd", np.gcd, kind=NonDifferentiable(), broadcast=True)
_lcm = primitive("lcm", _lcm_forward, kind=NonDifferentiable(), broadcast=True)


def _integers(op: str, input, other) -> None:
    _tensor_pair(op, input, other)
    dt = result_type(input, other)
    if dt.is_floating_point or dt.np.kind == "b":
        raise NotImplementedError(f"{op}: defined for integer tensors only, got {dt}")


@public(inplace=True)
def gcd(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The greatest common divisor, elementwise (integers; never negative)."""
    if out is not None:
        return with_out("gcd", lambda: gcd(input, other), (input, other), out)
    _integers("gcd", input, other)
    return _gcd(input, other)


@public(inplace=True)
def lcm(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The least common multiple, elementwise (integers; never negative unless it overflows)."""
    if out is not None:
        return with_out("lcm", lambda: lcm(input, other), (input, other), out)
    _integers("lcm", input, other)
    return _lcm(input, other)


def _signbit_forward(x):
    return np.zeros(x.shape, bool) if x.dtype.kind in "bu" else np.signbit(x)


_signbit = primitive("signbit", _signbit_forward, kind=NonDifferentiable(), dtype_rule="keep")


@public()
def signbit(input: Tensor, *, out=None) -> Tensor:
    """Whether each sign bit is set (True for -0.0 and negative NaN)."""
    if out is not None:
        return with_out("signbit", lambda: signbit(input), (input,), out)
    if not isinstance(input, Tensor):
        raise TypeError(f"signbit(): input must be a Tensor, not {type(input).__name__}")
    return _signbit(input)


__all__ = exports(globals())
