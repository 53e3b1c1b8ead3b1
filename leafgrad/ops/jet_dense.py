"""``jet_dense``: a Linear layer and the activation after it on a packed jet, in one primitive.

At N = 1e4 points a layer's packed jet outgrows the caches, and ``jet_linear`` followed by
``jet_act`` writes the layer's channels ``q = p @ w`` to memory and reads them back; their
backwards write ``q``'s gradient and read it twice (for ``g w^T`` and ``p^T g``). Done
together over row blocks (``jet_blocks``), each block's ``q`` and its gradient are used while
still in cache. ``jet_dense(p, w, z) = (jet_act(q, z), q)``: ``q`` is an output too, as the
backward needs it and it is the jet of the layer's pre-activation. The backward is
``jet_dense_backward``. Both rules are the chain rule through the two primitives' own rules,
in leafgrad ops, so both stay differentiable to any order. Results equal the two primitives'
to round-off: the weight's gradient is summed over blocks.
"""

from __future__ import annotations

import numpy as np

from .._tensor import _zeros_like
from . import _gemm
from ._optable import Generic
from ._primitive import primitive
from ._tangents import tangent_sum
from .jet_activations import (
    _act_backward_forward,
    _act_backward_jvp,
    _act_backward_vjp,
    _act_forward,
    _act_jvp,
    act_backward_block,
    act_block,
    jet_act_backward,
)
from .jet_blocks import row_blocks
from .jet_kernels import (
    _active_or_none,
    _constant_rows,
    _linear_backward_forward,
    _linear_backward_jvp,
    _linear_backward_vjp,
    _linear_forward,
    _linear_vjp,
    jet_linear,
)


def dense_rows(p, w, z, live: float) -> tuple:
    """Row blocks for a layer ``p: (K, N, n) @ w: (n, m)`` with ``z: (N, m)``: those of
    ``jet_blocks.row_blocks``, or the one whole block where shapes, dtypes or a broadcast
    ``p`` (one row per channel, made once) leave nothing to block."""
    whole = (slice(None),)
    if type(z) is not np.ndarray:
        return whole
    rows = _layer_rows(p, w, live)
    if len(rows) == 1 or z.shape != (p.shape[1], w.shape[1]) or z.dtype != p.dtype:
        return whole
    return rows


def blocks_layer(p, w) -> bool:
    """Whether an activation after the layer ``p @ w`` (its input of the layer's shape and
    dtype) would take both over row blocks (``jet_dense``): ``dense_rows(..., 1)`` > 1."""
    return len(_layer_rows(p, w, 1)) > 1


def _layer_rows(p, w, live: float) -> tuple:
    """``dense_rows`` but for ``z``'s checks. One block where MKL takes the products
    (``_gemm``): whole products by MKL beat row blocks by OpenBLAS (collapsed Burgers
    N = 1e4 float64 step, one thread: ratio to PyTorch 0.69 -> 0.57, ``_mkl`` says where)."""
    whole = (slice(None),)
    if type(p) is not np.ndarray or type(w) is not np.ndarray:
        return whole
    if p.ndim != 3 or w.ndim != 2 or w.shape[0] < 2 or p.shape[2] != w.shape[0]:
        return whole
    n, m = w.shape
    rows = row_blocks(p, live * max(1.0, m / n))  # first: mostly one block, nothing to check
    if len(rows) == 1 or _constant_rows(p) or p.dtype != w.dtype or _gemm._mkl_in_use():
        return whole
    return rows


# ---------------------------------------------------------------------------------- jet_dense
def _dense_forward(p, w, z, *, fn, op_params, first, weights):
    rows = dense_rows(p, w, z, live=4)
    if len(rows) == 1:
        q = _linear_forward(p, w)
        return _act_forward(q, z, fn=fn, op_params=op_params, first=first, weights=weights), q
    active = _active_or_none(weights, p.dtype)
    q = np.empty(p.shape[:2] + w.shape[1:], p.dtype)
    out = np.empty_like(q)
    for r in rows:
        # one product per channel straight into q (a contiguous copy for one product per
        # block, then copied into q, measured 17-25% slower over the layer on a Sapphire
        # Rapids host), and the activation on that block of q while in cache
        np.matmul(p[:, r], w, out=q[:, r])
        act_block(q[:, r], z[r], fn, op_params, first, active, out[:, r])
    return out, q


def _dense_vjp(grads, p, w, z, *, result, needs, **params):
    """One ``jet_dense_backward`` when ``q`` got no gradient of its own (the usual case: the
    layer's channels go on through ``out``), else ``q``'s gradient added to the activation's
    before the Linear layer's. Missing gradients come as None (``materialize_grads=False``):
    zeros of ``q``'s size would cost a fill and a scan per layer."""
    grad, grad_q = grads
    out, q = result
    if grad is None:
        grad = _zeros_like(out)
    if (
        needs[0]
        and needs[1]
        and (grad_q is None or (not grad_q.requires_grad and not grad_q._data.any()))
    ):
        gp, gw, gz = jet_dense_backward(grad, p, w, z, q, **params)
        return gp, gw, gz if needs[2] else None
    gq, gz = jet_act_backward(grad, q, z, **params)
    if grad_q is not None:
        gq = gq + grad_q
    gp, gw = _linear_vjp(gq, p, w, result=q, needs=needs[:2])
    return gp, gw, gz if needs[2] else None


def _dense_jvp(tp, tw, tz, p, w, z, *, result, **params):
    """``t_q = t_p w + p t_w``, then the activation's tangent of ``(q, z)``."""
    out, q = result
    tq = tangent_sum(
        None if tp is None else jet_linear(tp, w), None if tw is None else jet_linear(p, tw)
    )
    return _act_jvp(tq, tz, q, z, result=out, **params), tq if tq is not None else _zeros_like(q)


# ``(p, w, z) -> (jet_act(p @ w, z), p @ w)`` for activation ``fn`` (jet_act's parameters).
jet_dense = primitive(
    "jet_dense",
    _dense_forward,
    vjp_all=_dense_vjp,
    kind=Generic(jvp=_dense_jvp),
    inputs=("p", "w", "z"),
    outputs=("out", "q"),
    saves=("p", "w", "z", "q"),
    node_name="JetDenseBackward0",
    dtype_rule="keep",
    num_outputs=2,
    materialize_grads=False,
)


# ------------------------------------------------------------------------- jet_dense_backward
def _dense_backward_forward(grad, p, w, z, q, *, fn, op_params, first, weights):
    rows = dense_rows(p, w, z, live=6)
    same = all(type(a) is np.ndarray and a.shape == q.shape for a in (grad, q))
    if len(rows) == 1 or not same or not grad.dtype == q.dtype == p.dtype:
        kw = {"fn": fn, "op_params": op_params, "first": first, "weights": weights}
        gq, gz = _act_backward_forward(grad, q, z, **kw)
        return (*_linear_backward_forward(gq, p, w), gz)
    active = _active_or_none(weights, p.dtype)
    gp, gz = np.empty(p.shape, p.dtype), np.empty(z.shape, p.dtype)
    gw = np.zeros(w.shape, p.dtype)
    wt = np.ascontiguousarray(w.T)  # OpenBLAS's small kernel is slower on a transposed one
    for r in rows:
        outs = (None, gz[r])
        gq, _ = act_backward_block(
            grad[:, r], q[:, r], z[r], fn, op_params, first, weights, active, outs
        )
        np.matmul(gq, wt, out=gp[:, r])
        gw += np.matmul(p[:, r].transpose(0, 2, 1), gq).sum(0)  # sum_k p_k^T g_k, this block
    return gp, gw, gz


def _dense_backward_vjp(grads, grad, p, w, z, q, *, result, needs, **params):
    """Cotangents of ``(g_p, g_w, g_z)``: back through jet_linear_backward, then through
    jet_act_backward (``g_q`` made again, in leafgrad ops)."""
    a_p, a_w, a_z = grads
    gq, _ = jet_act_backward(grad, q, z, **params)
    c_gq, c_p, c_w = _linear_backward_vjp(
        (a_p, a_w), gq, p, w, result=None, needs=(True, needs[1], needs[2])
    )
    c_grad, c_q, c_z = _act_backward_vjp((c_gq, a_z), grad, q, z, result=None, needs=None, **params)
    return c_grad, c_p, c_w, c_z, c_q


def _dense_backward_jvp(tg, tp, tw, tz, tq, grad, p, w, z, q, *, result, **params):
    """Tangents of ``(g_p, g_w, g_z)``: jet_act_backward's, then jet_linear_backward's."""
    gq, gz = jet_act_backward(grad, q, z, **params)
    t_gq, t_gz = _act_backward_jvp(tg, tq, tz, grad, q, z, result=(gq, gz), **params)
    t_gp, t_gw = _linear_backward_jvp(t_gq, tp, tw, gq, p, w, result=result[:2])
    return t_gp, t_gw, t_gz


# jet_dense's backward: ``(g_p, g_w, g_z)`` from the gradient of its ``out``, in one pass over
# row blocks (each block's g_q used while in cache).
jet_dense_backward = primitive(
    "jet_dense_backward",
    _dense_backward_forward,
    vjp_all=_dense_backward_vjp,
    kind=Generic(jvp=_dense_backward_jvp),
    inputs=("grad", "p", "w", "z", "q"),
    saves=("grad", "p", "w", "z", "q"),
    node_name="JetDenseBackwardBackward0",
    dtype_rule="keep",
    num_outputs=3,
)


__all__: list = []
