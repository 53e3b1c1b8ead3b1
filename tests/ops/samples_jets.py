"""Op-table samples for the fused Taylor path's primitives (ops/jet_kernels.py)."""

from leafgrad.ops import jet_kernels as jk

from .optable import OpSample

# Second-order layouts: one collapsed row, every diagonal, a general mix, none (order 1).
_LAYOUTS = {
    "collapsed": (2, ((1.0, 1.0),)),
    "diagonal": (2, ((1.0, 0.0), (0.0, 1.0))),
    "mixed": (2, ((0.5, -1.5), (2.0, 0.25), (1.0, 1.0))),
    "taylor2": (1, ((0.5,),)),
    "first-only": (3, ()),
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


SAMPLES = [
    OpSample("jet_linear", jk.jet_linear, ((3, 4, 5), (5, 2))),
    OpSample("jet_linear", jk.jet_linear, ((2, 3, 2, 4), (4, 3)), id="jet_linear-batched"),
    OpSample("jet_outer", jk.jet_outer, ((3, 4, 5), (3, 4, 2))),
    *(_unary(name, *layout) for name, layout in _LAYOUTS.items()),
    *(_backward(name, *layout) for name, layout in _LAYOUTS.items()),
]
