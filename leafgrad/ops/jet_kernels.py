"""The two primitives of the fused Taylor path: a Linear layer and an activation, on packed jets.

A packed jet (``fused_jets``) stacks a tensor's derivative channels on a new leading axis:
``p[:first]`` are first derivatives along ``first`` directions ``J_k`` and ``p[first:]``
second-order channels ``L_s``, each carrying ``sum_k W[s, k] (second derivative along q_k)``
(``W = weights``, an (S, first) matrix). Through ``y = f(x)`` elementwise the channels follow

    J'_k = f'(x) J_k        L'_s = f'(x) L_s + f''(x) Q_s,   Q_s = sum_k W[s, k] J_k^2

and through ``x @ w`` every channel is multiplied by ``w``. Each is one primitive doing a few
large NumPy calls, instead of one recorded op per coefficient's arithmetic. The rules are in
leafgrad ops, so both stay differentiable to any order (``f'`` and ``f''`` come in as tensors
computed by the activation's own ``d1``/``d2`` rules, which carry the dependence on ``x``).
A Linear layer's backward is one primitive too (``jet_linear_backward``: the channels' and
the weight's gradients by two matrix products, one node), its own rules again in leafgrad ops.
"""

from __future__ import annotations

import functools

import numpy as np

from .._tensor import Tensor, _wrap, _zeros_like
from . import _fused_jets, _gemm, _sums, jet_blocks
from ._optable import Bilinear, Generic
from ._primitive import primitive
from ._tangents import tangent_sum
from .joining import cat
from .linalg import mm, t
from .shape import reshape


def _weight_array(weights, dtype) -> np.ndarray:
    return np.asarray(weights, dtype=dtype).reshape(len(weights), -1)


def _is_identity(w: np.ndarray) -> bool:
    n = w.shape[0]
    if n != w.shape[1]:
        return False
    if n == 1:  # one direction weighed once (a hot case): no identity matrix to build
        return bool(w[0, 0] == 1)
    return np.array_equal(w, np.eye(n))


def _active(w: np.ndarray):
    """The directions some second-order row weighs (a slice when contiguous), and their
    columns of ``w``: zero-weighted directions need no squares and no curvature terms."""
    cols = np.flatnonzero(np.any(w != 0, axis=0))
    if len(cols) and cols[-1] - cols[0] + 1 == len(cols):
        cols = slice(int(cols[0]), int(cols[-1]) + 1)
    return cols, w[:, cols]


def _mix_arrays(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``out[s] = sum_k w[s, k] x[k]``: (S, ...) from (D, ...).

    May return ``x``, a view of it or a result with one row to broadcast (when every row is
    the same): callers write only into results of their own temporaries.
    """
    rows, cols = w.shape
    if _is_identity(w):
        return x
    if cols == 1:  # every row a multiple of x[0] (e.g. W^T for one collapsed row)
        return x if np.all(w == 1) else w.reshape((rows,) + (1,) * (x.ndim - 1)) * x
    if rows == 1:  # one weighted sum, without a matrix product's overhead
        terms = [(k, float(w[0, k])) for k in range(cols) if w[0, k] != 0]
        if len(terms) == 1 and terms[0][1] == 1:
            return x[terms[0][0] : terms[0][0] + 1]
        k, wk = terms[0]
        out = x[k : k + 1] * wk
        for k, wk in terms[1:]:
            out += x[k] if wk == 1 else x[k] * wk
        return out
    return np.matmul(w, x.reshape(cols, -1)).reshape((rows,) + x.shape[1:])


def _mix(w: np.ndarray, x: Tensor) -> Tensor:
    """``_mix_arrays`` in leafgrad ops (``w`` a constant)."""
    if _is_identity(w):
        return x
    shape = x._data.shape
    flat = reshape(x, (shape[0], -1))
    return reshape(mm(_wrap(w.astype(x._data.dtype, copy=False)), flat), (w.shape[0],) + shape[1:])


def _channel_dot(a: np.ndarray, b: np.ndarray, out=None) -> np.ndarray:
    """``sum_c a[c] * b[c]`` without a (C, ...) temporary (and faster than ``.sum(0)``)."""
    if len(a) == 1:  # one product: einsum's setup costs more than it
        return np.multiply(a[0], b[0], out=out)
    return np.einsum("c...,c...->...", a, b, out=out)


@functools.lru_cache(maxsize=64)
def _active_weights(weights: tuple, dtype) -> tuple:
    """``_active`` of the weight matrix, its transpose made contiguous, whether it is one
    row of ones (a Laplacian), whether it is the identity (nothing to mix: one weighed
    direction, e.g. Burgers' u_xx) and the active directions' indices (the compiled loops'
    operand, and as a tuple the key of the loops compiled for them), per (weights, dtype):
    the same few layouts every layer of every step (read-only arrays, but for the indices:
    numba compiles read-only ones anew)."""
    full = _weight_array(weights, dtype)
    sel, w = _active(full)
    wt = np.ascontiguousarray(w.T)
    w.flags.writeable = wt.flags.writeable = False
    ones = w.shape[0] == 1 and w.shape[1] > 1 and bool(np.all(w == 1))
    directions = np.arange(full.shape[1])[sel]
    identity = bool(w.size) and _is_identity(w)
    return sel, w, wt, ones, identity, directions, tuple(int(k) for k in directions)


def _active_or_none(weights: tuple, dtype):
    """``_active_weights``, or None when no second-order row weighs any direction."""
    if not weights:
        return None
    active = _active_weights(weights, dtype)
    return active if active[1].size else None


# ---------------------------------------------------------------------------- jet_linear
def _constant_rows(p) -> bool:
    """Whether ``p: (K, N, n)`` repeats one row per channel (a broadcast seed, e.g. the unit
    directions ``taylor.collapsed`` starts from): its products then need one row each."""
    return p.ndim == 3 and p.shape[1] > 1 and p.strides[1] == 0


def _own_rows(p):
    """``p``, or where it repeats one row per channel (the first layer's channels, mapped
    from a broadcast seed) the same values in rows of their own: an elementwise pass reading
    a broadcast operand runs about 3x slower (NumPy's inner loops span one row). The copy
    lives as long as the kernel that makes it; the broadcast channels are what is saved."""
    return np.repeat(p[:, :1], p.shape[1], axis=1) if _constant_rows(p) else p


def _linear_forward(p, w):
    n, m = w.shape
    if _constant_rows(p):  # every row of a channel is the same: (K, 1, n) @ w, broadcast
        return np.broadcast_to(np.matmul(p[:, :1], w), p.shape[:-1] + (m,))
    if n == 1:  # an outer product (a 1-output layer's backward): one broadcast product,
        return np.multiply(p, w[0])  # far cheaper than a GEMM with inner size 1, and exact
    return _gemm.matmul(p.reshape(-1, n), w).reshape(p.shape[:-1] + (m,))


def _outer_forward(p, g):
    if _constant_rows(p):  # sum_k p_k^T (sum of g_k's rows): no (n, K*N) product
        return np.matmul(p[:, 0].T, _sums.over_middle(g))
    return _gemm.matmul(p.reshape(-1, p.shape[-1]).T, g.reshape(-1, g.shape[-1]))


# ``p: (K, ..., n) @ w: (n, m)`` as one (K*..., n) x (n, m) product. Bilinear, so its forward
# and Taylor rules are the product rule and Cauchy products with itself.
def _linear_vjp(grad, p, w, *, result, needs):
    """Both gradients by one ``jet_linear_backward``; one of them by its own product. In a
    plain rule (arrays) the products themselves: each op there would only call them."""
    if type(grad) is np.ndarray:
        gp = _linear_forward(grad, w.T) if needs[0] else None
        return gp, _outer_forward(p, grad) if needs[1] else None
    if needs[0] and needs[1]:
        return jet_linear_backward(grad, p, w)
    if needs[0]:
        return jet_linear(grad, t(w)), None
    return None, jet_outer(p, grad)


jet_linear = primitive(
    "jet_linear",
    _linear_forward,
    vjp_all=_linear_vjp,
    kind=Bilinear(),
    inputs=("p", "w"),
    saves=("w if p", "p if w"),
    node_name="JetLinearBackward0",
    dtype_rule="keep",
    plain_rules=True,
)

# ``sum_r p_r^T g_r`` over every row of ``p: (..., n)`` and ``g: (..., m)``: jet_linear's
# gradient for its weight, one (n, K*...) x (K*..., m) product.
jet_outer = primitive(
    "jet_outer",
    _outer_forward,
    (
        lambda grad, p, g, result: jet_linear(g, t(grad)),
        lambda grad, p, g, result: jet_linear(p, grad),
    ),
    kind=Bilinear(),
    inputs=("p", "g"),
    saves=("g if p", "p if g"),
    node_name="JetOuterBackward0",
    dtype_rule="keep",
)


# -------------------------------------------------------------------- jet_linear_backward
def _linear_backward_forward(grad, p, w):
    """``(grad @ w^T, p^T grad)``: both of jet_linear's gradients, two matrix products."""
    return _linear_forward(grad, w.T), _outer_forward(p, grad)


def _linear_backward_vjp(grads, grad, p, w, *, result, needs):
    """Cotangents ``(a, c)`` of ``(g_p, g_w) = (grad w^T, p^T grad)``, to every input."""
    a, c = grads
    out_grad = jet_linear(a, w) + jet_linear(p, c) if needs[0] else None
    out_p = jet_linear(grad, t(c)) if needs[1] else None
    out_w = jet_outer(a, grad) if needs[2] else None
    return out_grad, out_p, out_w


def _linear_backward_jvp(tg, tp, tw, grad, p, w, *, result):
    """Tangents of ``(grad w^T, p^T grad)``: the product rule on each."""
    gp = tangent_sum(
        None if tg is None else jet_linear(tg, t(w)),
        None if tw is None else jet_linear(grad, t(tw)),
    )
    gw = tangent_sum(
        None if tp is None else jet_outer(tp, grad), None if tg is None else jet_outer(p, tg)
    )
    return (
        gp if gp is not None else _zeros_like(result[0]),
        gw if gw is not None else _zeros_like(result[1]),
    )


# jet_linear's backward when both its inputs want a gradient (every layer but the first):
# one node and no transpose op, the gradients of the channels and the weight together.
jet_linear_backward = primitive(
    "jet_linear_backward",
    _linear_backward_forward,
    vjp_all=_linear_backward_vjp,
    kind=Generic(jvp=_linear_backward_jvp),
    inputs=("grad", "p", "w"),
    saves=("grad", "p if grad", "w if grad"),
    node_name="JetLinearBackwardBackward0",
    dtype_rule="keep",
    num_outputs=2,
)


# ----------------------------------------------------------------------------- jet_unary
def _squares(p, active) -> np.ndarray:
    """``Q = W (J^2)`` over the active directions of ``p`` (``active``: ``_active_or_none``):
    a fresh array, (S, ...) or (1, ...) to broadcast over the rows."""
    sel, w, _, ones, identity, _, _ = active
    j = p[sel]
    if ones:  # one sum of squares for a Laplacian, without the squares' temporary
        return _channel_dot(j, j)[None]
    if identity:
        return np.square(j)
    return _mix_arrays(w, np.square(j))


def _unary_block(p, d1, d2, first, active, out=None):
    """jet_unary's forward on one block of rows (``active``: ``_active_or_none``), into
    ``out`` when given."""
    if _fused_jets.takes(p, active, d1, d2):
        return _fused_jets.unary_block(p, d1, d2, first, active, out)
    out = np.multiply(p, d1, out=out)
    if active is not None:
        q = _squares(p, active)
        q *= d2  # q is (a view of) a fresh array
        out[first:] += q
    return out


def _unary_forward(p, d1, d2, *, first, weights):
    active = _active_or_none(weights, p.dtype)
    p = _own_rows(p)

    def block(p, d1, d2, out=None):
        return _unary_block(p, d1, d2, first, active, out)

    return jet_blocks.forward_blocked(block, p, (d1, d2), live=2.5)


def _unary_vjp(grad, p, d1, d2, *, result, needs, first, weights):
    outs = jet_unary_backward(grad, p, d1, d2, first=first, weights=weights)
    return tuple(o if n else None for o, n in zip(outs, needs))


def _unary_jvp(tp, td1, td2, p, d1, d2, *, result, first, weights):
    """Tangent of ``[d1 J; d1 L + d2 Q(J)]``: product rule, ``dQ = W (2 J dJ)``."""
    out = tangent_sum(None if tp is None else tp * d1, None if td1 is None else p * td1)
    if not weights or (tp is None and td2 is None):
        return out if out is not None else _zeros_like(result)
    w = _weight_array(weights, p._data.dtype)
    j = p[:first]
    extra = tangent_sum(
        None if tp is None else _mix(w, j * tp[:first]) * (d2 * 2.0),
        None if td2 is None else _mix(w, j * j) * td2,
    )
    head = None if out is None else out[:first]
    return _join(first, head, tangent_sum(None if out is None else out[first:], extra), p[first:])


# ``(p, f'(x), f''(x)) -> p'``: every channel of an elementwise function's packed jet at once.
jet_unary = primitive(
    "jet_unary",
    _unary_forward,
    vjp_all=_unary_vjp,
    kind=Generic(jvp=_unary_jvp),
    inputs=("p", "d1", "d2"),
    saves=("p", "d1", "d2"),
    node_name="JetUnaryBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


# ---------------------------------------------------------------------- jet_unary_backward
# With R = W^T gL (one per direction), jet_unary's gradients are
#   g_J = d1 gJ + 2 d2 R J,  g_L = d1 gL,  g_d1 = sum_c g_c p_c,  g_d2 = sum_k R_k J_k^2.
def _backward_block(grad, p, d1, d2x2, first, active, outs=(None, None, None)):
    """jet_unary_backward's forward on one block of rows, into ``outs`` where given, from
    ``d2x2 = 2 d2`` (doubling is exact: the factor is taken once per point, not once per
    direction); its ``g_d2`` is None when ``active`` is (no second-order row weighs a
    direction)."""
    if _fused_jets.takes(p, active, d1, d2x2, jets=(grad,)):
        d2x2 = d1 if d2x2 is None else d2x2  # (unread without ``active``)
        return _fused_jets.unary_backward_block(grad, p, d1, d2x2, first, active, outs)
    gp = np.multiply(grad, d1, out=outs[0])
    gd1 = _channel_dot(grad, p, out=outs[1])
    if active is None:
        return gp, gd1, None
    sel, _, wt, ones, identity, _, _ = active
    j = p[sel]
    r = grad[first:] if ones or identity else _mix_arrays(wt, grad[first:])
    if ones:  # R = g_L for every direction: g_d2 = R sum_k J_k^2, and R 2 d2 once
        gd2 = np.multiply(r[0], _channel_dot(j, j), out=outs[2])
        r2 = np.multiply(r[0], d2x2)
        gp[sel] += j * r2
        return gp, gd1, gd2
    rj = r * j
    gd2 = _channel_dot(rj, j, out=outs[2])
    rj *= d2x2
    gp[sel] += rj
    return gp, gd1, gd2


def _backward_forward(grad, p, d1, d2, *, first, weights):
    active = _active_or_none(weights, p.dtype)
    p = _own_rows(p)

    def block(grad, p, d1, d2, outs=(None, None, None)):
        d2x2 = None if active is None else np.multiply(d2, 2)
        return _backward_block(grad, p, d1, d2x2, first, active, outs)

    gp, gd1, gd2 = jet_blocks.backward_blocked(block, grad, p, (d1, d2), active is not None, live=4)
    return gp, gd1, np.zeros_like(d2) if gd2 is None else gd2


def _backward_vjp(grads, grad, p, d1, d2, *, result, needs, first, weights):
    """Cotangents ``(a, b, c)`` of ``(g_p, g_d1, g_d2)``, pulled back to every input."""
    a, b, c = grads
    out_g = a * d1 + b * p
    out_p = grad * b
    out_d1 = (a * grad).sum(0)
    if not weights:
        return out_g, out_p, out_d1, None
    w = _weight_array(weights, p._data.dtype)
    j, a_j = p[:first], a[:first]
    r = _mix(np.ascontiguousarray(w.T), grad[first:])
    extra_g = _mix(w, j * (a_j * (d2 * 2.0) + c * j))  # through R = W^T gL
    extra_p = r * (a_j * d2 + c * j) * 2.0
    out_g = cat([out_g[:first], out_g[first:] + extra_g])
    out_p = cat([out_p[:first] + extra_p, out_p[first:]])
    out_d2 = (a_j * r * j).sum(0) * 2.0
    return out_g, out_p, out_d1, out_d2


def _backward_jvp(tg, tp, td1, td2, grad, p, d1, d2, *, result, first, weights):
    """Tangents of ``(g_p, g_d1, g_d2)``: the product rule on each term."""
    gp = tangent_sum(None if tg is None else tg * d1, None if td1 is None else grad * td1)
    gd1 = tangent_sum(
        None if tg is None else (tg * p).sum(0), None if tp is None else (grad * tp).sum(0)
    )
    if not weights:
        return (
            gp if gp is not None else _zeros_like(result[0]),
            gd1 if gd1 is not None else _zeros_like(result[1]),
            _zeros_like(result[2]),
        )
    w = np.ascontiguousarray(_weight_array(weights, p._data.dtype).T)
    j = p[:first]
    r = _mix(w, grad[first:])
    tr = None if tg is None else _mix(w, tg[first:])
    tj = None if tp is None else tp[:first]
    # g_J's extra term 2 d2 R J and g_d2 = sum_k R_k J_k^2, differentiated factor by factor
    extra = tangent_sum(
        None if tr is None else tr * j * d2,
        None if td2 is None else r * j * td2,
        None if tj is None else r * tj * d2,
    )
    gd2 = tangent_sum(
        None if tr is None else (tr * j * j).sum(0),
        None if tj is None else (r * j * tj).sum(0) * 2.0,
    )
    head = tangent_sum(None if gp is None else gp[:first], None if extra is None else extra * 2.0)
    tail = None if gp is None else gp[first:]
    return (
        _join(first, head, tail, result[0][first:]),
        gd1 if gd1 is not None else _zeros_like(result[1]),
        gd2 if gd2 is not None else _zeros_like(result[2]),
    )


def _join(first, head, tail, like_tail):
    """``cat([head, tail])`` along the channels, zeros for a missing part."""
    if head is None and tail is None:
        return None
    if head is None:
        head = _wrap(np.zeros((first,) + tail._data.shape[1:], tail._data.dtype))
    if tail is None:
        tail = _zeros_like(like_tail)
    return cat([head, tail])


jet_unary_backward = primitive(
    "jet_unary_backward",
    _backward_forward,
    vjp_all=_backward_vjp,
    kind=Generic(jvp=_backward_jvp),
    inputs=("grad", "p", "d1", "d2"),
    saves=("grad", "p", "d1", "d2"),
    node_name="JetUnaryBackwardBackward0",
    dtype_rule="keep",
    num_outputs=3,
)


__all__: list = []
