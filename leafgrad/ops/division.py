"""Integer-style division: floor_divide, div with a rounding mode, remainder and fmod.

Quotients rounded to integers are piecewise constant (zero gradient, as in PyTorch); the
remainders are piecewise linear. Bool operands and integer division by zero raise, as in
PyTorch.
"""

from __future__ import annotations

import numpy as np

from .._dtype import result_type
from .._exposure import exports, public
from .._tensor import Tensor, _zeros_like
from ._inputs import wrapped_ints
from ._optable import NoDerivative, PiecewiseLinear
from ._out import accepts_out
from ._primitive import primitive


def _integer_division(op, forward):
    """``forward`` refusing what PyTorch refuses: bool operands, and integers divided by zero."""

    def checked(x, y, **params):
        kind = np.result_type(x, y).kind
        if kind == "b":
            raise NotImplementedError(
                f"{op}: not implemented for bool tensors; convert them first (.int() or .float())"
            )
        if kind in "iu":
            x, y = wrapped_ints(x, y)  # before the zero test: 256 is 0 for a uint8 tensor
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
    # PyTorch's DivBackward2 saves both operands (a second backward raises) though the
    # gradient is zero.
    return _zeros_like(grad)


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
    saves=("self if other", "other", "rounding_mode"),
    node_name="DivBackward2",
    broadcast=True,
    scalars=True,
    plain_rules=True,
)


def _by_tensor(name, forward, rounding_mode, node_name):
    """remainder / fmod by a tensor: PyTorch's Tensor overload, both operands edges; only the
    divisor's formula reads them, so they are saved when the divisor needs a gradient."""
    return primitive(
        name,
        forward,
        (
            lambda grad, x, y, result: grad,
            lambda grad, x, y, result: -grad * _rounded_div(x, y, rounding_mode=rounding_mode),
        ),
        kind=PiecewiseLinear(),
        overload="Tensor",
        saves=("self if other", "other if other"),
        node_name=node_name,
        broadcast=True,
        scalars=True,
        plain_rules=True,
    )


# PyTorch: RemainderBackward0 / FmodBackward0 with a Python-number divisor, ...Backward1 with a
# Tensor divisor; a Python number divided by a Tensor (``3 % x``) has no derivative.
_np_remainder = _integer_division("remainder", np.remainder)
_np_fmod = _integer_division("fmod", np.fmod)


def _by_number(name, forward, node_name):
    """remainder / fmod of a tensor by a number: PyTorch's Scalar overload, whose node has one
    edge (the number is a parameter, not an operand); the tensor comes in its result dtype
    (``_promoted_by``), which a weak scalar then keeps."""
    return primitive(
        name,
        lambda x, *, other: forward(x, other),
        (lambda grad, x, result, *, other: grad,),
        kind=PiecewiseLinear(),
        overload="Scalar",
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )


_remainder_by_number = _by_number("remainder", _np_remainder, "RemainderBackward0")
_fmod_by_number = _by_number("fmod", _np_fmod, "FmodBackward0")

_remainder_tensor = _by_tensor("remainder", _np_remainder, "floor", "RemainderBackward1")
_fmod_tensor = _by_tensor("fmod", _np_fmod, "trunc", "FmodBackward1")
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
@accepts_out
def remainder(input, other):
    """Python's ``%``: the result has the sign of ``other``."""
    if not isinstance(input, Tensor):
        return _remainder_of_scalar(input, other)
    if isinstance(other, Tensor):
        return _remainder_tensor(input, other)
    return _remainder_by_number(_promoted_by(input, other), other=other)


@public(inplace=True)
@accepts_out
def fmod(input, other):
    """C's ``fmod``: the result has the sign of ``input``."""
    if not isinstance(input, Tensor):  # no Scalar-first overload, unlike remainder
        raise TypeError(f"fmod(): argument 'input' must be a Tensor, not {type(input).__name__}")
    if isinstance(other, Tensor):
        return _fmod_tensor(input, other)
    return _fmod_by_number(_promoted_by(input, other), other=other)


def _promoted_by(input: Tensor, number) -> Tensor:
    """``input`` in its result dtype with ``number`` (an int tensor by a float: the default
    float dtype, as PyTorch's weak scalars promote)."""
    dtype = result_type(input, number)
    return input if dtype == input.dtype else input.to(dtype)


__all__ = exports(globals())
