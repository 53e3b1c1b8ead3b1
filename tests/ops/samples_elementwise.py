"""Op-table samples for ops/elementwise.py, activations.py, piecewise.py and conversion.py."""

import numpy as np

import leafgrad as lg
from leafgrad.nn._activation_inplace import rrelu_with_noise_on_result, threshold_on_input
from leafgrad.ops.activations import (
    elu_backward,
    leaky_relu_backward,
    log_sigmoid_backward,
    softplus_backward,
    threshold_backward,
)
from leafgrad.ops.elementwise import sigmoid_backward, tanh_backward
from leafgrad.ops.gelu import gelu_backward
from leafgrad.ops.glu import glu_backward
from leafgrad.ops.prelu import prelu_kernel, prelu_kernel_backward
from leafgrad.ops.rrelu import rrelu_with_noise, rrelu_with_noise_backward
from leafgrad.ops.shrink import hardshrink_backward, softshrink_backward

from .optable import OpSample, away_from

S = OpSample
_RRELU_NOISE = np.array([[0.15, 1.0, 0.2], [1.0, 0.25, 0.11]])  # a training draw's slopes
_POS = (0.3, 2.0)
_UNIT = (-0.9, 0.9)

SAMPLES = [
    S("exp", lambda x: x.exp(), ((2, 3),)),
    S("expm1", lambda x: x.expm1(), ((4,),)),
    S("log", lambda x: x.log(), ((2, 3),), domain=_POS),
    S("log1p", lambda x: x.log1p(), ((4,),), domain=(-0.5, 2.0)),
    S("log2", lambda x: x.log2(), ((4,),), domain=_POS),
    S("log10", lambda x: x.log10(), ((4,),), domain=_POS),
    S("sin", lambda x: x.sin(), ((2, 3),)),
    S("cos", lambda x: x.cos(), ((2, 3),)),
    S("tan", lambda x: x.tan(), ((4,),), domain=(-1.2, 1.2)),
    S("asin", lambda x: x.asin(), ((4,),), domain=_UNIT),
    S("acos", lambda x: x.acos(), ((4,),), domain=_UNIT),
    S("atan", lambda x: x.atan(), ((4,),)),
    S("sinh", lambda x: x.sinh(), ((4,),)),
    S("cosh", lambda x: x.cosh(), ((4,),)),
    S("tanh", lambda x: x.tanh(), ((2, 3),)),
    S("asinh", lambda x: x.asinh(), ((4,),)),
    S("acosh", lambda x: x.acosh(), ((4,),), domain=(1.2, 3.0)),
    S("atanh", lambda x: x.atanh(), ((4,),), domain=_UNIT),
    S("sigmoid", lambda x: x.sigmoid(), ((2, 3),)),
    S("tanh_backward", lambda g, x: tanh_backward(g, x.tanh()), ((2, 3), (2, 3))),
    S("sigmoid_backward", lambda g, x: sigmoid_backward(g, x.sigmoid()), ((2, 3), (2, 3))),
    S("erf", lambda x: lg.erf(x), ((4,),)),
    S("erfc", lambda x: lg.erfc(x), ((4,),)),
    S("relu", lambda x: x.relu(), ((2, 3),), make_inputs=away_from([0.0])([(2, 3)])),
    S(
        "threshold_backward",
        lambda g, r: threshold_backward(g * r, r),
        ((2, 3), (2, 3)),
        make_inputs=away_from([0.0])([(2, 3), (2, 3)]),
    ),
    S("leaky_relu", lambda x: lg.leaky_relu(x, 0.2), ((5,),), make_inputs=away_from([0.0])([(5,)])),
    S(
        "softshrink",
        lambda x: lg.nn.functional.softshrink(x, 0.3),
        ((6,),),
        make_inputs=away_from([-0.3, 0.3])([(6,)]),
    ),
    S(
        "hardshrink",
        lambda x: lg.nn.functional.hardshrink(x, 0.3),
        ((6,),),
        make_inputs=away_from([-0.3, 0.3])([(6,)]),
    ),
    S(
        "threshold",
        lambda x: lg.nn.functional.threshold(x, 0.4, -1.0),
        ((6,),),
        make_inputs=away_from([0.4])([(6,)]),
    ),
    *(
        S(
            name,
            lambda g, x, op=op: op(g * x, x, lambd=0.3),
            ((2, 3), (2, 3)),
            make_inputs=away_from([-0.3, 0.3])([(2, 3), (2, 3)]),
        )
        for name, op in (
            ("softshrink_backward", softshrink_backward),
            ("hardshrink_backward", hardshrink_backward),
        )
    ),
    S("log_sigmoid_backward", lambda g, x: log_sigmoid_backward(g, x), ((2, 3), (2, 3))),
    S("glu", lambda x: lg.nn.functional.glu(x, 0), ((4, 3),)),
    S("glu", lambda x: lg.nn.functional.glu(x), ((2, 3, 2),), id="glu-last-dim"),
    S("glu_backward", lambda g, x: glu_backward(g, x, dim=1), ((2, 2), (2, 4))),
    S(
        "_prelu_kernel",
        lambda x, w: prelu_kernel(x, w),
        ((2, 3, 2), (1, 3, 1)),
        make_inputs=away_from([0.0])([(2, 3, 2), (1, 3, 1)]),
    ),
    S(
        "_prelu_kernel_backward",
        lambda g, x, w: prelu_kernel_backward(g * x, x, w),
        ((2, 3), (2, 3), (1, 3)),
        make_inputs=away_from([0.0])([(2, 3), (2, 3), (1, 3)]),
    ),
    S(
        "rrelu_with_noise",
        lambda x: rrelu_with_noise(x, noise=_RRELU_NOISE, lower=0.1, upper=0.3, training=True),
        ((2, 3),),
        make_inputs=away_from([0.0])([(2, 3)]),
    ),
    S(
        "rrelu_with_noise",
        lambda x: rrelu_with_noise(x, noise=None, lower=0.1, upper=0.3, training=False),
        ((2, 3),),
        make_inputs=away_from([0.0])([(2, 3)]),
        id="rrelu_with_noise-eval",
    ),
    S(
        "rrelu_with_noise_backward",
        lambda g, x: rrelu_with_noise_backward(
            g * x, x, noise=_RRELU_NOISE, lower=0.1, upper=0.3, training=True
        ),
        ((2, 3), (2, 3)),
        make_inputs=away_from([0.0])([(2, 3), (2, 3)]),
    ),
    S(
        "leaky_relu_backward",
        lambda g, x: leaky_relu_backward(g * x, x, negative_slope=0.2),
        ((2, 3), (2, 3)),
        make_inputs=away_from([0.0])([(2, 3), (2, 3)]),
    ),
    S("elu", lambda x: lg.elu(x, alpha=1.5), ((5,),), make_inputs=away_from([0.0])([(5,)])),
    S(
        "elu_backward",
        lambda g, x: elu_backward(g, x, alpha=1.5, scale=1.2, input_scale=0.5),
        ((2, 3), (2, 3)),
        make_inputs=away_from([0.0])([(2, 3), (2, 3)]),
    ),
    S(
        "elu_backward",
        lambda g, y: elu_backward(g, y, alpha=1.5, scale=1.2, input_scale=0.5, is_result=True),
        ((2, 3), (2, 3)),
        make_inputs=away_from([0.0])([(2, 3), (2, 3)]),
        id="elu_backward-result",
    ),
    # The in-place forms on a copy (a leaf that requires grad may not be written).
    S(
        "elu_",
        lambda x: lg.nn.functional.elu_(x * 1, 1.5),
        ((5,),),
        make_inputs=away_from([0.0])([(5,)]),
    ),
    S(
        "celu_",
        lambda x: lg.celu_(x * 1, 0.7),
        ((5,),),
        make_inputs=away_from([0.0])([(5,)]),
    ),
    S(
        "leaky_relu_",
        lambda x: lg.nn.functional.leaky_relu_(x * 1, 0.2),
        ((5,),),
        make_inputs=away_from([0.0])([(5,)]),
    ),
    S(
        "rrelu_with_noise_",
        lambda x: lg.rrelu_(x * 1, 0.1, 0.3),
        ((2, 3),),
        make_inputs=away_from([0.0])([(2, 3)]),
    ),
    S(
        "rrelu_with_noise_",
        lambda x: rrelu_with_noise_on_result(
            x * 1, noise=_RRELU_NOISE, lower=0.1, upper=0.3, training=True
        ),
        ((2, 3),),
        make_inputs=away_from([0.0])([(2, 3)]),
        id="rrelu_with_noise_-training",
    ),
    # threshold_'s op on its own (written in place, reverse over forward: see
    # tests/autograd/test_forward_over_reverse_inplace.py)
    S(
        "threshold_",
        lambda x: threshold_on_input(x * 1, threshold=0.4, value=-1.0),
        ((6,),),
        make_inputs=away_from([0.4])([(6,)]),
    ),
    S("gelu", lambda x: lg.gelu(x), ((2, 3),)),
    S("gelu", lambda x: lg.gelu(x, approximate="tanh"), ((2, 3),), id="gelu-tanh"),
    S("gelu_backward", lambda g, x: gelu_backward(g, x), ((2, 3), (2, 3))),
    S(
        "gelu_backward",
        lambda g, x: gelu_backward(g, x, approximate="tanh"),
        ((2, 3), (2, 3)),
        id="gelu_backward-tanh",
    ),
    S("silu", lambda x: lg.silu(x), ((2, 3),)),
    S("mish", lambda x: lg.nn.functional.mish(x), ((2, 3),), domain=(-4.0, 4.0)),
    S("log_sigmoid", lambda x: lg.nn.functional.logsigmoid(x), ((2, 3),), domain=(-4.0, 4.0)),
    S("softplus", lambda x: lg.softplus(x), ((2, 3),)),
    S(
        "softplus",
        lambda x: lg.softplus(x, beta=2.0, threshold=1.0),
        ((6,),),
        make_inputs=away_from([0.5])([(6,)]),
        id="softplus-beta-threshold",
    ),
    S(
        "softplus_backward",
        lambda g, x: softplus_backward(g, x, beta=2.0, threshold=1.0),
        ((2, 3), (2, 3)),
        make_inputs=away_from([0.5])([(2, 3), (2, 3)]),
    ),
    S("floor", lambda x: x.floor() + x, ((4,),), make_inputs=away_from([-1.0, 0.0, 1.0])([(4,)])),
    S("ceil", lambda x: x.ceil() * x, ((4,),), make_inputs=away_from([-1.0, 0.0, 1.0])([(4,)])),
    S("trunc", lambda x: x.trunc() * x, ((4,),), make_inputs=away_from([-1.0, 0.0, 1.0])([(4,)])),
    S(
        "round",
        lambda x: x.round() * x,
        ((4,),),
        make_inputs=away_from([-1.5, -0.5, 0.5, 1.5])([(4,)]),
    ),
    S(
        "round.decimals",
        lambda x: x.round(decimals=1) * x,
        ((5,),),
        make_inputs=away_from([k / 10 + 0.05 for k in range(-21, 21)], margin=0.01)([(5,)]),
        id="round-decimals",
    ),
    S("atan2", lambda y, x: lg.atan2(y, x), ((2, 3), (3,)), domain=_POS),
    S("maximum", lambda x, y: lg.maximum(x, y), ((2, 3), (3,))),
    S("minimum", lambda x, y: lg.minimum(x, y), ((2, 3), (2, 3))),
    S("clamp", lambda x: x.clamp(-0.5, 0.7), ((6,),), make_inputs=away_from([-0.5, 0.7])([(6,)])),
    S(
        "clamp",
        lambda x: lg.clamp(x, min=0.1),
        ((6,),),
        make_inputs=away_from([0.1])([(6,)]),
        id="clamp-min-only",
    ),
    S(
        "clamp.Tensor",
        lambda x, lo, hi: lg.clamp(x, lo, hi + 3.0),
        ((6,), (6,), (6,)),
        id="clamp-tensor-bounds",
        make_inputs=away_from([])([(6,), (6,), (6,)]),
    ),
    S(
        "clamp.Tensor_lower",
        lambda x, lo: lg.clamp(x, lo),
        ((6,), (6,)),
        make_inputs=away_from([])([(6,), (6,)]),
        id="clamp-tensor-min-only",
    ),
    S(
        "clamp.Tensor_upper",
        lambda x, hi: lg.clamp(x, max=hi),
        ((2, 3), (3,)),
        make_inputs=away_from([])([(2, 3), (3,)]),
        id="clamp-tensor-max-only-broadcast",
    ),
    S(
        "clamp_min",
        lambda x: x.clamp_min(0.1),
        ((6,),),
        make_inputs=away_from([0.1])([(6,)]),
    ),
    S(
        "clamp_min.Tensor",
        lambda x, lo: lg.clamp_min(x, lo),
        ((6,), (6,)),
        make_inputs=away_from([])([(6,), (6,)]),
        id="clamp_min-tensor",
    ),
    S(
        "clamp_max",
        lambda x: lg.clamp_max(x, -0.2),
        ((6,),),
        make_inputs=away_from([-0.2])([(6,)]),
    ),
    S(
        "clamp_max.Tensor",
        lambda x, hi: x.clamp_max(hi),
        ((2, 3), (3,)),
        make_inputs=away_from([])([(2, 3), (3,)]),
        id="clamp_max-tensor-broadcast",
    ),
    S(
        "where.self",
        lambda x, y: lg.where(x > 0, x * y, y),
        ((2, 3), (3,)),
        make_inputs=away_from([0.0])([(2, 3), (3,)]),
    ),
    S(
        "where.self",
        lambda x: lg.where(x > 0, x, 0.0),
        ((5,),),
        make_inputs=away_from([0.0])([(5,)]),
        id="where-scalar-other",
    ),
    # Through float32 and back: a larger eps keeps float32 rounding out of the differences.
    S("to", lambda x: x.float().double() * 2.0, ((4,),), eps=1e-2, atol=1e-4, round_off="float32"),
    S("clone", lambda x: x.clone() * x, ((2, 2),)),
]
