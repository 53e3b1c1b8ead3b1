"""Op-table samples for the fused Taylor path's primitives (ops/jet_kernels.py)."""

import leafgrad as lg
from leafgrad.ops import jet_activations as ja
from leafgrad.ops import jet_dense as jd
from leafgrad.ops import jet_kernels as jk
from leafgrad.ops import jet_values as jv

from .optable import OpSample

# Second-order layouts: one collapsed row, every diagonal, a general mix, none (order 1).
_LAYOUTS = {
    "collapsed": (2, ((1.0, 1.0),)),
    "diagonal": (2, ((1.0, 0.0), (0.0, 1.0))),
    "mixed": (2, ((0.5, -1.5), (2.0, 0.25), (1.0, 1.0))),
    "taylor2": (1, ((0.5,),)),
    "first-only": (3, ()),
    "sparse": (3, ((1.0, 0.0, 2.0),)),  # a direction no row weighs, between two that are
    "unit": (2, ((0.0, 1.0),)),  # one direction's second derivative alone
    "zero": (2, ((0.0, 0.0),)),
}


def _unary(name, first, weights):
    s = len(weights)
    return OpSample(
        "jet_unary",
        lambda p, d1, d2: jk.jet_unary(p, d1, d2, first=first, weights=weights),
        ((first + s, 3, 2), (3, 2), (3, 2)),
        id=f"jet_unary-{name}",
    )


def _backward(name, first, weights):
    s = len(weights)
    return OpSample(
        "jet_unary_backward",
        lambda g, p, d1, d2: jk.jet_unary_backward(g, p, d1, d2, first=first, weights=weights),
        ((first + s, 3, 2), (first + s, 3, 2), (3, 2), (3, 2)),
        id=f"jet_unary_backward-{name}",
    )


# jet_act's z is the activation's output (tanh, sigmoid, exp) or input: a sample computes
# the output from the input, as the fused path passes it.
_ACTIVATIONS = {
    "tanh": (lg.tanh, ()),
    "sigmoid": (lg.sigmoid, ()),
    "exp": (lg.exp, ()),
    "sin": (None, ()),
    "cos": (None, ()),
    "softplus": (None, (("beta", 2.0), ("threshold", 1.5))),
    "gelu": (None, (("approximate", "none"),)),
    "silu": (None, ()),
}


def _activation(name, layout):
    """``(k, params, z)`` for activation ``name`` on jets of ``layout``: the channel count,
    jet_act's parameters, and z from a sample input (the activation's output or the input
    itself, as its formulas take)."""
    fn, op_params = _ACTIVATIONS[name]
    first, weights = _LAYOUTS[layout]
    params = {"fn": name, "op_params": op_params, "first": first, "weights": weights}

    def z(x):
        return fn(x) if fn is not None else x

    return first + len(weights), params, z


def _dense(name, layout, backward=False):
    """jet_dense ``p: (k, 3, 4) @ w: (4, 2)`` then activation ``name`` (its z from x)."""
    k, params, z = _activation(name, layout)
    if backward:
        return OpSample(
            "jet_dense_backward",
            lambda g, p, w, x, q: jd.jet_dense_backward(g, p, w, z(x), q, **params),
            ((k, 3, 2), (k, 3, 4), (4, 2), (3, 2), (k, 3, 2)),
            id=f"jet_dense_backward-{name}-{layout}",
        )
    return OpSample(
        "jet_dense",
        lambda p, w, x: jd.jet_dense(p, w, z(x), **params),
        ((k, 3, 4), (4, 2), (3, 2)),
        id=f"jet_dense-{name}-{layout}",
    )


def _act(name, layout, backward=False):
    k, params, z = _activation(name, layout)
    if backward:
        return OpSample(
            "jet_act_backward",
            lambda g, p, x: ja.jet_act_backward(g, p, z(x), **params),
            ((k, 3, 2), (k, 3, 2), (3, 2)),
            id=f"jet_act_backward-{name}-{layout}",
        )
    return OpSample(
        "jet_act",
        lambda p, x: ja.jet_act(p, z(x), **params),
        ((k, 3, 2), (3, 2)),
        covers=("jet_act", "jet_act_backward"),
        id=f"jet_act-{name}-{layout}",
    )


def _act_value(name, layout):
    """jet_act_value ``(x, p) -> (f(x), p')`` for an activation whose z is its output."""
    k, params, _ = _activation(name, layout)
    return OpSample(
        "jet_act_value",
        lambda x, p: jv.jet_act_value(x, p, **params),
        ((3, 2), (k, 3, 2)),
        id=f"jet_act_value-{name}-{layout}",
    )


SAMPLES = [
    *(_act(name, "diagonal") for name in _ACTIVATIONS),
    *(_act_value(name, "collapsed") for name in ("tanh", "sigmoid", "exp")),
    _act_value("tanh", "mixed"),
    _act_value("tanh", "first-only"),
    _act_value("sigmoid", "sparse"),
    *(_act(name, "mixed", backward=True) for name in _ACTIVATIONS),
    _act("tanh", "first-only"),
    _act("gelu", "taylor2", backward=True),
    _act("softplus", "first-only", backward=True),
    _act("sin", "sparse", backward=True),
    _act("silu", "unit", backward=True),
    _dense("tanh", "collapsed"),
    _dense("sin", "mixed"),
    _dense("gelu", "first-only"),
    _dense("tanh", "diagonal", backward=True),
    _dense("silu", "sparse", backward=True),
    OpSample("jet_linear_value", jv.jet_linear_value, ((4, 5), (3, 4, 5), (5, 2))),
    OpSample(
        "jet_addmm_value",
        lambda b, h, p, w: jv.jet_addmm_value(b, h, p, w, beta=0.5),
        ((2,), (4, 5), (3, 4, 5), (5, 2)),
    ),
    OpSample("jet_linear", jk.jet_linear, ((3, 4, 5), (5, 2))),
    OpSample("jet_linear", jk.jet_linear, ((2, 3, 2, 4), (4, 3)), id="jet_linear-batched"),
    OpSample("jet_outer", jk.jet_outer, ((3, 4, 5), (3, 4, 2))),
    OpSample("jet_linear_backward", jk.jet_linear_backward, ((3, 4, 2), (3, 4, 5), (5, 2))),
    OpSample(
        "jet_linear_backward",
        jk.jet_linear_backward,
        ((2, 3, 1), (2, 3, 4), (4, 1)),
        id="jet_linear_backward-one-output",  # g w^T as an outer product
    ),
    *(_unary(name, *layout) for name, layout in _LAYOUTS.items()),
    *(_backward(name, *layout) for name, layout in _LAYOUTS.items()),
]
