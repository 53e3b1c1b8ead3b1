"""``jet_act_value``: an activation and its packed jet in one node, ``x, p -> (f(x), p')``.

On the fused Taylor path an activation ``y = f(x)`` was two nodes: the op's own (``f(x)``)
and ``jet_act(p, y)`` for its channels. Their backwards were two nodes and two gradients
into ``y`` summed before ``f``'s own rule. Here both outputs come from one primitive, for
the activations whose derivatives jet_act writes in their output ``y`` (tanh, sigmoid,
exp): its forward is the op's forward then jet_act's, and its backward sends ``g_y + g_z``
(``g_z``: jet_act's gradient in ``y``) through ``f'`` once. For tanh on arrays the two
gradients meet inside jet_act's compiled backward loop, ``g_x = (g_y + g_z) (1 - y^2)``:
the same operations as the two nodes', one pass and one node fewer. The rules are in
leafgrad ops, so differentiable to any order.
"""

from __future__ import annotations

import numpy as np

from .._tensor import _zeros_like
from . import _fused_jets, jet_blocks
from ._optable import REGISTRY, Generic
from ._primitive import primitive
from .jet_activations import (
    _act_backward_forward,
    _act_forward,
    _act_jvp,
    _pairs,
    _Tensors,
    jet_act_backward,
)
from .jet_kernels import _active_or_none, _own_rows


def _forward(x, p, *, fn, op_params, first, weights):
    y = REGISTRY[fn].forward(x, **dict(op_params))
    return y, _act_forward(p, y, fn=fn, op_params=op_params, first=first, weights=weights)


def _vjp(grads, x, p, *, result, needs, fn, op_params, first, weights):
    """``g_x = f'(x) (g_y + g_z)`` and jet_act's ``g_p`` (``g_z``: jet_act's gradient in y)."""
    gy, gq = grads
    y = result[0]
    kw = {"fn": fn, "op_params": op_params, "first": first, "weights": weights}
    if gq is None:
        gp = gz = None
    elif type(gq) is np.ndarray and fn == "tanh" and gy is not None:  # on arrays: one pass
        fused = _tanh_backward(gy, gq, p, y, first, weights)
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


def _tanh_backward(gy, gq, p, y, first, weights):
    """``(g_p, g_x)`` of tanh's node from the compiled loop over row blocks, or None where
    the loop does not take these arrays (then the two steps)."""
    active = _active_or_none(weights, p.dtype)
    p = _own_rows(p)
    if not _fused_jets.takes(p, active, y, gy, jets=(gq,), tanh=True):
        return None
    weighted = bool(weights)

    def block(grad, p, y, gy, outs=(None, None, None)):
        gp, gx = _fused_jets.tanh_backward_block(
            grad, p, y, first, active, weighted, outs[:2], through=gy
        )
        return gp, gx, None

    gp, gx, _ = jet_blocks.backward_blocked(block, gq, p, (y, gy), False, live=5)
    return gp, gx


def _jvp(tx, tp, x, p, *, result, fn, op_params, first, weights):
    """``t_y = f'(x) t_x``, and jet_act's tangent at ``(t_p, t_y)``."""
    y, q = result
    ((d1, _),) = _pairs(_Tensors, y, 1, fn, op_params)
    ty = None if tx is None else tx * d1
    kw = {"fn": fn, "op_params": op_params, "first": first, "weights": weights}
    tq = _act_jvp(tp, ty, p, y, result=q, **kw)
    return ty if ty is not None else _zeros_like(y), tq


# ``(x, p) -> (f(x), jet_act(p, f(x)))`` for activation ``fn`` (one of ``TAKES_RESULT``).
jet_act_value = primitive(
    "jet_act_value",
    _forward,
    vjp_all=_vjp,
    kind=Generic(jvp=_jvp),
    inputs=("x", "p"),
    outputs=("y", "q"),
    saves=("p", "y"),
    node_name="JetActValueBackward0",
    dtype_rule="keep",
    num_outputs=2,
    materialize_grads=False,
    plain_rules=True,
)


__all__: list = []
