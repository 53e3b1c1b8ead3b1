"""Op-table samples for ops/reduction.py, ops/softmax.py and ops/statistics.py.

Max-like reductions (amax, max, inf-norm) draw well-separated values so no two elements tie
within the finite-difference step; abs-based norms keep away from 0 where they have a kink.
"""

import math

import numpy as np

import leafgrad as lg
from leafgrad.ops.softmax import _log_softmax_backward_data, _softmax_backward_data

from .optable import OpSample, away_from

S = OpSample


def distinct(*shapes, gap=0.25):
    """Inputs maker: values at least ``gap`` apart within each input, in random order."""

    def make(rng):
        out = []
        for shape in shapes:
            n = int(np.prod(shape))
            values = (rng.permutation(n) - n / 2) * gap + rng.uniform(0, gap / 4, size=n)
            out.append(values.reshape(shape))
        return out

    return make


def distinct_abs(*shapes, gap=0.25):
    """Like ``distinct`` but with distinct, nonzero magnitudes and random signs."""

    def make(rng):
        out = []
        for shape in shapes:
            n = int(np.prod(shape))
            magnitudes = (rng.permutation(n) + 1) * gap
            out.append((magnitudes * rng.choice([-1.0, 1.0], size=n)).reshape(shape))
        return out

    return make


def with_zeros(shape, positions, lo=0.5, hi=1.5):
    """Inputs maker: nonzero values of random sign, exactly 0 at flat ``positions``."""

    def make(rng):
        v = rng.uniform(lo, hi, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        v.reshape(-1)[list(positions)] = 0.0
        return [v]

    return make


_PROD_DOMAIN = away_from([0.0], margin=0.4, lo=-1.5, hi=1.5)
_NONZERO = away_from([0.0], margin=0.2)

SAMPLES = [
    # sum / mean
    S("sum", lambda x: x.sum(), ((2, 3),), id="sum-all"),
    S("sum.dim_IntList", lambda x: x.sum(1), ((2, 3),), id="sum-dim"),
    S(
        "sum.dim_IntList",
        lambda x: x.sum((0, -1), keepdim=True),
        ((2, 3, 2),),
        id="sum-tuple-negative-keepdim",
    ),
    S("sum.dim_IntList", lambda x: lg.sum(x, -1), ((4,),), id="sum-1d-negative-dim"),
    S("sum.dim_IntList", lambda x: x.sum(0), ((),), id="sum-0d-dim"),
    S("mean", lambda x: x.mean(), ((3, 2),), id="mean-all"),
    S("mean.dim", lambda x: x.mean((0, 2)), ((2, 3, 2),), id="mean-tuple"),
    S("mean.dim", lambda x: x.mean(-1, keepdim=True), ((3, 4),), id="mean-negative-keepdim"),
    S("mean", lambda x: x.mean(), ((),), id="mean-0d"),
    # prod
    S("prod", lambda x: x.prod(), ((2, 3),), make_inputs=_PROD_DOMAIN([(2, 3)]), id="prod-all"),
    S(
        "prod.dim_int",
        lambda x: x.prod(-1),
        ((3, 4),),
        make_inputs=_PROD_DOMAIN([(3, 4)]),
        id="prod-negative-dim",
    ),
    S(
        "prod.dim_int",
        lambda x: x.prod(0, keepdim=True),
        ((3, 2),),
        make_inputs=_PROD_DOMAIN([(3, 2)]),
        id="prod-keepdim",
    ),
    S("prod", lambda x: x.prod(), ((),), make_inputs=_PROD_DOMAIN([()]), id="prod-0d"),
    S(
        "prod",
        lambda x: x.prod(),
        ((2, 3),),
        make_inputs=with_zeros((2, 3), [4]),
        id="prod-all-one-zero",
    ),
    S(
        "prod.dim_int",
        lambda x: x.prod(1),
        ((2, 4),),
        make_inputs=with_zeros((2, 4), [1, 6]),
        id="prod-dim-one-zero-per-row",
    ),
    S(
        "prod.dim_int",
        lambda x: x.prod(1),
        ((2, 4),),
        make_inputs=with_zeros((2, 4), [0, 2, 7]),
        id="prod-dim-two-zeros-in-a-row",
    ),
    S(
        "prod",
        lambda x: x.prod(),
        ((4,),),
        make_inputs=with_zeros((4,), [0, 1, 3]),
        id="prod-all-three-zeros",
    ),
    # cumsum
    S("cumsum", lambda x: x.cumsum(0), ((3, 2),), id="cumsum-dim0"),
    S("cumsum", lambda x: lg.cumsum(x, -1), ((2, 4),), id="cumsum-negative-dim"),
    S("cumsum", lambda x: x.cumsum(0), ((),), id="cumsum-0d"),
    # amax / amin
    S("amax", lambda x: x.amax(), ((3, 4),), make_inputs=distinct((3, 4)), id="amax-all"),
    S("amax", lambda x: x.amax(1), ((3, 4),), make_inputs=distinct((3, 4)), id="amax-dim"),
    S(
        "amax",
        lambda x: x.amax((0, -1), keepdim=True),
        ((2, 3, 2),),
        make_inputs=distinct((2, 3, 2)),
        id="amax-tuple-keepdim",
    ),
    S("amax", lambda x: x.amax(0), ((),), id="amax-0d"),
    S(
        "amin",
        lambda x: x.amin(-2),
        ((3, 4),),
        make_inputs=distinct((3, 4)),
        id="amin-negative-dim",
    ),
    S(
        "amin",
        lambda x: lg.amin(x, (0, 1)),
        ((3, 2),),
        make_inputs=distinct((3, 2)),
        id="amin-tuple",
    ),
    S(
        "aminmax",
        lambda x: lg.aminmax(x, dim=1),
        ((3, 4),),
        make_inputs=distinct((3, 4)),
        id="aminmax-dim",
    ),
    S(
        "aminmax",
        lambda x: x.aminmax(keepdim=True)[1],
        ((2, 3),),
        make_inputs=distinct((2, 3)),
        id="aminmax-all-max-only",
    ),
    S("aminmax", lambda x: lg.aminmax(x, dim=0), ((),), id="aminmax-0d"),
    # max / min
    S("max", lambda x: x.max(), ((3, 4),), make_inputs=distinct((3, 4)), id="max-all"),
    S("max.dim", lambda x: x.max(1).values, ((3, 4),), make_inputs=distinct((3, 4)), id="max-dim"),
    S(
        "max.dim",
        lambda x: lg.max(x, -1, keepdim=True).values,
        ((2, 3),),
        make_inputs=distinct((2, 3)),
        id="max-dim-keepdim",
    ),
    S("max.dim", lambda x: x.max(0)[0], ((5,),), make_inputs=distinct((5,)), id="max-1d"),
    S("max.dim", lambda x: x.max(0).values, ((),), id="max-0d"),
    S("min", lambda x: x.min(), ((4,),), make_inputs=distinct((4,)), id="min-all"),
    S("min.dim", lambda x: x.min(0).values, ((3, 2),), make_inputs=distinct((3, 2)), id="min-dim"),
    # var / std
    S("var.correction", lambda x: x.var(), ((3, 4),), id="var-all"),
    S("var.correction", lambda x: x.var(1), ((3, 4),), id="var-dim"),
    S(
        "var.correction",
        lambda x: x.var((0, -1), keepdim=True, correction=0),
        ((2, 3, 2),),
        id="var-tuple-keepdim-correction0",
    ),
    S("var.correction", lambda x: x.var(0, False), ((4, 2),), id="var-legacy-unbiased-false"),
    S("var.correction", lambda x: x.var(correction=2), ((5,),), id="var-correction2"),
    S("std.correction", lambda x: x.std(), ((3, 4),), id="std-all"),
    S("std.correction", lambda x: x.std(-1, keepdim=True), ((3, 4),), id="std-negative-keepdim"),
    S(
        "std.correction",
        lambda x: lg.std(x, (0, 1), correction=0),
        ((2, 3),),
        id="std-tuple-correction0",
    ),
    S("std.correction", lambda x: x.std(0, unbiased=False), ((4,),), id="std-1d-unbiased-false"),
    # norm, and dist (ops/covariance.py): the norm of a difference
    S("norm", lambda x: x.norm(), ((3, 4),), covers=("norm",), id="norm-fro"),
    S("dist", lambda x, y: lg.dist(x, y), ((3, 4), (4,))),
    S("dist", lambda x, y: x.dist(y, 3), ((2, 3), (2, 3)), id="dist-3"),
    S("dist", lambda x, y: lg.dist(x, y, 1.5), ((2, 1), (3,)), id="dist-1.5-broadcast-both"),
    # renorm (ops/renorm.py): slices scaled down to a maximum norm, some of them left as they are
    S("renorm", lambda x: x.renorm(2, 0, 1.0), ((3, 4),)),
    S("renorm", lambda x: lg.renorm(x, 3, -1, 1.2), ((3, 2, 2),), id="renorm-3-last-dim-mixed"),
    S("renorm", lambda x: x.renorm(float("inf"), 1, 0.5), ((2, 3),), id="renorm-inf"),
    S("norm", lambda x: x.norm(2, dim=1), ((3, 4),), id="norm-2-dim"),
    S(
        "norm",
        lambda x: x.norm("fro", dim=(0, -1), keepdim=True),
        ((2, 3, 2),),
        id="norm-fro-tuple-keepdim",
    ),
    S("norm", lambda x: x.norm(1, dim=0), ((3, 4),), make_inputs=_NONZERO([(3, 4)]), id="norm-1"),
    S(
        "norm",
        lambda x: x.norm(math.inf, dim=1),
        ((3, 4),),
        make_inputs=distinct_abs((3, 4)),
        id="norm-inf",
    ),
    S(
        "norm",
        lambda x: x.norm(-math.inf),
        ((5,),),
        make_inputs=distinct_abs((5,)),
        id="norm-neg-inf",
    ),
    S("norm", lambda x: x.norm(3), ((2, 3),), id="norm-3"),
    S(
        "norm.ScalarOpt_dim",
        lambda x, y: lg.nn.functional.pairwise_distance(x, y),
        ((3, 4), (3, 4)),
        id="pairwise_distance",
    ),
    S(
        "norm.ScalarOpt_dim",
        lambda x, y: lg.nn.functional.pairwise_distance(x, y, p=1.0, keepdim=True),
        ((3, 4), (4,)),
        make_inputs=_NONZERO([(3, 4), (4,)]),
        id="pairwise_distance-p1",
    ),
    S(
        "norm",
        lambda x: x.norm(1.5, dim=-1),
        ((2, 3),),
        make_inputs=_NONZERO([(2, 3)]),
        id="norm-1.5",
    ),
    S("norm", lambda x: x.norm(0.5), ((4,),), make_inputs=_NONZERO([(4,)]), id="norm-0.5"),
    S(
        "norm",
        lambda x: x.norm(-1.0, dim=0),
        ((3, 2),),
        make_inputs=_NONZERO([(3, 2)]),
        id="norm-negative-p",
    ),
    S("norm", lambda x: x.norm(), ((),), make_inputs=_NONZERO([()]), id="norm-0d"),
    S(
        "norm",
        lambda x: x.norm(0, dim=1),
        ((2, 3),),
        make_inputs=_NONZERO([(2, 3)]),
        gradgrad=False,
        reason="the 0-norm counts nonzeros: like PyTorch it has no gradient to differentiate again",
        id="norm-0",
    ),
    # logsumexp / softmax / log_softmax
    S("logsumexp", lambda x: x.logsumexp(1), ((3, 4),), id="logsumexp-dim"),
    S(
        "logsumexp",
        lambda x: lg.logsumexp(x, (0, -1), keepdim=True),
        ((2, 3, 2),),
        id="logsumexp-tuple-keepdim",
    ),
    S(
        "logsumexp",
        lambda x: x.logsumexp(-1),
        ((4,),),
        domain=(-30.0, 30.0),
        id="logsumexp-wide-range",
    ),
    S("logsumexp", lambda x: x.logsumexp(0), ((),), id="logsumexp-0d"),
    S("softmax", lambda x: x.softmax(1), ((3, 4),), id="softmax-dim"),
    S("softmax", lambda x: lg.softmax(x, -1), ((2, 2, 3),), id="softmax-negative-dim"),
    S("softmax", lambda x: x.softmax(0), ((4,),), id="softmax-1d"),
    S("softmax", lambda x: x.softmax(0), ((),), id="softmax-0d"),
    S("log_softmax", lambda x: x.log_softmax(0), ((3, 4),), id="log_softmax-dim0"),
    S("log_softmax", lambda x: lg.log_softmax(x, -1), ((2, 5),), id="log_softmax-negative-dim"),
    S("log_softmax", lambda x: x.log_softmax(-1), ((),), id="log_softmax-0d"),
    S(
        "_softmax_backward_data",
        lambda g, x: _softmax_backward_data(g, x.softmax(1), dim=1),
        ((3, 4), (3, 4)),
    ),
    S(
        "_log_softmax_backward_data",
        lambda g, x: _log_softmax_backward_data(g, x.log_softmax(0), dim=0),
        ((3, 4), (3, 4)),
    ),
]
