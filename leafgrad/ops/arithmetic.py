"""Arithmetic: + - * / and their unary relatives, with broadcasting and Python scalars.

Powers (``**``) live in ``power.py``; floor division, rounding division, remainder and fmod
in ``division.py``.
"""

from __future__ import annotations

import numpy as np

from .._dtype import keeps_floating_dtype, result_type
from .._engine.grad_mode import _state as _grad_state
from .._exposure import exports, public
from .._tensor import Tensor, _wrap, _zeros_like
from . import _fused
from ._inputs import refusing_bool, wrapped_int
from ._optable import Bilinear, Composite, Linear, PiecewiseLinear
from ._out import accepts_out
from ._plain import operand, values_of
from ._primitive import formula_scalars, primitive, unary
from ._tangents import scaled, tangent_sum
from .division import _rounded_div

_NUMBERS = (float, int)  # the Python numbers a rule may meet where PyTorch had a tensor


def _times(y, alpha):
    """``alpha * y`` for ``add``/``sub``: a Python number stays one (NumPy's product of two
    numbers would be a float64/int64 scalar, which promotes a float32 tensor)."""
    if type(y) is float or type(y) is int or type(y) is bool:
        return y * alpha
    return np.multiply(y, alpha)


def _plus(x, y):
    """``np.add(x, y)``; a row (a layer's bias) added to every row of a large array, in either
    order, by one compiled pass (``_fused.row_add``: NumPy's broadcast loop is 2-3x slower)."""
    if type(y) is np.ndarray and type(x) is np.ndarray and x.ndim != y.ndim:  # no row: same rank
        if _fused.row_fusable(x, y):
            return _fused.row_add(x, y)
        if _fused.row_fusable(y, x):
            return _fused.row_add(y, x)  # a sum's operands commute exactly
    return np.add(x, y)


def _minus(x, y):
    """``np.subtract(x, y)``; ``x - row`` as ``x + (-row)`` (the same IEEE result, signed
    zeros included) by ``_fused.row_add``."""
    if type(y) is np.ndarray and type(x) is np.ndarray and x.ndim != y.ndim:
        if _fused.row_fusable(x, y):
            return _fused.row_add(x, np.negative(y))
    return np.subtract(x, y)


add_ = primitive(
    "add",
    lambda x, y, *, alpha=1: _plus(x, y) if alpha == 1 else np.add(x, _times(y, alpha)),
    (
        lambda grad, x, y, result, *, alpha=1: grad,
        lambda grad, x, y, result, *, alpha=1: grad if alpha == 1 else grad * alpha,
    ),
    kind=Linear(affine=True),
    overload="Tensor",
    saves=("alpha",),
    node_name="AddBackward0",
    broadcast=True,
    scalars=True,
    expose=public(function=False, method=False, operators=("__add__", "__radd__")),
    plain_rules=True,
)

sub_ = primitive(
    "sub",
    lambda x, y, *, alpha=1: _minus(x, y) if alpha == 1 else np.subtract(x, _times(y, alpha)),
    (
        lambda grad, x, y, result, *, alpha=1: grad,
        lambda grad, x, y, result, *, alpha=1: -grad if alpha == 1 else grad * -alpha,
    ),
    kind=Linear(affine=True),
    overload="Tensor",
    saves=("alpha",),
    node_name="SubBackward0",
    broadcast=True,
    scalars=True,
    plain_rules=True,
)


# rsub(input, other) = other - alpha * input; PyTorch names its node RsubBackward0 when
# ``other`` is a Tensor and RsubBackward1 when it is a Python number (``2 - x``).
_rsub_tensor = primitive(
    "rsub",
    lambda x, y, *, alpha=1: np.subtract(y, x) if alpha == 1 else np.subtract(y, _times(x, alpha)),
    (
        lambda grad, x, y, result, *, alpha=1: -grad if alpha == 1 else grad * -alpha,
        lambda grad, x, y, result, *, alpha=1: grad,
    ),
    kind=Linear(affine=True),
    overload="Tensor",
    saves=("alpha",),
    node_name="RsubBackward0",
    broadcast=True,
    scalars=True,
    plain_rules=True,
)


def _rsub_scalar_forward(x, *, other, alpha=1):
    try:
        return np.subtract(other, x) if alpha == 1 else np.subtract(other, _times(x, alpha))
    except OverflowError:  # ``300 - int8 tensor``: PyTorch wraps the number into int8
        return _rsub_scalar_forward(x, other=wrapped_int(other, x.dtype), alpha=alpha)


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
    saves=("alpha",),
    node_name="RsubBackward1",
    plain_rules=True,
)


# A tensor times (plus) a number inside a derivative formula: PyTorch's C++ formulas call
# mul.Scalar / add.Scalar, recorded as MulBackward1 / AddBackward1 (Python's ``x * 2`` is
# mul.Tensor, MulBackward0), so second-order graphs name their nodes as PyTorch's do. The
# number takes the tensor's dtype, as a Python number meeting a tensor does.
mul_scalar = primitive(
    "mul",
    lambda x, *, other: np.multiply(x, other),
    (lambda grad, x, result, *, other: mul_scalar(grad, other=other),),
    kind=Composite(
        taylor_as=lambda x, *, other: x * other,
        jvp=lambda tx, x, result, *, other: mul_scalar(tx, other=other),
    ),
    overload="Scalar",
    node_name="MulBackward1",
    plain_rules=True,
)
add_scalar = primitive(
    "add",
    lambda x, *, other: np.add(x, other),
    (lambda grad, x, result, *, other: grad,),
    kind=Composite(taylor_as=lambda x, *, other: x + other, jvp=lambda tx, x, result, *, other: tx),
    overload="Scalar",
    node_name="AddBackward1",
    plain_rules=True,
)

div_scalar = primitive(
    "div",
    lambda x, *, other: np.true_divide(x, other),
    (lambda grad, x, result, *, other: div_scalar(grad, other=other),),
    kind=Composite(
        taylor_as=lambda x, *, other: x / other,
        jvp=lambda tx, x, result, *, other: div_scalar(tx, other=other),
    ),
    overload="Scalar",
    node_name="DivBackward1",
    plain_rules=True,
)


sub_scalar = primitive(
    "sub",
    lambda x, *, other: np.subtract(x, other),
    (lambda grad, x, result, *, other: grad,),
    kind=Composite(taylor_as=lambda x, *, other: x - other, jvp=lambda tx, x, result, *, other: tx),
    overload="Scalar",
    node_name="SubBackward1",
    plain_rules=True,
)


def one_like(x):
    """1 in ``x``'s dtype as an operand of its kind (a 0-d array in a plain rule, else a
    0-d tensor): a formula's ``1 - t`` then records PyTorch's SubBackward0, whose edge for
    the number is None (``1 - t`` of a tensor is Python's rsub, RsubBackward1)."""
    return operand(np.ones((), values_of(x).dtype), x)


def _reject_bool(op, *args) -> None:
    """PyTorch refuses ``-`` on bool tensors (or a Python bool) with a RuntimeError."""
    for a in args:
        # dtype.kind, not ``dtype == np.bool_``: that comparison converts np.bool_ each time
        # (a third of the check's cost, on every subtraction)
        if a._data.dtype.kind == "b" if type(a) is Tensor else isinstance(a, (bool, np.bool_)):
            raise RuntimeError(
                f"{op}: the - operator is not supported with bool tensors; use logical_xor() "
                "or ~ (logical_not) instead"
            )


mul = primitive(
    "mul",
    np.multiply,
    (
        # (wrapped_number only for a number: every other mul's backward skips the call)
        lambda grad, x, y, result: grad * (wrapped_number(y, grad) if type(y) in _NUMBERS else y),
        lambda grad, x, y, result: grad * x,
    ),
    kind=Bilinear(),
    overload="Tensor",
    saves=("self if other", "other if self"),
    node_name="MulBackward0",
    broadcast=True,
    scalars=True,
    expose=public(inplace=True, operators=("__mul__", "__rmul__"), inplace_operators=("__imul__",)),
    plain_rules=True,
)


def _reciprocal_in(y, x):
    """``1 / y`` in the dtype of ``x / y`` (an integer tensor's own reciprocal would be in the
    default dtype, losing a float64 numerator's precision)."""
    if not isinstance(y, Tensor):
        return 1.0 / y
    if not y.is_floating_point():
        y = y.to(result_type(x, y))
    return y.reciprocal()


def _div_other_backward(grad, x, y):
    """PyTorch's div_tensor_other_backward, ``-grad * ((x / y) / y)``, the quotient made
    first (GCC evaluates an overloaded operator's right operand first: PyTorch's nodes are
    made, and run in a second backward, in that order)."""
    quotient = (x / y) / y
    return -grad * quotient


_true_div = primitive(
    "div",
    np.true_divide,
    (
        lambda grad, x, y, result: grad / (wrapped_number(y, grad) if type(y) in _NUMBERS else y),
        lambda grad, x, y, result: _div_other_backward(grad, x, y),
    ),
    kind=Composite(
        taylor_as=lambda x, y: x * _reciprocal_in(y, x),
        # tx / y, not tx * (1 / y): an integer y's reciprocal would be in the default dtype.
        jvp=lambda tx, ty, x, y, result: tangent_sum(
            None if tx is None else tx / y, scaled(ty, -result / y)
        ),
    ),
    overload="Tensor",
    saves=("self if other", "other"),
    node_name="DivBackward0",
    dtype_rule="float",
    broadcast=True,
    scalars=True,
    expose=public(function=False, method=False, operators=("__truediv__",)),
    plain_rules=True,
)


# Inside derivative rules a C++ formula's numbers are Scalars (see formula_scalars).
formula_scalars(mul, mul_scalar)
formula_scalars(_true_div, div_scalar)
formula_scalars(add_, add_scalar)
formula_scalars(sub_, sub_scalar)


def wrapped_number(y, like):
    """A Python number ``y`` that stood for PyTorch's wrapped-number tensor (``x * 2`` from
    Python), as a 0-d tensor in ``like``'s dtype, so a rule's ``grad * y`` records
    mul.Tensor (MulBackward0, a None edge) as PyTorch's; anything else as it is."""
    if type(y) in _NUMBERS and _in_formula(like):
        return _wrap(np.asarray(y, like._data.dtype))
    return y


def _in_formula(like) -> bool:
    """Whether a rule runs on tensors (not arrays) and ``like`` is a floating tensor."""
    return type(like) is not np.ndarray and _grad_state.formula and like._data.dtype.kind == "f"


@public(inplace=True, inplace_operators=("__iadd__",))
@accepts_out
def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting."""
    return add_(input, other, alpha=alpha) if alpha != 1 else add_(input, other)


@public(inplace=True, operators=("__sub__",), inplace_operators=("__isub__",))
@accepts_out
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
        if alpha == 1 and type(other) is not bool and _in_formula(input):
            # A C++ formula's ``1 - t`` fills a tensor and subtracts: SubBackward0.
            return sub_(wrapped_number(other, input), input)
        x = _promoted(input, other)
        return (
            _rsub_scalar(x, other=other, alpha=alpha)
            if alpha != 1
            else _rsub_scalar(x, other=other)
        )
    return _rsub_tensor(input, other, alpha=alpha) if alpha != 1 else _rsub_tensor(input, other)


@public(function=False, method=False, operators=("__rtruediv__",))
def _rtruediv(input, other):
    # ``2 / x`` is ``reciprocal(x) * 2`` in PyTorch, so its grad_fn is MulBackward0; as
    # there, through the operator, so ``ndarray / x`` reaches NumPy (ops/_operands.py).
    if type(other) is not bool and isinstance(other, (int, float)) and _in_formula(input):
        return _true_div(wrapped_number(other, input), input)  # C++'s fill_ then div_
    return reciprocal(input) * other


@public(inplace=True, inplace_operators=("__itruediv__",))
@accepts_out
def div(input, other, *, rounding_mode=None):
    """True division (ints give floats); ``rounding_mode`` "floor"/"trunc" has no gradient."""
    if rounding_mode is None:
        return _true_div(input, other)
    if rounding_mode in ("floor", "trunc"):
        return _rounded_div(input, other, rounding_mode=rounding_mode)
    raise RuntimeError(
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
        f"{rounding_mode!r}"
    )


divide = true_divide = div
multiply = mul


def _promoted(tensor, number):
    """``tensor`` cast to the dtype PyTorch gives ``tensor <op> number``."""
    if keeps_floating_dtype(tensor, number):
        return tensor
    dt = result_type(tensor, number)
    return tensor if dt.np == tensor._data.dtype else tensor.to(dt)


neg_ = primitive(
    "neg",
    np.negative,
    (lambda grad, x, result: -grad,),
    kind=Linear(),
    node_name="NegBackward0",
    dtype_rule="promote",
    plain_rules=True,
)


@public(inplace=True, operators=("__neg__",))
@accepts_out(same_dtype=True)
def neg(input):
    """``-input``; bool tensors raise as in PyTorch."""
    if isinstance(input, Tensor) and input._data.dtype.kind == "b":
        raise RuntimeError(
            "neg: the - operator is not supported on bool tensors; use ~ (logical_not) instead"
        )
    return neg_(input)


negative = neg


def _sign_forward(x):
    if x.dtype.kind == "b":  # PyTorch: the sign of a bool is itself (NumPy has no loop)
        return x.copy()
    out = np.sign(x)
    if x.dtype.kind == "f":
        out = np.where(np.isnan(x), 0, out).astype(x.dtype, copy=False)  # PyTorch: sign(nan) = 0
    return out


sign = primitive(
    "sign",
    _sign_forward,
    (lambda grad, x, result: _zeros_like(grad),),
    kind=PiecewiseLinear(),
    node_name="SignBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
    plain_rules=True,
)
# PyTorch's sgn: sign for real tensors, recorded as its own node (SgnBackward0, saving self
# and result), which abs's derivative records.
sgn = primitive(
    "sgn",
    _sign_forward,
    (lambda grad, x, result: _zeros_like(grad),),
    kind=PiecewiseLinear(),
    saves=("self", "result"),
    node_name="SgnBackward0",
    dtype_rule="promote",
    expose=public(inplace=True),
    plain_rules=True,
)

abs = unary(
    "abs",
    refusing_bool("abs", np.abs),
    d1=lambda x: sgn(x),
    d2=lambda x: _zeros_like(x),
    node_name="AbsBackward0",
    dtype_rule="promote",
    expose=public(inplace=True, operators=("__abs__",)),
    plain_rules=True,
)
absolute = abs

reciprocal = unary(
    "reciprocal",
    np.reciprocal,
    d1=lambda x, result: -(result * result),
    vjp=lambda grad, x, result: -grad * (result * result),  # PyTorch's formula, its order
    d2=lambda x, result: 2 * result * result * result,
    node_name="ReciprocalBackward0",
    expose=public(inplace=True),
    plain_rules=True,
)

sqrt = unary(
    "sqrt",
    np.sqrt,
    d1=lambda x, result: 0.5 / result,
    d2=lambda x, result: -0.25 / (result * result * result),
    vjp=lambda grad, x, result: grad / mul_scalar(result, other=2),  # PyTorch's formula
    node_name="SqrtBackward0",
    expose=public(inplace=True),
    plain_rules=True,
)


def _rsqrt_vjp(grad, result):
    """PyTorch's formula, in its order: ``-0.5 * grad * result.pow(3)``."""
    from .power import power_of  # why: power.py imports this module

    return -0.5 * grad * power_of(result, 3)  # pow's bits on a plain rule's array too


def _rsqrt_forward(x):
    return 1 / np.sqrt(x)


rsqrt = unary(
    "rsqrt",
    _rsqrt_forward,
    d1=lambda x, result: -0.5 * result * result * result,
    d2=lambda x, result: 0.75 * result**5,
    vjp=lambda grad, x, result: _rsqrt_vjp(grad, result),
    node_name="RsqrtBackward0",
    expose=public(inplace=True),
    plain_rules=True,
)


@public(function=False, method=False, operators=("__pos__",))
def _identity(self):
    return self


__all__ = exports(globals())
