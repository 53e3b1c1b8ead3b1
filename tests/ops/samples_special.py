"""Op-table samples for ops/special.py and ops/gamma.py (leafgrad.special)."""

import leafgrad as lg

from .optable import OpSample, away_from

S = OpSample


def _uniform(*ranges):
    """One input per ``(lo, hi, shape)``."""

    def make(rng):
        return [rng.uniform(lo, hi, size=shape) for lo, hi, shape in ranges]

    return make


def _constant(like, value):
    """``value`` in ``like``'s shape, outside the graph (a first argument without derivative)."""
    return like.detach() * 0 + value


SAMPLES = [
    # gamma family
    S("lgamma", lambda x: lg.lgamma(x), ((2, 3),), domain=(0.3, 3.0)),
    S("lgamma", lambda x: x.lgamma(), ((4,),), domain=(-2.9, -2.1), id="lgamma-negative"),
    S("digamma", lambda x: lg.special.psi(x), ((2, 3),), domain=(0.3, 3.0)),
    S("polygamma", lambda x: lg.polygamma(1, x), ((2, 3),), domain=(0.5, 3.0)),
    S("polygamma", lambda x: x.polygamma(3), ((4,),), domain=(0.5, 3.0), id="polygamma-3-method"),
    S("mvlgamma", lambda x: lg.mvlgamma(x, 3), ((4,),), domain=(1.2, 3.0)),
    S(
        "mvlgamma",
        lambda x: lg.special.multigammaln(x, 2),
        ((2, 3),),
        domain=(0.8, 3.0),
        id="multigammaln",
    ),
    S(
        "special_zeta",
        lambda q: lg.special.zeta(_constant(q, 3.0), q),
        ((2, 3),),
        domain=(0.5, 2.0),
    ),
    S("special_zeta.self_scalar", lambda q: lg.special.zeta(2.5, q), ((3,),), domain=(0.5, 2.0)),
    S("igamma", lambda x: lg.special.gammainc(_constant(x, 2.5), x), ((2, 3),), domain=(0.3, 3.0)),
    S("igammac", lambda x: lg.igammac(_constant(x, 0.7), x), ((4,),), domain=(0.3, 3.0)),
    # special.py
    S("special_erfcx", lambda x: lg.special.erfcx(x), ((2, 3),)),
    S("logit", lambda x: lg.logit(x), ((2, 3),), domain=(0.1, 0.9)),
    S(
        "logit",
        lambda x: x.logit(eps=0.2),
        ((6,),),
        make_inputs=lambda rng: away_from([0.2, 0.8], 0.05, 0.0, 1.0)([(6,)])(rng),
        id="logit-eps",
    ),
    S(
        "xlogy.Tensor",
        lambda x, y: lg.xlogy(x, y),
        ((2, 3), (3,)),
        make_inputs=_uniform((-2.0, 2.0, (2, 3)), (0.5, 2.0, (3,))),
    ),
    S("xlogy.Scalar_Self", lambda y: lg.special.xlogy(2.0, y), ((3,),), domain=(0.5, 2.0)),
    S("xlogy.Scalar_Other", lambda x: x.xlogy(3.0), ((3,),)),
    S(
        "special_xlog1py",
        lambda x, y: lg.special.xlog1py(x, y),
        ((3,), (2, 3)),
        make_inputs=_uniform((-2.0, 2.0, (3,)), (-0.5, 2.0, (2, 3))),
    ),
    S(
        "special_xlog1py.self_scalar",
        lambda y: lg.special.xlog1py(-1.5, y),
        ((3,),),
        domain=(0.0, 2.0),
    ),
    S("special_xlog1py.other_scalar", lambda x: lg.special.xlog1py(x, 0.5), ((3,),)),
    S("i0", lambda x: lg.i0(x), ((2, 3),)),
    S(
        "special_i0e",
        lambda x: lg.special.i0e(x),
        ((6,),),
        make_inputs=away_from([0.0])([(6,)]),
    ),
    S("special_i1", lambda x: lg.special.i1(x), ((2, 3),)),
    S(
        "special_i1e",
        lambda x: lg.special.i1e(x),
        ((6,),),
        make_inputs=away_from([0.0])([(6,)]),
    ),
    S("special_entr", lambda x: lg.special.entr(x), ((2, 3),), domain=(0.1, 2.0)),
    S("special_ndtri", lambda x: lg.special.ndtri(x), ((2, 3),), domain=(0.05, 0.95)),
    S("special_log_ndtr", lambda x: lg.special.log_ndtr(x), ((2, 3),), domain=(-3.0, 3.0)),
    S("erf", lambda x: lg.special.ndtr(x), ((4,),), id="ndtr"),
]
