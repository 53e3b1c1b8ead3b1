"""Op-table samples for ops/cumulative.py (cumprod, cummax, cummin, logcumsumexp),
ops/scatter.py, ops/scatter_reduce.py and ops/binary.py (logaddexp, logaddexp2, copysign,
nextafter)."""

import numpy as np

import leafgrad as lg

from .optable import OpSample, away_from

S = OpSample

_NONZERO = away_from([0.0], margin=0.3)


def _with_zeros(shape, positions):
    """Inputs maker: nonzero values of either sign, exactly 0 at the flat ``positions``."""

    def make(rng):
        v = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        v.reshape(-1)[list(positions)] = 0.0
        return [v]

    return make


def _distinct(shape):
    def make(rng):
        n = int(np.prod(shape))
        return [((rng.permutation(n) - n / 2) * 0.3 + rng.uniform(0, 0.05, n)).reshape(shape)]

    return make


def _distinct_pair(*shapes):
    """Inputs maker: all values distinct (no ties for amax/amin) and away from 0 (prod)."""

    def make(rng):
        sizes = [int(np.prod(s)) for s in shapes]
        values = (rng.permutation(sum(sizes)) + 1) * 0.3 * rng.choice([-1.0, 1.0], sum(sizes))
        return [p.reshape(s) for p, s in zip(np.split(values, np.cumsum(sizes)[:-1]), shapes)]

    return make


_REDUCE_INDEX = lg.tensor([[0, 2], [2, 2], [0, 1], [0, 2]])
_INDEX = lg.tensor([[0, 2, 1], [2, 0, 1]])  # no repeats: the write order is unspecified

SAMPLES = [
    # cumprod: the quotient formula without zeros; the omitted products with them
    S("cumprod", lambda x: x.cumprod(1), ((2, 4),), make_inputs=_NONZERO([(2, 4)])),
    S("cumprod", lambda x: lg.cumprod(x, -1), ((5,),), make_inputs=_with_zeros((5,), [1])),
    S(
        "cumprod",
        lambda x: lg.cumprod(x, 0),
        ((4, 2),),
        make_inputs=_with_zeros((4, 2), [2, 4, 3]),
        id="cumprod-zeros-two-in-a-column",
    ),
    S("cumprod", lambda x: x.cumprod(0), ((1, 3),), id="cumprod-length-one"),
    S(
        "cumprod",
        lambda x: x.cumprod(1, dtype=lg.float64),
        ((2, 3),),
        make_inputs=_NONZERO([(2, 3)]),
        id="cumprod-dtype",
    ),
    S("cummax", lambda x: lg.cummax(x, 1).values, ((2, 5),), make_inputs=_distinct((2, 5))),
    S("cummin", lambda x: x.cummin(0)[0], ((4, 2),), make_inputs=_distinct((4, 2))),
    S("cummax", lambda x: x.cummax(0)[0], ((),), id="cummax-0d"),
    # logcumsumexp
    S("logcumsumexp", lambda x: lg.logcumsumexp(x, -1), ((2, 4),)),
    S("logcumsumexp", lambda x: x.logcumsumexp(0) * x, ((3, 2),), id="logcumsumexp-times-input"),
    # scatter: overwritten places get no gradient, src gets it gathered
    S("scatter.src", lambda x, s: x.scatter(1, _INDEX, s), ((2, 3), (2, 3))),
    S(
        "scatter.src",
        lambda x, s: lg.scatter(x, 0, lg.tensor([[0, 1]]), s),
        ((3, 2), (2, 4)),
        id="scatter-src-larger-than-index",
    ),
    S("scatter.value", lambda x: x.scatter(0, lg.tensor([[1], [0]]), 2.5), ((3, 2),)),
    S(
        "scatter_add",
        lambda x, s: lg.scatter_add(x, 1, _INDEX, s),
        ((2, 3), (2, 3)),
        id="scatter_add-public",
    ),
    S("logaddexp2", lambda x, y: lg.logaddexp2(x, y), ((2, 3), (3,))),
    S("logaddexp", lambda x, y: lg.logaddexp(x, y), ((2, 3), (3,))),
    # scatter_reduce: every reduction, with and without the input's own values
    *(
        S(
            "scatter_reduce.two",
            lambda x, s, r=r, inc=inc: x.scatter_reduce(0, _REDUCE_INDEX, s, r, include_self=inc),
            ((3, 2), (4, 2)),
            make_inputs=_distinct_pair((3, 2), (4, 2)) if r in ("amax", "amin", "prod") else None,
            id=f"scatter_reduce-{r}-{'self' if inc else 'no-self'}",
        )
        for r in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
    ),
    # copysign / nextafter: piecewise linear in the first input, constant in the second
    S(
        "copysign.Tensor",
        lambda x, y: lg.copysign(x, y),
        ((2, 3), (3,)),
        make_inputs=_NONZERO([(2, 3), (3,)]),
    ),
    S("copysign.Scalar", lambda x: x.copysign(-1.0), ((4,),), make_inputs=_NONZERO([(4,)])),
    S("nextafter", lambda x, y: lg.nextafter(x, y) * x, ((2, 3), (2, 3))),
]
