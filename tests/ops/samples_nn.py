"""Op-table samples for the primitives declared in leafgrad/nn (activations, layer norm)."""

import leafgrad.nn.functional as F
from leafgrad.nn._activation_ops import hardswish_backward, hardtanh_backward
from leafgrad.nn._layer_norm_op import native_layer_norm

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
    # All three outputs, so the statistics' gradients are checked too.
    S("native_layer_norm", lambda x: native_layer_norm(x, (3,), None, None, 1e-5), ((2, 3),)),
    S(
        "native_layer_norm.weight",
        lambda x, w: native_layer_norm(x, (2, 3), w, None, 1e-5),
        ((2, 2, 3), (2, 3)),
    ),
    S(
        "native_layer_norm.bias",
        lambda x, b: native_layer_norm(x, (3,), None, b, 1e-5),
        ((2, 3), (3,)),
    ),
    S(
        "native_layer_norm.weight_bias",
        lambda x, w, b: native_layer_norm(x, (4,), w, b, 1e-5),
        ((3, 4), (4,), (4,)),
    ),
    S(
        "native_layer_norm.weight_bias",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        ((2, 4), (4,), (4,)),
        id="layer_norm-functional",
    ),
]
