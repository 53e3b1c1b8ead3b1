"""``jet_act``: the common activations' packed jets in one primitive, derivatives included.

``jet_unary(p, f', f'')`` needs ``f'`` and ``f''`` as tensors, a few recorded ops per layer
(and their saved temporaries). For the activations PINNs use, ``f'`` and ``f''`` are short
formulas of one variable ``z`` (the output ``y`` for tanh, sigmoid and exp, the input ``x``
otherwise), so ``jet_act(p, z)`` evaluates them inside its NumPy kernel and saves only
``p`` and ``z``. The table gives, per activation, ``(D1, D2)`` (= ``f'``, ``f''`` as
functions of ``z``) and their first and second ``z``-derivatives, each formula written once
for NumPy arrays and leafgrad tensors alike (``xp`` names the functions it calls). The
backward is the primitive ``jet_act_backward``; its own rules are in leafgrad ops, so both
stay differentiable to any order.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from . import _fused, _fused_jets, _vml, elementwise, jet_blocks, piecewise
from ._erf32 import erf32
from ._optable import Generic
from ._primitive import primitive
from .jet_kernels import (
    _active_or_none,
    _backward_block,
    _backward_jvp,
    _backward_vjp,
    _mix,
    _own_rows,
    _unary_block,
    _unary_jvp,
    _weight_array,
)

_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _erf_any(x):
    """erf of an array: float32's by ``_erf32``'s rational function, in one compiled pass
    where numba is (SciPy's evaluates each float32 element in float64, Cephes: a quarter of a
    GELU network's collapsed Burgers step, N = 1e4), SciPy's for the other dtypes."""
    if _fused.float32_at_any_size(x):
        return _fused.erf32(x)
    if type(x) is np.ndarray and x.dtype.char == "f":
        return erf32(x)
    return sp.erf(x)


class _Arrays:
    """The functions the formulas call, on NumPy arrays (the kernels)."""

    exp, cos, sin, erf = _vml.exp_any, _vml.cos_any, _vml.sin_any, _erf_any
    sigmoid = elementwise.sigmoid_any
    where = np.where


class _Tensors:
    """The same on leafgrad tensors (the rules)."""

    exp, cos, sin = elementwise.exp, elementwise.cos, elementwise.sin
    sigmoid, erf = elementwise.sigmoid, elementwise.erf
    where = piecewise.where


# Each: ``(xp, z, n, **params) -> [(D1, D2), (D1', D2'), (D1'', D2'')][:n]``, computing
# only the pairs asked for (the forward kernel needs one, the backward two).
def _tanh(xp, y, n):
    s = 1 - y * y
    pairs = [(s, -2 * (y * s))]
    if n > 1:
        pairs.append((-2 * y, 6 * (y * y) - 2))
    if n > 2:
        pairs.append((-2.0, 12 * y))
    return pairs


def _sigmoid(xp, y, n):
    q = y * (1 - y)
    pairs = [(q, q * (1 - 2 * y))]
    if n > 1:
        pairs.append((1 - 2 * y, 1 - 6 * q))
    if n > 2:
        pairs.append((-2.0, 12 * y - 6))
    return pairs


def _exp(xp, y, n):
    return [(y, y), (1.0, 1.0), (0.0, 0.0)][:n]


def _sin(xp, x, n):
    c, s = xp.cos(x), xp.sin(x)
    return _rotating(c, -s, n)


def _cos(xp, x, n):
    c, s = xp.cos(x), xp.sin(x)
    return _rotating(-s, -c, n)


def _rotating(d1, d2, n):
    """sin and cos: each derivative is the one two before, negated."""
    pairs = [(d1, d2)]
    if n > 1:
        pairs.append((d2, -d1))
    if n > 2:
        pairs.append((-d1, -d2))
    return pairs


def _softplus(xp, x, n, beta=1.0, threshold=20.0):
    bx = x * beta
    s = xp.sigmoid(bx)
    q = s * (1 - s)
    linear = bx > threshold  # PyTorch's softplus is x there: derivatives 1, 0, 0 ...

    def curved(d):
        return xp.where(linear, 0.0, d)

    d2 = curved(beta * q)
    pairs = [(xp.where(linear, 1.0, s), d2)]
    if n > 1:
        d3 = curved(beta * beta * (q * (1 - 2 * s)))
        pairs.append((d2, d3))
    if n > 2:
        pairs.append((d3, curved(beta**3 * (q * (1 - 6 * q)))))
    return pairs


def _gelu(xp, x, n, approximate="none"):
    phi = xp.exp(x * x * -0.5) * _INV_SQRT_2PI
    x2 = x * x
    d2 = phi * (2 - x2)
    pairs = [((1 + xp.erf(x * (1 / math.sqrt(2)))) * 0.5 + x * phi, d2)]
    if n > 1:
        d3 = phi * (x * (x2 - 4))
        pairs.append((d2, d3))
    if n > 2:
        pairs.append((d3, phi * ((7 - x2) * x2 - 4)))
    return pairs


def _silu(xp, x, n):
    # silu = x s(x): its k-th derivative is x s^(k) + k s^(k-1).
    s = xp.sigmoid(x)
    q = s * (1 - s)
    s2 = q * (1 - 2 * s)
    d2 = x * s2 + 2 * q
    pairs = [(x * q + s, d2)]
    if n > 1:
        s3 = q * (1 - 6 * q)
        d3 = x * s3 + 3 * s2
        pairs.append((d2, d3))
    if n > 2:
        pairs.append((d3, x * (s2 * (1 - 12 * q)) + 4 * s3))
    return pairs


# Registry key -> (formulas, whether z is the op's result (else its input), the params the
# formulas follow: name -> the one value they cover, or None for any value).
_TABLE = {
    "tanh": (_tanh, True, {}),
    "sigmoid": (_sigmoid, True, {}),
    "exp": (_exp, True, {}),
    "sin": (_sin, False, {}),
    "cos": (_cos, False, {}),
    "softplus": (_softplus, False, {"beta": None, "threshold": None}),
    "gelu": (_gelu, False, {"approximate": "none"}),
    "silu": (_silu, False, {}),
}


# The activations whose z is their output (jet_act_value fuses the op and its jet for them).
TAKES_RESULT = frozenset(key for key, entry in _TABLE.items() if entry[1])


def variable(key: str, params: dict):
    """``"result"`` or ``"input"``: what ``jet_act`` takes as ``z`` for this op and params,
    or None when the table has no formulas for them (then ``jet_unary`` is used)."""
    entry = _TABLE.get(key)
    if entry is None:
        return None
    for name, value in params.items():
        if name not in entry[2] or entry[2][name] not in (None, value):
            return None
    return "result" if entry[1] else "input"


def _tanh_arrays(y, n, d2_scale=-2):
    """``_tanh`` on arrays with fewer passes and temporaries (a hot kernel): ``1 - y^2``
    once, the rest from it in place (``6 y^2 - 2 = 4 - 6 (1 - y^2)``). The second
    derivative comes as ``d2_scale y (1 - y^2)``: -2 gives ``D2``, -4 twice it (same cost)."""
    s = np.multiply(y, y)
    np.subtract(1, s, out=s)
    d2 = np.multiply(y, s)
    d2 *= d2_scale
    pairs = [(s, d2)]
    if n > 1:
        e2 = np.multiply(s, -6)
        e2 += 4
        pairs.append((np.multiply(y, -2), e2))
    if n > 2:
        pairs.append((-2.0, np.multiply(y, 12)))
    return pairs


# The formulas on arrays that ``_fused``'s passes take (float32 and float64, C-contiguous):
# their exp (and float64 GELU's erf) by the formula's own functions, the rest in one
# compiled pass of the same operations, so the same bits, a dozen NumPy passes fewer (SiLU-
# network Burgers step, N = 1e4 float32, collapsed: 0.73 -> 0.57 of PyTorch's time).
def _pairs_of(d: tuple, n: int) -> list:
    return [(d[0], d[1])] if n == 1 else [(d[0], d[1]), (d[1], d[2])]


def _silu_arrays(x, n):
    """``_silu`` on arrays: the sigmoid's exp inlined in float32 (``sigmoid32``'s)."""
    if n < 3 and _fused.fusable(x):
        if x.dtype.char == "f":
            return _pairs_of(_fused.silu_derivatives32(x, n > 1), n)
        return _pairs_of(_fused.silu_derivatives(x, elementwise._exp_negative(x, 1), n > 1), n)
    return _silu(_Arrays, x, n)


def _softplus_arrays(x, n, beta=1.0, threshold=20.0):
    """``_softplus`` on arrays, as ``_silu_arrays``."""
    if n < 3 and _fused.fusable(x):
        if x.dtype.char == "f":
            return _pairs_of(_fused.softplus_derivatives32(x, n > 1, beta, threshold), n)
        bx = np.multiply(x, beta)
        e = elementwise._exp_negative(bx, 1)
        return _pairs_of(_fused.softplus_derivatives(bx, e, n > 1, beta, threshold), n)
    return _softplus(_Arrays, x, n, beta, threshold)


def _gelu_arrays(x, n, approximate="none"):
    """``_gelu`` on arrays: its exp by VML as the formula's; erf inlined in float32
    (``erf32``'s), SciPy's first in float64."""
    if n < 3 and _fused.fusable(x):
        e = np.multiply(x, x)
        e *= -0.5
        _vml.exp_into(e, 1)
        if x.dtype.char == "f":
            return _pairs_of(_fused.gelu_derivatives32(x, e, n > 1), n)
        r = _erf_any(x * (1 / math.sqrt(2)))
        return _pairs_of(_fused.gelu_derivatives_given(x, e, r, n > 1), n)
    return _gelu(_Arrays, x, n, approximate)


_ARRAY_FORMULAS = {
    "tanh": _tanh_arrays,
    "silu": _silu_arrays,
    "softplus": _softplus_arrays,
    "gelu": _gelu_arrays,
}


def _pairs(xp, z, n, fn, op_params):
    if xp is _Arrays and fn in _ARRAY_FORMULAS:
        return _ARRAY_FORMULAS[fn](z, n, **dict(op_params))
    return _TABLE[fn][0](xp, z, n, **dict(op_params))


def _backward_pairs(z, fn, op_params, second: bool):
    """``(D1, 2 D2), (D1', D2')`` on arrays for the backward kernels (``2 D2`` None unless
    ``second``): doubling is exact, so the result is the same as doubling later."""
    if fn == "tanh":
        return _tanh_arrays(z, 2, -4)
    (d1, d2), e = _pairs(_Arrays, z, 2, fn, op_params)
    return (d1, np.multiply(d2, 2) if second else None), e


# ---------------------------------------------------------------------------------- jet_act
def act_block(p, z, fn, op_params, first, active, out=None):
    """jet_act's forward on one block of rows (its derivatives made there, used while in
    cache), into ``out`` when given."""
    act = _fused_jets.FROM_RESULT.get(fn)
    if act is not None and _fused_jets.takes(p, active, z):  # derivatives in the loop
        return _fused_jets.result_block(p, z, act, first, active, out)
    ((d1, d2),) = _pairs(_Arrays, z, 1, fn, op_params)
    return _unary_block(p, d1, d2, first, active, out)


def _act_forward(p, z, *, fn, op_params, first, weights):
    active = _active_or_none(weights, p.dtype)
    p = _own_rows(p)

    def block(p, z, out=None):
        return act_block(p, z, fn, op_params, first, active, out)

    return jet_blocks.forward_blocked(block, p, (z,), live=3)


def _act_vjp(grad, p, z, *, result, needs, **params):
    gp, gz = jet_act_backward(grad, p, z, **params)
    return gp if needs[0] else None, gz if needs[1] else None


def _act_jvp(tp, tz, p, z, *, result, fn, op_params, first, weights):
    (d1, d2), (e1, e2) = _pairs(_Tensors, z, 2, fn, op_params)
    td1, td2 = (None, None) if tz is None else (e1 * tz, e2 * tz)
    return _unary_jvp(tp, td1, td2, p, d1, d2, result=result, first=first, weights=weights)


# ``(p, z) -> p'``: ``jet_unary(p, D1(z), D2(z))`` for activation ``fn`` with ``op_params``.
jet_act = primitive(
    "jet_act",
    _act_forward,
    vjp_all=_act_vjp,
    kind=Generic(jvp=_act_jvp),
    inputs=("p", "z"),
    saves=("p", "z"),
    node_name="JetActBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


# ------------------------------------------------------------------------- jet_act_backward
def act_backward_block(grad, p, z, fn, op_params, first, weights, active, outs=(None, None)):
    """jet_act_backward's forward on one block of rows, into ``outs`` where given:
    ``(g_p, g_z)``."""
    act = _fused_jets.FROM_RESULT.get(fn)
    if act is not None and _fused_jets.takes(p, active, z, jets=(grad,)):
        return _fused_jets.result_backward_block(
            grad, p, z, act, first, active, bool(weights), outs
        )
    (d1, d2x2), (e1, e2) = _backward_pairs(z, fn, op_params, active is not None)
    gp, gz, gd2 = _backward_block(grad, p, d1, d2x2, first, active, (*outs, None))
    gz *= e1  # g_d1 is fresh (or ours): g_z = g_d1 D1' + g_d2 D2' written into it
    if weights:
        gd2 = np.zeros_like(d1) if gd2 is None else gd2  # as jet_unary_backward's
        gd2 *= e2
        gz += gd2
    return gp, gz


def _act_backward_forward(grad, p, z, *, fn, op_params, first, weights):
    active = _active_or_none(weights, p.dtype)
    p = _own_rows(p)

    def block(grad, p, z, outs=(None, None, None)):
        outs = outs[:2]
        return (*act_backward_block(grad, p, z, fn, op_params, first, weights, active, outs), None)

    gp, gz, _ = jet_blocks.backward_blocked(block, grad, p, (z,), False, live=4.5)
    return gp, gz.astype(p.dtype, copy=False)


def _channel_sums(grad, p, first, weights):
    """jet_unary's ``g_d1`` and ``g_d2`` again, in leafgrad ops (``g_d2`` None without S)."""
    gd1 = (grad * p).sum(0)
    if not weights:
        return gd1, None
    w = np.ascontiguousarray(_weight_array(weights, p._data.dtype).T)
    j = p[:first]
    return gd1, (_mix(w, grad[first:]) * (j * j)).sum(0)


def _act_backward_vjp(grads, grad, p, z, *, result, needs, fn, op_params, first, weights):
    """Cotangents ``(a, e)`` of ``(g_p, g_z)``, ``g_z = g_d1 D1' + g_d2 D2'``."""
    a, e = grads
    (d1, d2), (e1, e2), (f1, f2) = _pairs(_Tensors, z, 3, fn, op_params)
    out_g, out_p, out_d1, out_d2 = _backward_vjp(
        (a, e * e1, e * e2), grad, p, d1, d2, result=None, needs=None, first=first, weights=weights
    )
    gd1, gd2 = _channel_sums(grad, p, first, weights)
    out_z = out_d1 * e1 + e * (gd1 * f1)
    if weights:
        out_z = out_z + out_d2 * e2 + e * (gd2 * f2)
    return out_g, out_p, out_z


def _act_backward_jvp(tg, tp, tz, grad, p, z, *, result, fn, op_params, first, weights):
    (d1, d2), (e1, e2), (f1, f2) = _pairs(_Tensors, z, 3, fn, op_params)
    td1, td2 = (None, None) if tz is None else (e1 * tz, e2 * tz)
    shapes = (result[0], result[1], result[1])
    t_gp, t_gd1, t_gd2 = _backward_jvp(
        tg, tp, td1, td2, grad, p, d1, d2, result=shapes, first=first, weights=weights
    )
    t_gz = t_gd1 * e1
    if tz is not None:
        gd1, gd2 = _channel_sums(grad, p, first, weights)
        t_gz = t_gz + gd1 * f1 * tz
        if weights:
            t_gz = t_gz + gd2 * f2 * tz
    if weights:
        t_gz = t_gz + t_gd2 * e2
    return t_gp, t_gz


jet_act_backward = primitive(
    "jet_act_backward",
    _act_backward_forward,
    vjp_all=_act_backward_vjp,
    kind=Generic(jvp=_act_backward_jvp),
    inputs=("grad", "p", "z"),
    saves=("grad", "p", "z"),
    node_name="JetActBackwardBackward0",
    dtype_rule="keep",
    num_outputs=2,
)


__all__: list = []
