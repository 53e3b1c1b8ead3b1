"""Fused Taylor nodes that give an op's value and its packed jet together.

On the fused Taylor path each op of a PINN's network was two nodes: the op's own, for its
value, and a jet primitive for its channels (``jet_linear`` for ``h @ w``, ``jet_act`` for
an activation). Their backwards were two nodes too, and the gradients of the operands they
share summed between them. Here one primitive gives both outputs:

- ``jet_linear_value(h, p, w) = (h @ w, p @ w)``: mm's forward and rules for the value,
  jet_linear's for the channels; the weight's two gradients summed in the node.
  ``jet_addmm_value(b, h, p, w)`` likewise for nn.Linear's ``addmm(b, h, w)``.
- ``jet_act_value(x, p) = (f(x), jet_act(p, f(x)))`` for the activations whose derivatives
  jet_act writes in their output ``y`` (tanh, sigmoid, exp): the backward sends ``g_y + g_z``
  (``g_z``: jet_act's gradient in ``y``) through the op's own rule once. For tanh and
  sigmoid on arrays the two gradients meet inside jet_act's compiled backward loop, ``g_x =
  (g_y + g_z) (1 - y^2)`` or ``(g_y + g_z) (1 - y) y``: one pass fewer.

Each computes what the two nodes computed, in their order, so results are the same bits.
The rules are in leafgrad ops, so differentiable to any order.
"""

from __future__ import annotations

import numpy as np

from .._tensor import _zeros_like
from . import _fused_jets, jet_blocks
from ._optable import REGISTRY, Generic
from ._primitive import primitive
from ._tangents import tangent_sum
from .jet_activations import (
    _act_backward_forward,
    _act_forward,
    _act_jvp,
    _pairs,
    _Tensors,
    jet_act_backward,
)
from .jet_kernels import _active_or_none, _linear_forward, _linear_vjp, _own_rows, jet_linear


def _act_value_forward(x, p, *, fn, op_params, first, weights):
    y = REGISTRY[fn].forward(x, **dict(op_params))
    return y, _act_forward(p, y, fn=fn, op_params=op_params, first=first, weights=weights)


def _act_value_vjp(grads, x, p, *, result, needs, fn, op_params, first, weights):
    """``g_x = f'(x) (g_y + g_z)`` and jet_act's ``g_p`` (``g_z``: jet_act's gradient in y)."""
    gy, gq = grads
    y = result[0]
    kw = {"fn": fn, "op_params": op_params, "first": first, "weights": weights}
    if gq is None:
        gp = gz = None
    elif type(gq) is np.ndarray and fn in _fused_jets.FROM_RESULT and gy is not None:
        fused = _result_value_backward(gy, gq, p, y, fn, first, weights)  # one pass
        if fused is not None:
            gp, gx = fused
            return gx if needs[0] else None, gp if needs[1] else None
        gp, gz = _act_backward_forward(gq, p, y, **kw)
    else:
        gp, gz = jet_act_backward(gq, p, y, **kw)
    gx = None
    total = gy if gz is None else gz if gy is None else gy + gz
    if needs[0] and total is not None:
        gx = _op_vjp(fn, total, x, y, op_params)
    return gx, gp if needs[1] else None


def _op_vjp(fn, grad, x, y, op_params):
    """The activation op's own VJP rule at its output ``y`` (the op's rounding): declared, or
    ``grad * d1``."""
    prim = REGISTRY[fn]
    if prim.vjp is not None and prim.vjp[0] is not None:
        return prim.vjp[0](grad, x, result=y, **dict(op_params))
    return grad * prim.kind.d1(x, result=y)


def _result_value_backward(gy, gq, p, y, fn, first, weights):
    """``(g_p, g_x)`` of tanh's or sigmoid's node from the compiled loop over row blocks, or
    None where the loop does not take these arrays (then the two steps)."""
    active = _active_or_none(weights, p.dtype)
    p = _own_rows(p)
    if not _fused_jets.takes(p, active, y, gy, jets=(gq,)):
        return None
    weighted, act = bool(weights), _fused_jets.FROM_RESULT[fn]

    def block(grad, p, y, gy, outs=(None, None, None)):
        gp, gx = _fused_jets.result_backward_block(
            grad, p, y, act, first, active, weighted, outs[:2], through=gy
        )
        return gp, gx, None

    gp, gx, _ = jet_blocks.backward_blocked(block, gq, p, (y, gy), False, live=5)
    return gp, gx


def _act_value_jvp(tx, tp, x, p, *, result, fn, op_params, first, weights):
    """``t_y = f'(x) t_x``, and jet_act's tangent at ``(t_p, t_y)``."""
    y, q = result
    ((d1, _),) = _pairs(_Tensors, y, 1, fn, op_params)
    ty = None if tx is None else tx * d1
    kw = {"fn": fn, "op_params": op_params, "first": first, "weights": weights}
    return _filled((ty, _act_jvp(tp, ty, p, y, result=q, **kw)), result)


# ``(x, p) -> (f(x), jet_act(p, f(x)))`` for activation ``fn`` (one of ``TAKES_RESULT``).
jet_act_value = primitive(
    "jet_act_value",
    _act_value_forward,
    vjp_all=_act_value_vjp,
    kind=Generic(jvp=_act_value_jvp),
    inputs=("x", "p"),
    outputs=("y", "q"),
    saves=("p", "y"),
    node_name="JetActValueBackward0",
    dtype_rule="keep",
    num_outputs=2,
    materialize_grads=False,
    plain_rules=True,
)


# ---------------------------------------------------------------------- jet_linear_value
def _mm_rules():
    return REGISTRY["mm"].forward, REGISTRY["mm"].vjp


def _linear_value_forward(h, p, w):
    forward, _ = _mm_rules()
    return forward(h, w), _linear_forward(p, w)


def _linear_value_vjp(grads, h, p, w, *, result, needs):
    """mm's rules for ``g_v``, jet_linear's for ``g_q``."""
    gv, gq = grads
    _, (mat1, mat2) = _mm_rules()
    gh = mat1(gv, h, w, result=None) if needs[0] and gv is not None else None
    gw_v = mat2(gv, h, w, result=None) if needs[2] and gv is not None else None
    return (gh, *_channels_vjp(gq, p, w, needs[1], needs[2], gw_v))


def _channels_vjp(gq, p, w, need_p: bool, need_w: bool, gw_v) -> tuple:
    """jet_linear's ``(g_p, g_w)`` for ``g_q``, ``g_w`` plus the value's ``gw_v`` (as the
    engine summed the two nodes' gradients of the weight)."""
    gp = gw = None
    if gq is not None and (need_p or need_w):
        gp, gw = _linear_vjp(gq, p, w, result=None, needs=(need_p, need_w))
    if gw_v is not None:
        gw = gw_v if gw is None else gw_v + gw
    return gp, gw


def _linear_value_jvp(th, tp, tw, h, p, w, *, result):
    """The product rule for each output."""
    tv = tangent_sum(None if th is None else th @ w, None if tw is None else h @ tw)
    return _filled((tv, _channels_jvp(tp, tw, p, w)), result)


def _channels_jvp(tp, tw, p, w):
    """jet_linear's tangent: the product rule."""
    return tangent_sum(
        None if tp is None else jet_linear(tp, w), None if tw is None else jet_linear(p, tw)
    )


def _filled(tangents: tuple, result: tuple) -> tuple:
    """Zeros of the outputs' shapes for the tangents that are None."""
    return tuple(t if t is not None else _zeros_like(r) for t, r in zip(tangents, result))


# ``(h, p, w) -> (h @ w, jet_linear(p, w))``: a Linear layer's value and channels, 2-D h, w.
jet_linear_value = primitive(
    "jet_linear_value",
    _linear_value_forward,
    vjp_all=_linear_value_vjp,
    kind=Generic(jvp=_linear_value_jvp),
    inputs=("h", "p", "w"),
    outputs=("v", "q"),
    saves=("h if w", "p if w", "w"),
    node_name="JetLinearValueBackward0",
    dtype_rule="keep",
    num_outputs=2,
    materialize_grads=False,
    plain_rules=True,
)


# ---------------------------------------------------------------------- jet_addmm_value
def _addmm_value_forward(b, h, p, w, *, beta):
    return REGISTRY["addmm"].forward(b, h, w, beta=beta), _linear_forward(p, w)


def _addmm_value_vjp(grads, b, h, p, w, *, result, needs, beta):
    """addmm's rules for ``g_v``, jet_linear's for ``g_q``."""
    gv, gq = grads
    rules = REGISTRY["addmm"].vjp
    gb = gh = gw_v = None
    if gv is not None:
        gb = rules[0](gv, b, h, w, result=None, beta=beta) if needs[0] else None
        gh = rules[1](gv, b, h, w, result=None, beta=beta) if needs[1] else None
        gw_v = rules[2](gv, b, h, w, result=None, beta=beta) if needs[3] else None
    return (gb, gh, *_channels_vjp(gq, p, w, needs[2], needs[3], gw_v))


def _addmm_value_jvp(tb, th, tp, tw, b, h, p, w, *, result, beta):
    """addmm's tangent, and the product rule for the channels."""
    tv = REGISTRY["addmm"].kind.jvp(tb, th, tw, b, h, w, result[0], beta=beta)
    return _filled((tv, _channels_jvp(tp, tw, p, w)), result)


# ``(b, h, p, w) -> (addmm(b, h, w, beta), jet_linear(p, w))``: nn.Linear's value and
# channels (addmm with alpha 1), 2-D h and w.
jet_addmm_value = primitive(
    "jet_addmm_value",
    _addmm_value_forward,
    vjp_all=_addmm_value_vjp,
    kind=Generic(jvp=_addmm_value_jvp),
    inputs=("b", "h", "p", "w"),
    outputs=("v", "q"),
    saves=("h if w", "p if w", "w"),
    node_name="JetAddmmValueBackward0",
    dtype_rule="keep",
    num_outputs=2,
    materialize_grads=False,
    broadcast=True,
    plain_rules=True,
)


__all__: list = []
