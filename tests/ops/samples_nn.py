"""Op-table samples for the primitives declared in leafgrad/nn (activations, layer norm)."""

import leafgrad.nn.functional as F
from leafgrad.nn._activation_ops import hardswish_backward, hardtanh_backward

from .optable import OpSample, away_from

S = OpSample

SAMPLES = [
    S(
        "hardtanh",
        lambda x: F.hardtanh(x, -0.5, 1.0),
        ((2, 3),),
        make_inputs=away_from([-0.5, 1.0])([(2, 3)]),
    ),
    S(
        "hardtanh_backward",
        lambda g, x: hardtanh_backward(g * x, x, min_val=-1.0, max_val=1.0),
        ((2, 3), (2, 3)),
        make_inputs=away_from([-1.0, 1.0])([(2, 3), (2, 3)]),
    ),
    S(
        "hardswish",
        lambda x: F.hardswish(x),
        ((8,),),
        make_inputs=away_from([-3.0, 3.0], lo=-4.0, hi=4.0)([(8,)]),
    ),
    S(
        "hardswish_backward",
        lambda g, x: hardswish_backward(g, x),
        ((8,), (8,)),
        make_inputs=away_from([-3.0, 3.0], lo=-4.0, hi=4.0)([(8,), (8,)]),
    ),
    S("celu", lambda x: F.celu(x, 0.7), ((5,),), make_inputs=away_from([0.0])([(5,)])),
]
