"""Elementwise ops PyTorch records as one node each, with its saves and derivative formulas:
``hypot`` (``HypotBackward0``), ``exp2``, ``sinc``, ``frac``, ``fmax`` / ``fmin`` and
``nan_to_num``. The public functions (``composites.py``) check their arguments first.
"""

from __future__ import annotations

import math

import numpy as np

from .._memory_format import copy_in_format, preserve_format
from ._optable import Composite, PiecewiseLinear
from ._primitive import primitive, unary
from ._tangents import tangent_sum
from .arithmetic import mul_scalar
from .piecewise import where

_LN2 = math.log(2.0)

# ----- hypot -----


def _hypot_jvp(tx, ty, x, y, *, result):
    return tangent_sum(None if tx is None else tx * x, None if ty is None else ty * y) / result


hypot = primitive(
    "hypot",
    np.hypot,
    (
        lambda grad, x, y, result: grad * x / result,
        lambda grad, x, y, result: grad * y / result,
    ),
    kind=Composite(taylor_as=lambda x, y: (x * x + y * y).sqrt(), jvp=_hypot_jvp),
    saves=("self if self", "other if other", "result"),
    node_name="HypotBackward0",
    broadcast=True,
    plain_rules=True,
)

# ----- exp2, sinc, frac -----

exp2 = unary(
    "exp2",
    np.exp2,
    d1=lambda x, result: result * _LN2,
    d2=lambda x, result: result * (_LN2 * _LN2),
    vjp=lambda grad, x, result: mul_scalar(grad * result, other=_LN2),  # PyTorch's formula
    node_name="Exp2Backward0",
    plain_rules=True,
)


# ----- ldexp: one node, as PyTorch records it (LdexpBackward0) -----


def _ldexp_jvp(tx, te, x, e, *, result):
    return tangent_sum(
        None if tx is None else tx * exp2(e), None if te is None else te * result * _LN2
    )


ldexp_of_floats = primitive(
    "ldexp",
    lambda x, e: x * np.exp2(e),
    (
        lambda grad, x, e, result: grad * exp2(e),
        lambda grad, x, e, result: grad * result * _LN2,
    ),
    kind=Composite(taylor_as=lambda x, e: x * exp2(e), jvp=_ldexp_jvp),
    saves=("other if self", "result"),
    node_name="LdexpBackward0",
    broadcast=True,
    plain_rules=True,
)


def _sinc_forward(x):
    """``sin(pi x) / (pi x)``, 1 at 0, float16 computed in float32 (PyTorch's kernel; NumPy's
    sinc moves 0 to 1e-20, which is 0 in float16)."""
    wide = x.astype(np.float32) if x.dtype == np.float16 else x
    px = wide * np.pi
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(wide == 0, wide.dtype.type(1), np.sin(px) / px)
    return out.astype(x.dtype, copy=False)


def _sinc_d1(x):
    """PyTorch's ``sinc_backward``: ``(pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 at 0."""
    px = x * math.pi
    squared = x * x * math.pi
    return where(squared == 0, 0.0, (px * px.cos() - px.sin()) / squared)


def _sinc_vjp(grad, x, result):
    """``_sinc_d1`` times ``grad`` as PyTorch's sinc_backward records it: the products by pi
    as mul.Scalar, the gradient inside the selection, each operator's right operand made
    first as GCC evaluates them (a second backward meets PyTorch's nodes in its order)."""
    px = mul_scalar(x, other=math.pi)
    squared = mul_scalar(x * x, other=math.pi)
    sin = px.sin()
    numerator = px * px.cos() - sin
    return where(squared == 0, 0.0, grad * (numerator / squared))


sinc = unary("sinc", _sinc_forward, d1=_sinc_d1, vjp=_sinc_vjp, node_name="SincBackward0")

frac = primitive(
    "frac",
    lambda x: np.subtract(x, np.trunc(x)),
    lambda grad, x, result: grad,  # as PyTorch's: the jumps have no derivative
    kind=PiecewiseLinear(),
    node_name="FracBackward0",
    dtype_rule="keep",
    plain_rules=True,
)

# ----- fmax, fmin: NaN-ignoring extremes -----


def _extreme(name: str, forward, picks_self, picks_self_tangent):
    """fmax or fmin: ``self``'s gradient where ``picks_self(x, y)`` (ties and a NaN ``other``
    included), ``other``'s elsewhere; forward mode picks by ``picks_self_tangent``, which in
    PyTorch differs at ties for fmax (strict ``>``)."""

    def jvp(tx, ty, x, y, *, result):
        tx = x.new_zeros(()) if tx is None else tx
        ty = y.new_zeros(()) if ty is None else ty
        mask = picks_self_tangent(x, y) | y.isnan()
        return ty + mask * (tx - ty)

    def taylor_as(x, y):
        mask = picks_self_tangent(x, y) | y.isnan()
        return where(mask, x, y)

    return primitive(
        name,
        forward,
        (
            lambda grad, x, y, result: grad.masked_fill(~(picks_self(x, y) | y.isnan()), 0),
            lambda grad, x, y, result: grad.masked_fill(picks_self(x, y) | y.isnan(), 0),
        ),
        kind=Composite(taylor_as=taylor_as, jvp=jvp),
        saves=("self", "other"),
        node_name=f"{name.capitalize()}Backward0",
        broadcast=True,
    )


fmax = _extreme("fmax", np.fmax, lambda x, y: x >= y, lambda x, y: x > y)
fmin = _extreme("fmin", np.fmin, lambda x, y: x <= y, lambda x, y: x <= y)

# ----- nan_to_num -----


def _nan_to_num_forward(x, *, nan, posinf, neginf):
    # Into a copy laid out as PyTorch's (a dense input's strides, else row-major: NumPy's
    # order "K" would lay an expanded input out column-major).
    out = copy_in_format(x, preserve_format, "nan_to_num")
    return np.nan_to_num(out, copy=False, nan=nan, posinf=posinf, neginf=neginf)


nan_to_num = primitive(
    "nan_to_num",
    _nan_to_num_forward,
    lambda grad, x, result, *, nan, posinf, neginf: grad * x.isfinite(),
    kind=PiecewiseLinear(),
    saves=("self",),
    node_name="NanToNumBackward0",
    dtype_rule="keep",
)
