"""Op-table samples for ops/arithmetic.py."""

import leafgrad as lg

from .optable import OpSample, away_from

S = OpSample
SAMPLES = [
    S("add", lambda x, y: x + y, ((3, 4), (3, 4))),
    S("add", lambda x, y: x + y, ((3, 4), (4,)), id="add-broadcast"),
    S("add", lambda x, y: lg.add(x, y, alpha=2.5), ((2, 1, 3), (4, 1)), id="add-alpha-broadcast"),
    S("add", lambda x: 3.0 + x, ((5,),), id="add-scalar-reflected"),
    S("sub", lambda x, y: x - y, ((3, 4), (1, 4))),
    S("rsub", lambda x: 2.0 - x, ((3,),), id="sub-reflected"),
    S("rsub", lambda x, y: lg.rsub(x, y, alpha=2.0), ((3,), (2, 3)), id="rsub-tensor"),
    S("sub", lambda x, y: lg.sub(x, y, alpha=-0.5), ((3,), (3,)), id="sub-alpha"),
    S("mul", lambda x, y: x * y, ((2, 3), (2, 3))),
    S("mul", lambda x, y: x * y, ((2, 1), (1, 3)), id="mul-broadcast-both"),
    S("mul", lambda x: x * 1.5, ((4,),), id="mul-scalar"),
    S("div", lambda x, y: x / y, ((3, 2), (3, 2)), domain=(0.5, 2.0)),
    S("div", lambda x, y: x / y, ((3, 2), (2,)), domain=(0.5, 2.0), id="div-broadcast"),
    S("div", lambda x: 2.0 / x, ((3,),), domain=(0.5, 2.0), id="div-reflected"),
    S("pow", lambda x: x**3, ((3, 2),), id="pow-int-exponent"),
    S("pow", lambda x: x**2.5, ((4,),), domain=(0.3, 2.0), id="pow-float-exponent"),
    S("pow", lambda x: x**-1.5, ((4,),), domain=(0.3, 2.0), id="pow-negative-exponent"),
    S("pow", lambda x, y: x**y, ((2, 3), (2, 3)), domain=(0.3, 2.0), id="pow-tensor-tensor"),
    S("pow", lambda x, y: x**y, ((2, 3), (3,)), domain=(0.3, 2.0), id="pow-tensor-broadcast"),
    S("pow", lambda y: 2.0**y, ((4,),), id="pow-scalar-base"),
    S("pow", lambda x: lg.square(x), ((3, 3),), id="square"),
    S(
        "remainder",
        lambda x, y: lg.remainder(x, y),
        ((4,), (4,)),
        make_inputs=lambda rng: [rng.uniform(0.1, 0.9, 4) + 3.0, rng.uniform(1.1, 1.4, 4)],
    ),
    S(
        "fmod",
        lambda x, y: lg.fmod(x, y),
        ((4,), (4,)),
        make_inputs=lambda rng: [rng.uniform(0.1, 0.9, 4) - 3.0, rng.uniform(1.1, 1.4, 4)],
    ),
    S(
        "div",
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
    S("reciprocal", lambda x: x.reciprocal(), ((2, 3),), domain=(0.5, 2.0)),
    S("sqrt", lambda x: x.sqrt(), ((2, 3),), domain=(0.3, 2.0)),
    S("rsqrt", lambda x: x.rsqrt(), ((2, 3),), domain=(0.3, 2.0)),
]
