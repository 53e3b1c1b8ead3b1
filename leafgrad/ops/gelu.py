"""GELU: the exact form by erf, the tanh form, and PyTorch's ``gelu_backward`` op.

PyTorch records ``GeluBackward0`` for ``gelu`` and, differentiating that, one
``GeluBackwardBackward0`` (the op ``gelu_backward``, saving the gradient and the input), not
the derivative's arithmetic. Its kernels compute in PyTorch's CPU order; float32's erf is
``_erf32``'s (SciPy's per-element float64 evaluation was 8x PyTorch's time on a GELU layer),
and with numba the float32 forward and backward are one compiled pass each (``_fused``:
the forward NumPy's passes' bits, the backward within round-off of them, its exp
``_exp32``'s; (256, 1000): 0.75 -> 0.14 ms forward, 1.28 -> 0.35 ms backward, op-gelu's
forward and backward 1.23x -> 0.99x PyTorch's time).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from .._exposure import exports, public
from . import _fused, _vml
from ._erf32 import erf32
from ._primitive import unary
from .activations import activation_backward
from .elementwise import _same_float_arrays, cosh, erf, exp, tanh

_SQRT_2 = math.sqrt(2.0)
_SQRT1_2 = math.sqrt(0.5)  # M_SQRT1_2
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)  # M_2_SQRTPI * M_SQRT1_2 * 0.5


def _gelu_forward(x, *, approximate="none"):
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
        return (0.5 * x * (1 + np.tanh(inner))).astype(x.dtype, copy=False)
    # PyTorch's order: x * 0.5 * (1 + erf(x * M_SQRT1_2))
    if _compiled_pass(x):  # one compiled pass: the same bits
        return _fused.gelu_erf(x)
    out = _gelu_erf_term(x)
    if out.dtype != x.dtype or out.shape != x.shape:
        return (x * 0.5 * out).astype(x.dtype, copy=False)
    out *= x
    out *= 0.5
    return out


def _compiled_pass(x, grad=None) -> bool:
    """Whether float32 ``x`` (and a ``grad`` of its shape) take ``_fused``'s GELU passes at any
    size (``_fused.float32_at_any_size``): ``erf32``'s NumPy passes are some 35 calls, so
    even (8, 8) costs 24 us there and 3 us compiled. (0-d ``x`` stays on NumPy's passes, which
    take SciPy's erf given a NumPy number; an empty one too, whose result has other strides
    there.) ``grad``: C-contiguous or one broadcast value."""
    return _fused.float32_at_any_size(x) and (
        grad is None or grad.flags.c_contiguous or not any(grad.strides)
    )


def _gelu_erf_term(x):
    """``1 + erf(x * M_SQRT1_2)``: a fresh array, float32's by ``_erf32`` (SciPy's erf is a
    float64 evaluation per element, 4x slower)."""
    t = np.multiply(x, _SQRT1_2)
    if type(t) is np.ndarray and t.dtype.char == "f":
        erf32(t, out=t)
    elif type(t) is np.ndarray and t.dtype.char == "d":
        sp.erf(t, out=t)  # (SciPy's float64 loop, in place)
    else:
        t = np.asarray(sp.erf(t))
    t += 1
    return t


def _gelu_d1(x, *, approximate="none"):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = tanh(k * (x + 0.044715 * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
    cdf = 0.5 * (1 + erf(x / _SQRT_2))
    return cdf + x * _INV_SQRT_2PI * exp(-0.5 * x * x)


def _gelu_d2(x, *, approximate="none"):
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        c = 0.044715
        t = tanh(k * (x + c * x * x * x))
        du = k * (1 + 3 * c * x * x)
        sech2 = 1 - t * t
        return sech2 * du - x * t * sech2 * du * du + 0.5 * x * sech2 * k * 6 * c * x
    pdf = _INV_SQRT_2PI * exp(-0.5 * x * x)
    return pdf * (2 - x * x)


def _gelu_backward_forward(grad, x, *, approximate="none"):
    """PyTorch's CPU gelu_backward: ``grad * (cdf + x * pdf)``, the exact form's ``cdf``
    ``0.5 (1 + erf(x M_SQRT1_2))`` and ``pdf`` ``exp(-x^2 / 2) / sqrt(2 pi)``."""
    if approximate == "tanh" or not _same_float_arrays(grad, x):
        d1 = _gelu_d1_array(x, approximate)
        return (grad * d1).astype(np.result_type(grad, x), copy=False)
    if _compiled_pass(x, grad):  # exp in the pass too: _exp32's, within round-off of NumPy's
        return _fused.gelu_erf_backward(grad, x)
    cdf = _gelu_erf_term(x)
    cdf *= 0.5
    pdf = np.multiply(x, x)
    pdf *= -0.5
    _vml.exp_into(pdf)
    pdf *= _INV_SQRT_2PI
    pdf *= x
    cdf += pdf
    cdf *= grad
    return cdf


def _gelu_d1_array(x, approximate):
    """GELU's first derivative on an array (the other dtypes' and the tanh form's kernel)."""
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        t = np.tanh(k * (x + 0.044715 * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x)
    cdf = 0.5 * (1 + sp.erf(x * _SQRT1_2))
    return cdf + x * (np.exp(x * x * -0.5) * _INV_SQRT_2PI)


_K_BETA_TANH = math.sqrt(2 / math.pi)  # M_SQRT2 * M_2_SQRTPI * 0.5: the same double
_KAPPA = 0.044715


def _gelu_backward_dx(gg, grad, x, approximate="none"):
    """PyTorch's ``gelu_double_backward``, op for op: ``gg grad`` times GELU's second
    derivative, each operator's right operand made first as GCC evaluates them (so the nodes
    are PyTorch's, made and run in its order)."""
    if approximate == "tanh":
        derivative = _gelu_tanh_second_derivative(x)
    else:
        x_sq = x * x
        pdf = _INV_SQRT_2PI * exp(-0.5 * x_sq)
        right = x_sq * pdf
        derivative = 2 * pdf - right
    return gg * grad * derivative


def _gelu_tanh_second_derivative(x):
    """``2 f' g h + f g' h + f g h'`` for ``f = x / 2``, ``g = 1 - tanh(u)^2``, ``h = u'``,
    ``u = k (x + kappa x^3)``, as PyTorch writes it (``g'`` by ``sech = 1 / cosh(u)``)."""
    inner = _K_BETA_TANH * (x + _KAPPA * x**3)
    tanh_inner = tanh(inner)
    sech_inner = 1 / cosh(inner)
    f = 0.5 * x
    g = 1 - tanh_inner * tanh_inner
    h = _K_BETA_TANH * (1 + 3 * _KAPPA * x * x)
    f_prime_gh = 0.5 * g * h
    minus_sech_tanh = -sech_inner * tanh_inner
    g_prime = (2 * sech_inner) * minus_sech_tanh * h
    g_prime_fh = f * h * g_prime
    h_prime = 6 * _KAPPA * x * _K_BETA_TANH
    h_prime_fg = f * g * h_prime
    return 2 * f_prime_gh + g_prime_fh + h_prime_fg


# PyTorch's gelu_backward (GeluBackwardBackward0).
gelu_backward = activation_backward(
    "gelu_backward",
    _gelu_backward_forward,
    _gelu_backward_dx,
    saves=("self", "approximate"),
    node_name="GeluBackwardBackward0",
)

_gelu = unary(
    "gelu",
    _gelu_forward,
    d1=_gelu_d1,
    d2=_gelu_d2,
    vjp=lambda grad, x, result, **params: gelu_backward(grad, x, **params),
    saves=("self", "approximate"),
    plain_rules=True,
)


@public(method=False)
def gelu(input, approximate: str = "none"):
    """Gaussian error linear unit; ``approximate="tanh"`` uses the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _gelu(input, approximate=approximate)


__all__ = exports(globals())
