"""Arithmetic: + - * / ** and their unary relatives, with broadcasting and Python scalars."""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor
from ._optable import Bilinear, Composite, Linear, NoDerivative, PiecewiseLinear, Unary
from ._primitive import primitive, unary
from ._tangents import scaled, tangent_sum

add_ = primitive(
    "add",
    lambda x, y, *, alpha=1: np.add(x, y) if alpha == 1 else np.add(x, np.multiply(y, alpha)),
    (
        lambda grad, x, y, result, *, alpha=1: grad,
        lambda grad, x, y, result, *, alpha=1: grad if alpha == 1 else grad * alpha,
    ),
    kind=Linear(affine=True),
    overload="Tensor",
    node_name="AddBackward0",
    broadcast=True,
    scalars=True,
    expose=public(function=False, method=False, operators=("__add__", "__radd__")),
)

sub_ = primitive(
    "sub",
    lambda x, y, *, alpha=1: (
        np.subtract(x, y) if alpha == 1 else np.subtract(x, np.multiply(y, alpha))
    ),
    (
        lambda grad, x, y, result, *, alpha=1: grad,
        lambda grad, x, y, result, *, alpha=1: -grad if alpha == 1 else grad * -alpha,
    ),
    kind=Linear(affine=True),
    overload="Tensor",
    node_name="SubBackward0",
    broadcast=True,
    scalars=True,
)


# rsub(input, other) = other - alpha * input; PyTorch names its node RsubBackward0 when
# ``other`` is a Tensor and RsubBackward1 when it is a Python number (``2 - x``).
_rsub_tensor = primitive(
    "rsub",
    lambda x, y, *, alpha=1: (
        np.subtract(y, x) if alpha == 1 else np.subtract(y, np.multiply(x, alpha))
    ),
    (
        lambda grad, x, y, result, *, alpha=1: -grad if alpha == 1 else grad * -alpha,
        lambda grad, x, y, result, *, alpha=1: grad,
    ),
    kind=Linear(affine=True),
    overload="Tensor",
    node_name="RsubBackward0",
    broadcast=True,
    scalars=True,
)


def _rsub_scalar_forward(x, *, other, alpha=1):
    return np.subtract(other, x) if alpha == 1 else np.subtract(other, np.multiply(x, alpha))


# ``2 - x``: the number is a parameter, not an operand, so the node has one edge (PyTorch's
# RsubBackward1).
_rsub_scalar = primitive(
    "rsub",
    _rsub_scalar_forward,
    (lambda grad, x, result, *, other, alpha=1: -grad if alpha == 1 else grad * -alpha,),
    kind=Composite(
        taylor_as=lambda x, *, other, alpha=1: x * (-alpha) + other,
        jvp=lambda tx, x, result, *, other, alpha=1: -tx if alpha == 1 else tx * -alpha,
    ),
    overload="Scalar",
    node_name="RsubBackward1",
)


def _reject_bool(op, *args) -> None:
    """PyTorch refuses ``-`` on bool tensors (or a Python bool) with a RuntimeError."""
    for a in args:
        if (type(a) is Tensor and a._data.dtype == np.bool_) or isinstance(a, (bool, np.bool_)):
            raise RuntimeError(
                f"{op}: the - operator is not supported with bool tensors; use logical_xor() "
                "or ~ (logical_not) instead"
            )


mul = primitive(
    "mul",
    np.multiply,
    (lambda grad, x, y, result: grad * y, lambda grad, x, y, result: grad * x),
    kind=Bilinear(),
    overload="Tensor",
    node_name="MulBackward0",
    broadcast=True,
    scalars=True,
    expose=public(inplace=True, operators=("__mul__", "__rmul__"), inplace_operators=("__imul__",)),
)

_true_div = primitive(
    "div",
    np.true_divide,
    (
        lambda grad, x, y, result: grad / y,
        lambda grad, x, y, result: -grad * x / (y * y),
    ),
    kind=Composite(
        taylor_as=lambda x, y: x * (y.reciprocal() if isinstance(y, Tensor) else 1.0 / y),
        jvp=lambda tx, ty, x, y, result: tangent_sum(scaled(tx, 1 / y), scaled(ty, -result / y)),
    ),
    overload="Tensor",
    node_name="DivBackward0",
    dtype_rule="float",
    broadcast=True,
    scalars=True,
    expose=public(function=False, method=False, operators=("__truediv__",)),
)


def _integer_division(op, forward):
    """``forward`` refusing what PyTorch refuses: bool operands, and integers divided by zero."""

    def checked(x, y, **params):
        kind = np.result_type(x, y).kind
        if kind == "b":
            raise NotImplementedError(
                f"{op}: not implemented for bool tensors; convert them first (.int() or .float())"
            )
        if kind in "iu" and np.any(np.equal(y, 0)):
            # Every divisor element is used unless the broadcast result is empty.
            if np.prod(np.broadcast_shapes(np.shape(x), np.shape(y))) > 0:
                raise RuntimeError(
                    f"ZeroDivisionError: {op} of integer tensors by zero; convert to floating "
                    "point (.double()) for inf/nan instead"
                )
        return forward(x, y, **params)

    checked.__name__ = op
    return checked


# PyTorch records floor_divide (its result requires grad) but its backward raises.
floor_divide = primitive(
    "floor_divide",
    _integer_division("floor_divide", np.floor_divide),
    kind=NoDerivative(),
    broadcast=True,
    scalars=True,
    expose=public(
        inplace=True,
        operators=("__floordiv__",),
        reflected=("__rfloordiv__",),
        inplace_operators=("__ifloordiv__",),
    ),
)


def _rounded_div_zero_grad(grad, x, y, result, **params):
    # PyTorch's DivBackward2 saves both operands and unpacks them even though the gradient
    # is zero, so a second backward without retain_graph raises; reading them here does too.
    for a in (x, y):
        if isinstance(a, Tensor):
            np.asarray(a._data)
    return zeros_like_grad(grad)


def _rounded_div_forward(x, y, *, rounding_mode):
    dtype = np.result_type(x, y)
    if rounding_mode == "floor":
        q = np.floor_divide(x, y)
    elif dtype.kind in "iu":
        # Exact for integers (a float quotient would round beyond 2**53): floor, then one up
        # where the remainder is nonzero and the operands' signs differ.
        q = np.floor_divide(x, y)
        q = q + ((np.remainder(x, y) != 0) & (np.less(x, 0) != np.less(y, 0)))
    else:
        q = np.trunc(np.true_divide(x, y))
    return q.astype(dtype, copy=False)


# div(..., rounding_mode=) is piecewise constant: zero gradient, as in PyTorch.
_rounded_div = primitive(
    "div",
    _integer_division("div", _rounded_div_forward),
    (_rounded_div_zero_grad, _rounded_div_zero_grad),
    kind=PiecewiseLinear(),
    overload="Tensor_mode",
    node_name="DivBackward2",
    broadcast=True,
    scalars=True,
)


def _remainder_primitive(name, forward, rounding_mode, overload, node_name):
    return primitive(
        name,
        forward,
        (
            lambda grad, x, y, result: grad,
            lambda grad, x, y, result: -grad * _rounded_div(x, y, rounding_mode=rounding_mode),
        ),
        kind=PiecewiseLinear(),
        overload=overload,
        node_name=node_name,
        broadcast=True,
        scalars=True,
    )


# PyTorch: RemainderBackward0 / FmodBackward0 with a Python-number divisor, ...Backward1 with a
# Tensor divisor; a Python number divided by a Tensor (``3 % x``) has no derivative.
_np_remainder = _integer_division("remainder", np.remainder)
_np_fmod = _integer_division("fmod", np.fmod)
_remainder_scalar = _remainder_primitive(
    "remainder", _np_remainder, "floor", "Scalar", "RemainderBackward0"
)
_remainder_tensor = _remainder_primitive(
    "remainder", _np_remainder, "floor", "Tensor", "RemainderBackward1"
)
_fmod_scalar = _remainder_primitive("fmod", _np_fmod, "trunc", "Scalar", "FmodBackward0")
_fmod_tensor = _remainder_primitive("fmod", _np_fmod, "trunc", "Tensor", "FmodBackward1")
_remainder_of_scalar = primitive(
    "remainder",
    _np_remainder,
    kind=NoDerivative(),
    overload="Scalar_Tensor",
    broadcast=True,
    scalars=True,
)


@public(
    inplace=True, operators=("__mod__",), reflected=("__rmod__",), inplace_operators=("__imod__",)
)
def remainder(input, other):
    """Python's ``%``: the result has the sign of ``other``."""
    if not isinstance(input, Tensor):
        return _remainder_of_scalar(input, other)
    return (_remainder_tensor if isinstance(other, Tensor) else _remainder_scalar)(input, other)


@public(inplace=True)
def fmod(input, other):
    """C's ``fmod``: the result has the sign of ``input``."""
    return (_fmod_tensor if isinstance(other, Tensor) else _fmod_scalar)(input, other)


@public(inplace=True, inplace_operators=("__iadd__",))
def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting."""
    return add_(input, other, alpha=alpha) if alpha != 1 else add_(input, other)


@public(inplace=True, operators=("__sub__",), inplace_operators=("__isub__",))
def sub(input, other, *, alpha=1):
    """``input - alpha * other`` with broadcasting."""
    _reject_bool("sub", input, other)
    return sub_(input, other, alpha=alpha) if alpha != 1 else sub_(input, other)


subtract = sub


@public(method=False, operators=("__rsub__",))
def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` with broadcasting (``2 - x`` calls this)."""
    _reject_bool("rsub", input, other)
    if not isinstance(other, Tensor):
        x = _promoted(input, other)
        return (
            _rsub_scalar(x, other=other, alpha=alpha)
            if alpha != 1
            else _rsub_scalar(x, other=other)
        )
    return _rsub_tensor(input, other, alpha=alpha) if alpha != 1 else _rsub_tensor(input, other)


@public(function=False, method=False, operators=("__rtruediv__",))
def _rtruediv(input, other):
    # ``2 / x`` is ``reciprocal(x) * 2`` in PyTorch, so its grad_fn is MulBackward0.
    return mul(reciprocal(input), other)


@public(inplace=True, inplace_operators=("__itruediv__",))
def div(input, other, *, rounding_mode=None):
    """True division (ints give floats); ``rounding_mode`` "floor"/"trunc" has no gradient."""
    if rounding_mode is None:
        return _true_div(input, other)
    if rounding_mode in ("floor", "trunc"):
        return _rounded_div(input, other, rounding_mode=rounding_mode)
    raise RuntimeError(
        f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}"
    )


divide = true_divide = div
multiply = mul


def _pow_forward(x, y):
    if (
        isinstance(y, (int, np.integer))
        and not isinstance(y, bool)
        and y < 0
        and np.asarray(x).dtype.kind in "iub"
    ):
        raise RuntimeError(
            "pow: integers to negative integer powers are not allowed; use a float base"
        )
    if (
        isinstance(y, np.ndarray)
        and y.dtype.kind in "iu"
        and np.asarray(x).dtype.kind in "iu"
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


def _pow_grad_base(grad, x, y, result):
    # d/dx x**y = y * x**(y-1), but exactly 0 where y == 0 (PyTorch's convention, avoids 0*inf).
    if not isinstance(y, Tensor):
        if y == 0:
            return zeros_like_grad(grad)  # a constant, outside the graph, as in PyTorch
        return grad * (y * x ** (y - 1))
    return grad * where(y == 0, 0.0, y * x ** (y - 1))


def _pow_grad_exponent(grad, x, y, result):
    # d/dy x**y = x**y * log(x), defined as 0 where x == 0 and y >= 0.
    if not isinstance(x, Tensor):
        if x == 0:
            return grad * where(y >= 0, 0.0, result * float("-inf"))
        return grad * (result * float(np.log(x)))
    return grad * where((x == 0) & (y >= 0), 0.0, result * x.log())


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
    saves=("result",),
    node_name="PowBackward0",
)
_pow_tensor_tensor = primitive(
    "pow",
    _pow_forward,
    (_pow_grad_base, _pow_grad_exponent),
    kind=Composite(taylor_as=lambda x, y: (y * x.log()).exp(), jvp=_pow_jvp),
    overload="Tensor_Tensor",
    saves=("result",),
    node_name="PowBackward1",
    broadcast=True,
    scalars=True,
)
_pow_scalar_tensor = primitive(
    "pow",
    lambda y, *, base: _pow_forward(base, y),
    (lambda grad, y, result, *, base: _pow_grad_exponent(grad, base, y, result),),
    kind=Composite(
        taylor_as=lambda y, *, base: (y * float(np.log(base))).exp(),
        jvp=lambda ty, y, result, *, base: _pow_grad_exponent(ty, base, y, result),
    ),
    overload="Scalar",
    saves=("result",),
    node_name="PowBackward2",
)


def _promoted(tensor, number):
    """``tensor`` cast to the dtype PyTorch gives ``tensor <op> number``."""
    from .._dtype import result_type

    dt = result_type(tensor, number)
    return tensor if dt.np == tensor._data.dtype else tensor.to(dt)


@public(
    inplace=True, operators=("__pow__",), reflected=("__rpow__",), inplace_operators=("__ipow__",)
)
def pow(input, exponent):
    """``input ** exponent``; either may be a Python number."""
    if isinstance(exponent, Tensor):
        if isinstance(input, Tensor):
            return _pow_tensor_tensor(input, exponent)
        _check_number("pow", input)
        return _pow_scalar_tensor(_promoted(exponent, input), base=input)
    if not isinstance(input, Tensor):
        raise TypeError(
            f"pow(): input must be a Tensor or the exponent must be, got {type(input).__name__}"
        )
    _check_number("pow", exponent)
    return _pow_tensor_scalar(_promoted(input, exponent), exponent=exponent)


def _check_number(op, value):
    if not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{op}(): expected a Tensor or a Python number, got {type(value).__name__}")


@public()
def float_power(input, exponent):
    """``input ** exponent`` computed in float64."""
    from .._dtype import float64
    from .conversion import to

    base = to(input, float64) if isinstance(input, Tensor) else float(input)
    exp = to(exponent, float64) if isinstance(exponent, Tensor) else exponent
    return pow(base, exp)


neg_ = primitive(
    "neg",
    np.negative,
    (lambda grad, x, result: -grad,),
    kind=Linear(),
    node_name="NegBackward0",
    dtype_rule="promote",
)


@public(inplace=True, operators=("__neg__",))
def neg(input):
    """``-input``; bool tensors raise as in PyTorch."""
    if isinstance(input, Tensor) and input._data.dtype == np.bool_:
        raise RuntimeError(
            "neg: the - operator is not supported on bool tensors; use ~ (logical_not) instead"
        )
    return neg_(input)


negative = neg


def _sign_forward(x):
    out = np.sign(x)
    if x.dtype.kind == "f":
        out = np.where(np.isnan(x), 0, out).astype(x.dtype, copy=False)  # PyTorch: sign(nan) = 0
    return out


sign = primitive(
    "sign",
    _sign_forward,
    (lambda grad, x, result: zeros_like_grad(grad),),
    kind=PiecewiseLinear(),
    node_name="SignBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
)
sgn = sign

abs = unary(
    "abs",
    np.abs,
    d1=lambda x: sign(x),
    d2=lambda x: zeros_like_grad(x),
    node_name="AbsBackward0",
    dtype_rule="promote",
    expose=public(inplace=True, operators=("__abs__",)),
)
absolute = abs

reciprocal = unary(
    "reciprocal",
    np.reciprocal,
    d1=lambda x, result: -(result * result),
    d2=lambda x, result: 2 * result * result * result,
    node_name="ReciprocalBackward0",
    expose=public(inplace=True),
)

sqrt = unary(
    "sqrt",
    np.sqrt,
    d1=lambda x, result: 0.5 / result,
    d2=lambda x, result: -0.25 / (result * result * result),
    node_name="SqrtBackward0",
    expose=public(inplace=True),
)


def _rsqrt_forward(x):
    return 1 / np.sqrt(x)


rsqrt = unary(
    "rsqrt",
    _rsqrt_forward,
    d1=lambda x, result: -0.5 * result * result * result,
    d2=lambda x, result: 0.75 * result**5,
    node_name="RsqrtBackward0",
    expose=public(inplace=True),
)


@public(inplace=True)
def square(input):
    """``input * input``; integer tensors stay integer."""
    return pow(input, 2)


from .elementwise import where, zeros_like_grad  # noqa: E402 - each family's rules use the other


@public(function=False, method=False, operators=("__pos__",))
def _identity(self):
    return self


__all__ = exports(globals())
