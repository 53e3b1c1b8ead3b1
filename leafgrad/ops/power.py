"""Powers: ``x ** y`` with a Tensor or a Python number on either side, float_power, square.

A Python number is a parameter, not an operand, so the node has one edge (PyTorch's
PowBackward0 and PowBackward2); PyTorch's conventions at 0 (``d/dx x**0 = 0``,
``d/dy 0**y = 0`` for ``y >= 0``) hold in every rule.
"""

from __future__ import annotations

import numpy as np

from .._cpu import numpy_avx512
from .._dtype import float64
from .._exposure import exports, public
from .._tensor import Tensor, _zeros_like
from ._inputs import wrapped_int
from ._optable import Composite, Unary
from ._out import accepts_out
from ._primitive import primitive
from ._tangents import tangent_sum
from .arithmetic import _promoted, mul_scalar
from .conversion import to
from .elementwise import log
from .piecewise import where


def _cube(x):
    t = np.multiply(x, x)
    t *= x  # (x * x) * x into the square's buffer
    return t


def _reciprocal_of(t):
    return np.divide(1, t, out=t)  # 1 / t into t's (fresh) buffer


# PyTorch's CPU pow with these number exponents is a copy, a product, a quotient or a square
# root (``pow_tensor_scalar_optimized_kernel``); the same operations give its bits (at 3, -2
# and -0.5 ``np.power`` is an ulp off) and run 3-30x faster than ``np.power``.
_PRODUCT_POWERS = {
    1: lambda x: x.copy(order="K"),  # the layout kept, as the other results keep it
    2: lambda x: np.multiply(x, x),
    3: _cube,
    -1: lambda x: np.divide(1, x),
    -2: lambda x: _reciprocal_of(np.multiply(x, x)),
    -0.5: lambda x: _reciprocal_of(np.sqrt(x)),
    # NumPy's own bits (its power at 0.5 is the square root, -0.0 and -inf included, 1 ulp
    # from PyTorch's pow) without its power loop: 2x faster on (1e4, 32).
    0.5: np.sqrt,
}


# NumPy's AVX-512 ``power`` is vectorised for non-negative bases only: a negative one costs
# ~45 ns an element there. Its other loops take negative bases at their usual speed, where
# float64's ``|x| ** k`` and the sign cost 1.3x ``x ** k`` (float32's still gain 1.6x).
_SLOW_NEGATIVE_POWER = numpy_avx512()


def _float_power(x: np.ndarray, y):
    """``x ** y`` for a float32/float64 array and a number: PyTorch's products where it takes
    them; another integer power, where negative bases are slow (float32 anywhere, float64
    with AVX-512), as ``|x| ** y`` with the sign put back for odd ``y``: float32 ``(1000,
    32)`` normal ``x ** 4`` 1.45 ms -> 47 us with AVX-512, 237 -> 145 us with AVX2; within
    1 ulp of PyTorch either way."""
    product = _PRODUCT_POWERS.get(y)
    if product is not None:
        return product(x)
    if not float(y).is_integer() or (x.dtype.char == "d" and not _SLOW_NEGATIVE_POWER):
        return np.power(x, y)
    out = np.power(np.abs(x), y)
    if int(y) % 2:  # odd: the sign of x (also for -0.0, -inf and a NaN's sign)
        np.copysign(out, x, out=out)
    return out


def power_of(x, y):
    """``x ** y`` in a rule, on a tensor or on a plain rule's array (NumPy's ``**``) with the
    same bits: arrays take pow's own forward."""
    if isinstance(x, (np.ndarray, np.generic)):
        return _pow_forward(np.asarray(x), y)
    return x**y


def power_in_place(x, y):
    """``x.pow_(y)`` in a rule, as PyTorch's formulas write ``self.abs().pow_(p - 2)`` (its
    node saves a clone of ``x``, which a second derivative meets); ``power_of`` on arrays."""
    if isinstance(x, (np.ndarray, np.generic)):
        return power_of(x, y)
    return x.pow_(y)


def _pow_forward(x, y):
    if type(y) in (int, float) and type(x) is np.ndarray and x.dtype.char in "fd":
        return _float_power(x, y) if x.ndim else _float_power(x.reshape(1), y).reshape(())
    if np.asarray(x).dtype.kind == "b" and (type(y) is bool or np.asarray(y).dtype.kind == "b"):
        if type(y) is not bool:
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        # PyTorch: a bool tensor to a bool power stays bool (x ** True is x, x ** False 1).
        return np.array(x, dtype=bool) if y else np.ones(np.shape(x), dtype=bool)
    if (
        isinstance(y, (int, np.integer))
        and not isinstance(y, bool)
        and y < 0
        and np.asarray(x).dtype.kind in "iub"
    ):
        raise RuntimeError(
            "Integers to negative integer powers are not allowed. (pow: use a float base.)"
        )
    if (
        isinstance(y, np.ndarray)
        and y.dtype.kind in "iu"
        and np.asarray(x).dtype.kind in "iub"
        and (y < 0).any()
    ):
        return _int_pow_negative(x, y)
    return np.power(x, y)


def _int_pow_negative(x, y):
    # A Tensor of negative integer exponents is allowed (only a negative Python int raises):
    # PyTorch's integer pow gives 1 for base 1, +-1 for base -1, and 0 for every other base.
    out = np.power(x, np.where(y < 0, 0, y))
    x = np.asarray(x)
    special = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 == 0, 1, -1), 0))
    return np.where(y < 0, special, out).astype(out.dtype, copy=False)


# The rules run on tensors and on a plain rule's arrays alike: an operand is a tensor (or
# array) unless it is the Python number of PowBackward0 / PowBackward2.
def _pow_grad_base(grad, x, y, result):
    # d/dx x**y = y * x**(y-1), but exactly 0 where y == 0 (PyTorch's convention, avoids 0*inf).
    if not isinstance(y, (Tensor, np.ndarray)):
        if y == 0:
            return _zeros_like(grad)  # a constant, outside the graph, as in PyTorch
        if y == 2 and type(x) is np.ndarray:  # a plain rule's square: x ** 1 is x (no graph)
            return grad * (y * x)
        return grad * mul_scalar(power_of(x, y - 1), other=y)  # PyTorch's mul.Scalar
    # PyTorch's pow_backward_self: the product with grad inside the where.
    return where(y == 0, 0.0, grad * (y * power_of(x, y - 1)))


def _pow_grad_exponent(grad, x, y, result):
    # d/dy x**y = x**y * log(x), defined as 0 where x == 0 and y >= 0.
    if not isinstance(x, (Tensor, np.ndarray)):
        if x == 0:
            return grad * where(y >= 0, 0.0, result * float("-inf"))
        return grad * mul_scalar(result, other=float(np.log(x)))
    return grad * where((x == 0) & (y >= 0), 0.0, result * log(x))


def _pow_jvp(tx, ty, x, y, result):
    return tangent_sum(
        None if tx is None else _pow_grad_base(tx, x, y, result),
        None if ty is None else _pow_grad_exponent(ty, x, y, result),
    )


# With a number exponent (or base) the number is a parameter: the node has one edge, as
# PyTorch's PowBackward0 (PowBackward2) has.
_pow_tensor_scalar = primitive(
    "pow",
    lambda x, *, exponent: _pow_forward(x, exponent),
    (lambda grad, x, result, *, exponent: _pow_grad_base(grad, x, exponent, result),),
    kind=Unary(
        d1=lambda x, *, exponent: exponent * x ** (exponent - 1) if exponent != 0 else x * 0,
        d2=lambda x, *, exponent: (
            exponent * (exponent - 1) * x ** (exponent - 2) if exponent not in (0, 1) else x * 0
        ),
        jvp=lambda tx, x, result, *, exponent: _pow_grad_base(tx, x, exponent, result),
    ),
    overload="Tensor_Scalar",
    saves=("self", "exponent"),
    node_name="PowBackward0",
    plain_rules=True,
)
_pow_tensor_tensor = primitive(
    "pow",
    _pow_forward,
    (_pow_grad_base, _pow_grad_exponent),
    kind=Composite(taylor_as=lambda x, y: (y * x.log()).exp(), jvp=_pow_jvp),
    overload="Tensor_Tensor",
    saves=("self", "exponent", "result"),
    inputs=("self", "exponent"),
    node_name="PowBackward1",
    broadcast=True,
    scalars=True,
    plain_rules=True,
)


def _pow_of_number(y, *, base):
    try:
        return _pow_forward(base, y)
    except OverflowError:  # ``300 ** int8 tensor``: PyTorch wraps the base into int8
        return _pow_forward(wrapped_int(base, y.dtype), y)


_pow_scalar_tensor = primitive(
    "pow",
    _pow_of_number,
    (lambda grad, y, result, *, base: _pow_grad_exponent(grad, base, y, result),),
    kind=Composite(
        taylor_as=lambda y, *, base: (y * float(np.log(base))).exp(),
        jvp=lambda ty, y, result, *, base: _pow_grad_exponent(ty, base, y, result),
    ),
    overload="Scalar",
    saves=("exponent", "result"),
    inputs=("exponent",),
    node_name="PowBackward2",
    plain_rules=True,
)


@public(
    inplace=True, operators=("__pow__",), reflected=("__rpow__",), inplace_operators=("__ipow__",)
)
@accepts_out
def pow(input, exponent):
    """``input ** exponent``; either may be a Python number."""
    if isinstance(exponent, Tensor):
        if isinstance(input, Tensor):
            return _pow_tensor_tensor(input, exponent)
        input = _check_number("pow", input)
        return _pow_scalar_tensor(_promoted(exponent, input), base=input)
    if not isinstance(input, Tensor):
        raise TypeError(
            f"pow(): input must be a Tensor or the exponent must be, got {type(input).__name__}"
        )
    exponent = _check_number("pow", exponent)
    return _pow_tensor_scalar(_promoted(input, exponent), exponent=exponent)


def _check_number(op, value):
    if not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{op}(): expected a Tensor or a Python number, got {type(value).__name__}")
    # NumPy scalars are weak like Python numbers (see ops/_inputs.py); use the number.
    return value.item() if isinstance(value, np.generic) else value


@public()
def float_power(input, exponent):
    """``input ** exponent`` computed in float64."""
    base = to(input, float64) if isinstance(input, Tensor) else float(input)
    exp = to(exponent, float64) if isinstance(exponent, Tensor) else exponent
    return pow(base, exp)


@public(inplace=True)
@accepts_out
def square(input):
    """``input * input``; integer tensors stay integer."""
    return pow(input, 2)


__all__ = exports(globals())
