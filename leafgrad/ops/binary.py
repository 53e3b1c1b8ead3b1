"""Elementwise functions of two tensors beyond arithmetic: logaddexp2, copysign, nextafter,
heaviside, gcd, lcm, and signbit.

copysign and nextafter are piecewise linear in their first input and constant in the
second (PyTorch's gradients: ``±1`` or 0 at a zero, and 1); heaviside is recorded without a
derivative, as in PyTorch; gcd, lcm and signbit take no gradient.
"""

from __future__ import annotations

import math

import numpy as np

from .._dtype import result_type
from .._exposure import exports, public
from .._tensor import Tensor, _wrap, _zeros_like
from ._optable import NoDerivative, NonDifferentiable, PiecewiseLinear
from ._primitive import primitive
from .composites import exp2
from .piecewise import maximum, where

_LN2 = math.log(2.0)


def _tensor_pair(op: str, input, other) -> None:
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): {name} must be a Tensor, not {type(t).__name__}")


def _floating(op: str, *tensors) -> None:
    dt = result_type(*tensors)
    if not dt.is_floating_point:
        raise NotImplementedError(f"{op}: not implemented for {dt}; convert with .float() first")


# ----- logaddexp2 -----


@public()
def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2**input + 2**other)`` without overflow (floating tensors)."""
    _tensor_pair("logaddexp2", input, other)
    _floating("logaddexp2", input, other)
    # Equal inputs (infinities included) differ by exactly 0, not by inf - inf = nan.
    gap = where(input == other, 0.0, input - other)
    return maximum(input, other) + exp2(-gap.abs()).log1p() * (1.0 / _LN2)


# ----- copysign / nextafter: piecewise linear in the first input -----


def _copysign_ratio(x, sign_source):
    """``result / x`` as PyTorch's rule has it: ``±1``, and 0 where ``x`` is 0."""
    xd = x._data
    s = sign_source._data if isinstance(sign_source, Tensor) else np.asarray(sign_source)
    return _wrap(np.where(xd == 0, 0, np.copysign(1, s) * np.sign(xd)))


def _no_grad_rule(grad, *args, result, **params):
    return _zeros_like(grad)


_copysign_tensor = primitive(
    "copysign",
    np.copysign,
    (lambda grad, x, y, result: grad * _copysign_ratio(x, y).to(grad.dtype), _no_grad_rule),
    kind=PiecewiseLinear(),
    overload="Tensor",
    node_name="CopysignBackward0",
    dtype_rule="float",
    broadcast=True,
)
_copysign_scalar = primitive(
    "copysign",
    lambda x, *, other: np.copysign(x, np.asarray(other, x.dtype)),
    lambda grad, x, result, *, other: grad * _copysign_ratio(x, other).to(grad.dtype),
    kind=PiecewiseLinear(),
    overload="Scalar",
    node_name="CopysignBackward1",
    dtype_rule="float",
)


@public(inplace=True)
def copysign(input: Tensor, other) -> Tensor:
    """``input``'s magnitudes with ``other``'s signs (a tensor, broadcast, or a number);
    the result is floating."""
    if not isinstance(input, Tensor):
        raise TypeError(f"copysign(): input must be a Tensor, not {type(input).__name__}")
    if isinstance(other, Tensor):
        return _copysign_tensor(input, other)
    if isinstance(other, bool) or not isinstance(other, (int, float, np.number)):
        raise TypeError(
            f"copysign(): other must be a Tensor or a number, not {type(other).__name__}"
        )
    return _copysign_scalar(input, other=float(other))


_nextafter = primitive(
    "nextafter",
    np.nextafter,
    (lambda grad, x, y, result: grad, _no_grad_rule),
    kind=PiecewiseLinear(),
    node_name="NextafterBackward0",
    broadcast=True,
)


@public(inplace=True)
def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next floating-point value after ``input`` towards ``other`` (gradient 1 for
    ``input``, 0 for ``other``, as PyTorch)."""
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
def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step function: 0 below zero, 1 above, ``values`` (broadcast) at zero; NaN gives 0."""
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
def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor, elementwise (integers; never negative)."""
    _integers("gcd", input, other)
    return _gcd(input, other)


@public(inplace=True)
def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple, elementwise (integers; never negative unless it overflows)."""
    _integers("lcm", input, other)
    return _lcm(input, other)


def _signbit_forward(x):
    return np.zeros(x.shape, bool) if x.dtype.kind in "bu" else np.signbit(x)


_signbit = primitive("signbit", _signbit_forward, kind=NonDifferentiable(), dtype_rule="keep")


@public()
def signbit(input: Tensor) -> Tensor:
    """Whether each sign bit is set (True for -0.0 and negative NaN)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"signbit(): input must be a Tensor, not {type(input).__name__}")
    return _signbit(input)


__all__ = exports(globals())
