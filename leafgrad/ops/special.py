"""Special functions beyond ``elementwise.py``: erfcx, logit, xlogy / xlog1py, the modified
Bessel functions i0, i0e, i1, i1e, entropy, the normal distribution's ndtr / ndtri /
log_ndtr, and the Bessel functions PyTorch does not differentiate.

SciPy's kernels compute the forwards; the derivatives are PyTorch's (``FunctionsManual.cpp``)
in leafgrad ops, with its values at the awkward points: ``logit`` without ``eps`` has a nan
gradient outside [0, 1] and with ``eps`` a zero one outside [eps, 1 - eps]; the gradients of
i1 and i1e are 0.5 at |x| <= eps; ``xlogy(0, y)`` is 0 unless y is nan.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from .._dtype import get_default_dtype
from .._exposure import exports, public
from .._tensor import Tensor
from ._optable import Generic, NonDifferentiable
from ._out import accepts_out
from ._plain import values_of
from ._primitive import primitive, unary
from ._tangents import diagonal_jvp
from .arithmetic import abs, add_scalar, div_scalar, mul_scalar, one_like, reciprocal, sign
from .elementwise import erf, exp, log
from .indexing import _masked_fill_scalar
from .piecewise import where

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)

erfcx = unary(
    "special_erfcx",
    sp.erfcx,
    node_name="SpecialErfcxBackward0",
    saves=("self", "result"),  # its derivative reads both, as PyTorch's
    d1=lambda x, result: 2 * x * result - _TWO_OVER_SQRT_PI,
    d2=lambda x, result: 2 * result + 2 * x * (2 * x * result - _TWO_OVER_SQRT_PI),
    plain_rules=True,
)

# ----- logit -----


def _logit_forward(x, *, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


# logit's rules run on tensors and on a plain rule's arrays alike (operators and functions).
def _outside(x, eps):
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1 - eps)
    return (x < lo) | (x > hi)


def _logit_d1(x, *, eps=None):
    return where(_outside(x, eps), math.nan if eps is None else 0.0, reciprocal(x * (1 - x)))


def _logit_d2(x, *, eps=None):
    inner = x * (1 - x)
    return where(_outside(x, eps), math.nan if eps is None else 0.0, (2 * x - 1) / (inner * inner))


def _logit_vjp(grad, x, result, *, eps=None):
    """PyTorch's infinitely_differentiable_logit_backward: ``grad / (x (1 - x))`` inside
    [lo, hi], NaN outside (0 with ``eps``)."""
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1 - eps)
    inside = (x >= lo) & (x <= hi)
    return where(inside, grad / (x * (one_like(x) - x)), math.nan if eps is None else 0.0)


_logit = unary(
    "logit",
    _logit_forward,
    d1=_logit_d1,
    d2=_logit_d2,
    vjp=_logit_vjp,
    plain_rules=True,
    metadata=("eps",),  # (None where not given, as PyTorch shows it)
)


@public(inplace=True)
@accepts_out
def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """``log(x / (1 - x))``, with x clamped to [eps, 1 - eps] when ``eps`` is given."""
    return _logit(input) if eps is None else _logit(input, eps=float(eps))


# ----- x log y -----


def _weak(x, y) -> tuple:
    """``(x, y)`` with a Python number as PyTorch's weak scalar: both in the array's dtype if
    floating, else in the default float dtype (``np.log(2.0)`` alone would be a float64 NumPy
    scalar, which promotes). A plain rule's bool mask beside a number thus computes as the
    tensor rule does (PyTorch's ``xlogy(self != 0, other)``)."""
    if type(x) is np.ndarray and type(y) is not np.ndarray:
        dtype = x.dtype if x.dtype.kind == "f" else get_default_dtype().np
    elif type(y) is np.ndarray and type(x) is not np.ndarray:
        dtype = y.dtype if y.dtype.kind == "f" else get_default_dtype().np
    else:
        return x, y
    return np.asarray(x, dtype), np.asarray(y, dtype)


def _xlogy_forward(x, y):
    x, y = _weak(x, y)
    out = x * np.log(y)
    return np.where((x == 0) & ~np.isnan(y), out.dtype.type(0), out)


def _xlog1py_forward(x, y):
    x, y = _weak(x, y)
    out = x * np.log1p(y)
    return np.where((x == 0) & ~np.isnan(y), out.dtype.type(0), out)


def _scalar_overloads(name, forward, rules, node, overloads, **declaration):
    """One binary op as PyTorch records it: a primitive per overload (both tensors, a Python
    number first, a number second; grad_fn ``<node>0``, ``1``, ``2``) and the function that
    picks one."""
    ops = [
        primitive(
            name,
            forward,
            rules,
            kind=Generic(jvp=diagonal_jvp(*rules)),
            overload=overload,
            node_name=f"{node}{i}",
            saves=("self", "other"),
            dtype_rule="float",
            broadcast=True,
            scalars=True,
            plain_rules=True,
            **declaration,
        )
        for i, overload in enumerate(overloads)
    ]

    def dispatch(input, other):
        if not isinstance(input, Tensor):
            if isinstance(input, (int, float)) and isinstance(other, (int, float)):
                raise TypeError(
                    f"{name}(): one of input and other must be a Tensor, got two numbers"
                )
            return ops[1](input, other)
        return ops[0 if isinstance(other, Tensor) else 2](input, other)

    return dispatch


def _xlogy_self_grad(grad, x, y):
    """PyTorch's ``xlogy(grad, other).masked_fill((self == 0) & (other <= 0), 0)``: at
    ``x = 0`` the derivative is still ``log(y)`` where that is finite."""
    out = xlogy(grad, y)
    if isinstance(y, (int, float)):  # the Scalar_Other overload
        return _masked_fill_scalar(out, x == 0, fill=0) if y <= 0 else out
    return _masked_fill_scalar(out, (x == 0) & (y <= 0), fill=0)


_xlogy = _scalar_overloads(
    "xlogy",
    _xlogy_forward,
    (
        lambda grad, x, y, result: _xlogy_self_grad(grad, x, y),
        lambda grad, x, y, result: grad * x / y,
    ),
    "XlogyBackward",
    ("Tensor", "Scalar_Self", "Scalar_Other"),
)


@public(inplace=True)
@accepts_out
def xlogy(input, other) -> Tensor:
    """``input * log(other)``, and 0 where ``input`` is 0 (unless ``other`` is nan); either
    may be a Python number."""
    return _xlogy(input, other)


def _xlog1py_self_grad(grad, x, y):
    """PyTorch's ``xlog1py(grad, other).masked_fill((self == 0) & (other <= -1), 0)``."""
    out = xlog1py(grad, y)
    if isinstance(y, (int, float)):  # the other_scalar overload
        return _masked_fill_scalar(out, x == 0, fill=0) if y <= -1 else out
    return _masked_fill_scalar(out, (x == 0) & (y <= -1), fill=0)


xlog1py = _scalar_overloads(
    "special_xlog1py",
    _xlog1py_forward,
    (
        lambda grad, x, y, result: _xlog1py_self_grad(grad, x, y),
        lambda grad, x, y, result: grad * x / (y + 1),
    ),
    "SpecialXlog1PyBackward",
    ("", "self_scalar", "other_scalar"),
)

# ----- modified Bessel functions of the first kind -----


def _tiny(x):
    return abs(x) <= float(np.finfo(values_of(x).dtype).eps)


def _safe(x):
    """x, with eps where |x| <= eps (where 1/x would overflow), as PyTorch's rules do."""
    return where(_tiny(x), float(np.finfo(values_of(x).dtype).eps), x)


def _i1_d1(x, result):
    s = _safe(x)
    return where(_tiny(x), 0.5, i0(s) - result / s)


def _i1_d2(x, result):
    s = _safe(x)
    return where(_tiny(x), 0.0, result - i0(s) / s + 2 * result / (s * s))


def _i1e_d1(x, result):
    s = _safe(x)
    return where(_tiny(x), 0.5, i0e(s) - result * (sign(s) + reciprocal(s)))


def _i1e_d2(x, result):
    s = _safe(x)
    d1 = i0e(s) - result * (sign(s) + reciprocal(s))
    second = (result - sign(s) * i0e(s)) - d1 * (sign(s) + reciprocal(s)) + result / (s * s)
    return where(_tiny(x), 0.0, second)


i0 = unary(
    "i0",
    sp.i0,
    node_name="I0Backward0",
    d1=lambda x: i1(x),
    d2=lambda x: _i1_d1(x, i1(x)),
    expose=public(inplace=True),
    plain_rules=True,
)
i0e = unary(
    "special_i0e",
    sp.i0e,
    node_name="SpecialI0EBackward0",
    saves=("self", "result"),  # its derivative reads both, as PyTorch's
    d1=lambda x, result: i1e(x) - sign(x) * result,
    d2=lambda x, result: _i1e_d1(x, i1e(x)) - sign(x) * (i1e(x) - sign(x) * result),
    plain_rules=True,
)
# Their derivatives read the input and the output: both saved, as PyTorch saves them.
i1 = unary(
    "special_i1",
    sp.i1,
    node_name="SpecialI1Backward0",
    d1=_i1_d1,
    d2=_i1_d2,
    saves=("self", "result"),
    plain_rules=True,
)
i1e = unary(
    "special_i1e",
    sp.i1e,
    node_name="SpecialI1EBackward0",
    d1=_i1e_d1,
    d2=_i1e_d2,
    saves=("self", "result"),
    plain_rules=True,
)

# ----- entropy and the normal distribution -----

entr = unary(
    "special_entr",
    sp.entr,
    node_name="SpecialEntrBackward0",
    d1=lambda x: -add_scalar(log(x), other=1),  # PyTorch's -(1 + log(x)), add.Scalar
    d2=lambda x: -x.reciprocal(),
    plain_rules=True,
)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, PyTorch's composite ``(1 + erf(x sqrt(1/2))) 0.5`` (its
    numbers as ``mul.Scalar`` / ``add.Scalar``; 0, not 1e-23, at x = -10)."""
    return mul_scalar(add_scalar(erf(mul_scalar(input, other=math.sqrt(0.5))), other=1), other=0.5)


def _ndtri_d1(x, result):
    return _SQRT_2PI * exp(result * result * 0.5)


# ndtri's and log_ndtr's gradients as derivatives.yaml writes them, op for op:
# ``grad * sqrt(2 pi) * (result^2 / 2).exp()`` and
# ``grad / sqrt(2 pi) * (result + self^2 / 2).neg().exp()``.
def _ndtri_vjp(grad, x, result):
    return mul_scalar(grad, other=_SQRT_2PI) * exp(div_scalar(result**2, other=2))


def _log_ndtr_vjp(grad, x, result):
    return div_scalar(grad, other=_SQRT_2PI) * exp(-(result + div_scalar(x**2, other=2)))


ndtri = unary(
    "special_ndtri",
    sp.ndtri,
    node_name="SpecialNdtriBackward0",
    d1=_ndtri_d1,
    d2=lambda x, result: result * _ndtri_d1(x, result) ** 2,
    vjp=_ndtri_vjp,
    plain_rules=True,
)


def _log_ndtr_d1(x, result):
    return exp(-(x * x) * 0.5 - result) / _SQRT_2PI


log_ndtr = unary(
    "special_log_ndtr",
    sp.log_ndtr,
    node_name="SpecialLogNdtrBackward0",
    saves=("self", "result"),  # its derivative reads both, as PyTorch's
    d1=_log_ndtr_d1,
    d2=lambda x, result: _log_ndtr_d1(x, result) * (-x - _log_ndtr_d1(x, result)),
    vjp=_log_ndtr_vjp,
    plain_rules=True,
)

# ----- functions PyTorch records without a derivative (results never require grad) -----


def _spherical_j0(x):
    return sp.spherical_jn(0, x).astype(x.dtype, copy=False)


def _airy_ai(x):
    return sp.airy(x)[0]


def _no_gradient(name, forward):
    return primitive(name, forward, kind=NonDifferentiable(), dtype_rule="float")


bessel_j0 = _no_gradient("special_bessel_j0", sp.j0)
bessel_j1 = _no_gradient("special_bessel_j1", sp.j1)
bessel_y0 = _no_gradient("special_bessel_y0", sp.y0)
bessel_y1 = _no_gradient("special_bessel_y1", sp.y1)
modified_bessel_i0 = _no_gradient("special_modified_bessel_i0", sp.i0)
modified_bessel_i1 = _no_gradient("special_modified_bessel_i1", sp.i1)
modified_bessel_k0 = _no_gradient("special_modified_bessel_k0", sp.k0)
modified_bessel_k1 = _no_gradient("special_modified_bessel_k1", sp.k1)
scaled_modified_bessel_k0 = _no_gradient("special_scaled_modified_bessel_k0", sp.k0e)
scaled_modified_bessel_k1 = _no_gradient("special_scaled_modified_bessel_k1", sp.k1e)
spherical_bessel_j0 = _no_gradient("special_spherical_bessel_j0", _spherical_j0)
airy_ai = _no_gradient("special_airy_ai", _airy_ai)

__all__ = exports(globals())
