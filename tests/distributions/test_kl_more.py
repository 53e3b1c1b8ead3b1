"""kl_divergence of Gumbel, Pareto, ContinuousBernoulli and LowRankMultivariateNormal against
PyTorch: every pair PyTorch registers with them, in values and first and second
derivatives, and the infinite ones."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests.distributions._cases import beta as _beta
from tests.distributions._cases import draws
from tests.distributions._cases import exponential as _exponential
from tests.distributions._cases import gamma as _gamma
from tests.distributions._cases import kl_of as _kl
from tests.distributions._cases import normal as _normal
from tests.distributions._cases import uniform as _uniform

torch = pytest.importorskip("torch")

_u = draws(31)


def _gumbel(m, loc, scale):
    return m.distributions.Gumbel(loc, scale)


def _pareto(m, scale, alpha):
    return m.distributions.Pareto(scale, alpha)


def _continuous_bernoulli(m, probs):
    return m.distributions.ContinuousBernoulli(probs)


def _low_rank(m, loc, cov_factor, cov_diag):
    return m.distributions.LowRankMultivariateNormal(loc, cov_factor, cov_diag)


def _mvn(m, loc, scale_tril):
    return m.distributions.MultivariateNormal(loc, scale_tril=scale_tril.tril())


NORMAL, EXPONENTIAL = [_u(-1, 1, 3), _u(0.5, 2, 3)], [_u(0.5, 3, 3)]
GAMMA, BETA = [_u(0.5, 4, 3), _u(0.5, 3, 3)], [_u(0.5, 3, 3), _u(0.5, 3, 3)]
GUMBEL = [_u(-1, 1, 3), _u(0.5, 2, 3)]
# alpha above 2 for the closed forms; the entries at or below 1 and 2 (inf) are tested apart
PARETO = [_u(0.5, 2, 3), _u(2.5, 4, 3)]
CB = [np.array([0.2, 0.4995, 0.8])]
UNIT = [np.array([0.1, 0.3, 0.2]), np.array([0.6, 0.9, 0.5])]
LOW_RANK = [_u(-1, 1, 2, 3), _u(-1, 1, 3, 2), _u(0.5, 2, 3)]
MVN = [_u(-1, 1, 3), np.tril(_u(-0.5, 0.5, 3, 3)) + np.diag(_u(1, 2, 3))]

CASES = {
    "cb_cb": (_continuous_bernoulli, _continuous_bernoulli, CB + [np.array([0.7, 0.3, 0.5])]),
    "gumbel_gumbel": (_gumbel, _gumbel, GUMBEL + [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "pareto_pareto": (_pareto, _pareto, PARETO + [_u(0.1, 0.4, 3), _u(0.5, 3, 3)]),
    "beta_cb": (_beta, _continuous_bernoulli, BETA + CB),
    "cb_exponential": (_continuous_bernoulli, _exponential, CB + EXPONENTIAL),
    "cb_normal": (_continuous_bernoulli, _normal, CB + NORMAL),
    "cb_uniform": (
        _continuous_bernoulli,
        _uniform,
        CB + [np.array([-0.5, 0.1, -1.0]), np.array([1.5, 2.0, 0.9])],
    ),
    "exponential_gumbel": (_exponential, _gumbel, EXPONENTIAL + GUMBEL),
    "gamma_gumbel": (_gamma, _gumbel, GAMMA + GUMBEL),
    "gumbel_normal": (_gumbel, _normal, GUMBEL + NORMAL),
    "normal_gumbel": (_normal, _gumbel, NORMAL + GUMBEL),
    "pareto_exponential": (_pareto, _exponential, PARETO + EXPONENTIAL),
    "pareto_gamma": (_pareto, _gamma, PARETO + GAMMA),
    "pareto_normal": (_pareto, _normal, PARETO + NORMAL),
    "uniform_cb": (_uniform, _continuous_bernoulli, UNIT + CB),
    "uniform_gumbel": (_uniform, _gumbel, UNIT + GUMBEL),
    "uniform_pareto": (
        _uniform,
        _pareto,
        [_u(1.5, 2, 3), _u(2.5, 3, 3), _u(0.5, 1.5, 3), _u(1, 3, 3)],
    ),
    "low_rank_low_rank": (
        _low_rank,
        _low_rank,
        LOW_RANK + [_u(-1, 1, 3), _u(-1, 1, 3, 1), _u(0.5, 2, 3)],
    ),
    "mvn_low_rank": (_mvn, _low_rank, MVN + LOW_RANK),
    "low_rank_mvn": (_low_rank, _mvn, LOW_RANK + MVN),
}

# pairs whose formulas hold lgamma or digamma: their derivatives (digamma, trigamma) are
# accurate to about 1e-9 in ATen's float64 (see test_formulas_families)
_TRIGAMMA = {"beta_cb", "gamma_gumbel", "gumbel_gumbel", "pareto_gamma"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_kl_values_and_derivatives_match_pytorch(name):
    make_p, make_q, arrays = CASES[name]
    kind = "iterative" if name in _TRIGAMMA else "direct"
    compare(_kl(make_p, make_q), arrays, kind=kind, torch=torch)


INFINITE = [
    (_beta, _pareto, BETA + PARETO),
    (_continuous_bernoulli, _pareto, CB + PARETO),
    (_exponential, _pareto, EXPONENTIAL + PARETO),
    (_exponential, _continuous_bernoulli, EXPONENTIAL + CB),
    (_gamma, _pareto, GAMMA + PARETO),
    (_gamma, _continuous_bernoulli, GAMMA + CB),
    (_gumbel, _beta, GUMBEL + BETA),
    (_gumbel, _continuous_bernoulli, GUMBEL + CB),
    (_gumbel, _exponential, GUMBEL + EXPONENTIAL),
    (_gumbel, _gamma, GUMBEL + GAMMA),
    (_gumbel, _pareto, GUMBEL + PARETO),
    (_gumbel, _uniform, GUMBEL + UNIT),
    (_normal, _pareto, NORMAL + PARETO),
    (_normal, _continuous_bernoulli, NORMAL + CB),
    (_pareto, _beta, PARETO + BETA),
    (_pareto, _continuous_bernoulli, PARETO + CB),
    (_pareto, _uniform, PARETO + UNIT),
    # p's tail too heavy for q's moments, or p's support reaching outside q's
    (_pareto, _exponential, [PARETO[0], np.array([0.5, 1.0, 3.0])] + EXPONENTIAL),
    (_pareto, _normal, [PARETO[0], np.array([1.5, 2.0, 3.0])] + NORMAL),
    (
        _pareto,
        _pareto,
        [np.array([0.5, 1.0, 2.0]), PARETO[1], np.array([1.0, 1.0, 1.0]), PARETO[1]],
    ),
    (
        _uniform,
        _pareto,
        [
            np.array([0.2, 1.5, 2.0]),
            np.array([2.5, 3.0, 3.0]),
            np.array([1.0, 1.0, 1.0]),
            PARETO[1],
        ],
    ),
]


@pytest.mark.parametrize("make_p, make_q, arrays", INFINITE)
def test_kl_is_infinite_where_pytorchs_is(make_p, make_q, arrays):
    ours = _kl(make_p, make_q)(lg, *(lg.tensor(a) for a in arrays))
    theirs = _kl(make_p, make_q)(torch, *(torch.tensor(a) for a in arrays))
    np.testing.assert_array_equal(np.isinf(ours.numpy()), np.isinf(theirs.numpy()))
    finite = ~np.isinf(theirs.numpy())
    np.testing.assert_allclose(ours.numpy()[finite], theirs.numpy()[finite], rtol=1e-10)


def test_low_rank_kl_with_different_event_shapes_raises_value_error():
    for m in (lg, torch):
        D = m.distributions
        p = D.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2))
        q = D.LowRankMultivariateNormal(m.zeros(3), m.ones(3, 1), m.ones(3))
        with pytest.raises(ValueError):
            D.kl_divergence(p, q)
