"""Op-table samples for ops/arithmetic.py."""

import leafgrad as lg
from leafgrad.ops import arithmetic

from .optable import OpSample, away_from

S = OpSample
SAMPLES = [
    S("add.Tensor", lambda x, y: x + y, ((3, 4), (3, 4))),
    S("add.Tensor", lambda x, y: x + y, ((3, 4), (4,)), id="add-broadcast"),
    S(
        "add.Tensor",
        lambda x, y: lg.add(x, y, alpha=2.5),
        ((2, 1, 3), (4, 1)),
        id="add-alpha-broadcast",
    ),
    S("add.Tensor", lambda x: 3.0 + x, ((5,),), id="add-scalar-reflected"),
    S("sub.Tensor", lambda x, y: x - y, ((3, 4), (1, 4))),
    S("rsub.Scalar", lambda x: 2.0 - x, ((3,),), id="sub-reflected"),
    S("rsub.Tensor", lambda x, y: lg.rsub(x, y, alpha=2.0), ((3,), (2, 3)), id="rsub-tensor"),
    S("sub.Tensor", lambda x, y: lg.sub(x, y, alpha=-0.5), ((3,), (3,)), id="sub-alpha"),
    S("mul.Tensor", lambda x, y: x * y, ((2, 3), (2, 3))),
    S("mul.Tensor", lambda x, y: x * y, ((2, 1), (1, 3)), id="mul-broadcast-both"),
    S("mul.Tensor", lambda x: x * 1.5, ((4,),), id="mul-scalar"),
    # The Scalar overloads derivative formulas call (MulBackward1 / AddBackward1).
    S("mul.Scalar", lambda x: arithmetic.mul_scalar(x, other=-2.5), ((2, 3),), id="mul-Scalar"),
    S("div.Scalar", lambda x: arithmetic.div_scalar(x, other=-2.5), ((2, 3),), id="div-Scalar"),
    S("add.Scalar", lambda x: arithmetic.add_scalar(x, other=0.75), ((2, 3),), id="add-Scalar"),
    S("sub.Scalar", lambda x: arithmetic.sub_scalar(x, other=0.75), ((2, 3),), id="sub-Scalar"),
    S("div.Tensor", lambda x, y: x / y, ((3, 2), (3, 2)), domain=(0.5, 2.0)),
    S("div.Tensor", lambda x, y: x / y, ((3, 2), (2,)), domain=(0.5, 2.0), id="div-broadcast"),
    # ``2 / x`` is ``reciprocal(x) * 2`` in PyTorch (MulBackward0), not a division.
    S(
        "mul.Tensor",
        lambda x: 2.0 / x,
        ((3,),),
        domain=(0.5, 2.0),
        covers=("mul.Tensor", "reciprocal"),
        id="div-reflected",
    ),
    S("pow.Tensor_Scalar", lambda x: x**3, ((3, 2),), id="pow-int-exponent"),
    S("pow.Tensor_Scalar", lambda x: x**2.5, ((4,),), domain=(0.3, 2.0), id="pow-float-exponent"),
    S(
        "pow.Tensor_Scalar",
        lambda x: x**-1.5,
        ((4,),),
        domain=(0.3, 2.0),
        id="pow-negative-exponent",
    ),
    S(
        "pow.Tensor_Tensor",
        lambda x, y: x**y,
        ((2, 3), (2, 3)),
        domain=(0.3, 2.0),
        id="pow-tensor-tensor",
    ),
    S(
        "pow.Tensor_Tensor",
        lambda x, y: x**y,
        ((2, 3), (3,)),
        domain=(0.3, 2.0),
        id="pow-tensor-broadcast",
    ),
    S("pow.Scalar", lambda y: 2.0**y, ((4,),), id="pow-scalar-base"),
    S("pow.Tensor_Scalar", lambda x: lg.square(x), ((3, 3),), id="square"),
    S(
        "remainder.Tensor",
        lambda x, y: lg.remainder(x, y),
        ((4,), (4,)),
        make_inputs=lambda rng: [rng.uniform(0.1, 0.9, 4) + 3.0, rng.uniform(1.1, 1.4, 4)],
    ),
    S(
        "remainder.Scalar",
        lambda x: x % 2.5,
        ((4,),),
        make_inputs=lambda rng: [rng.uniform(0.1, 0.9, 4) + 3.0],
        id="remainder-scalar-divisor",
    ),
    S(
        "fmod.Scalar",
        lambda x: lg.fmod(x, 2.5),
        ((4,),),
        make_inputs=lambda rng: [rng.uniform(0.1, 0.9, 4) - 3.0],
        id="fmod-scalar-divisor",
    ),
    S(
        "fmod.Tensor",
        lambda x, y: lg.fmod(x, y),
        ((4,), (4,)),
        make_inputs=lambda rng: [rng.uniform(0.1, 0.9, 4) - 3.0, rng.uniform(1.1, 1.4, 4)],
    ),
    S(
        "div.Tensor_mode",
        lambda x, y: (
            lg.div(x, y, rounding_mode="floor") * x + lg.div(x, y, rounding_mode="trunc") * y
        ),
        ((4,), (4,)),
        make_inputs=lambda rng: [rng.uniform(0.1, 0.9, 4) + 3.0, rng.uniform(1.1, 1.4, 4)],
        id="div-rounding-mode",
    ),
    S("neg", lambda x: -x, ((2, 3),)),
    S("abs", lambda x: x.abs(), ((2, 4),), make_inputs=away_from([0.0])([(2, 4)])),
    S("sign", lambda x: x.sign() * x, ((5,),), make_inputs=away_from([0.0])([(5,)])),
    S("sgn", lambda x: x.sgn() * x, ((5,),), make_inputs=away_from([0.0])([(5,)])),
    S("angle", lambda x: x.angle() + x, ((5,),), make_inputs=away_from([0.0])([(5,)])),
    S("reciprocal", lambda x: x.reciprocal(), ((2, 3),), domain=(0.5, 2.0)),
    S("sqrt", lambda x: x.sqrt(), ((2, 3),), domain=(0.3, 2.0)),
    S("rsqrt", lambda x: x.rsqrt(), ((2, 3),), domain=(0.3, 2.0)),
]
