"""kl_divergence of the transformed, gamma-based, heavy-tailed and count families against
PyTorch: every pair
PyTorch registers among them (and with Normal, Exponential, Uniform), in values and first and
second derivatives, the infinite ones, and the pairs refused."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import beta as _beta
from tests.distributions._cases import draws
from tests.distributions._cases import exponential as _exponential
from tests.distributions._cases import gamma as _gamma
from tests.distributions._cases import kl_of as _kl
from tests.distributions._cases import normal as _normal
from tests.distributions._cases import uniform as _uniform

torch = pytest.importorskip("torch")

_u = draws(23)


def _chi2(m, df):
    return m.distributions.Chi2(df)


def _dirichlet(m, concentration):
    return m.distributions.Dirichlet(concentration)


def _log_normal(m, loc, scale):
    return m.distributions.LogNormal(loc, scale)


def _half_normal(m, scale):
    return m.distributions.HalfNormal(scale)


def _sigmoid_normal(m, loc, scale):
    T = m.distributions.transforms
    base = m.distributions.Normal(loc, scale)
    return m.distributions.TransformedDistribution(base, [T.SigmoidTransform()])


def _laplace(m, loc, scale):
    return m.distributions.Laplace(loc, scale)


def _cauchy(m, loc, scale):
    return m.distributions.Cauchy(loc, scale)


def _poisson(m, rate):
    return m.distributions.Poisson(rate)


def _bernoulli(m, probs):
    return m.distributions.Bernoulli(probs)


def _binomial(m, probs):
    return m.distributions.Binomial(5, probs)


def _geometric(m, probs):
    return m.distributions.Geometric(probs)


def _geometric_logits(m, logits):
    return m.distributions.Geometric(logits=logits)


def _one_hot(m, logits):
    return m.distributions.OneHotCategorical(logits=logits)


NORMAL, EXPONENTIAL = [_u(-1, 1, 3), _u(0.5, 2, 3)], [_u(0.5, 3, 3)]
GAMMA, BETA = [_u(0.5, 4, 3), _u(0.5, 3, 3)], [_u(0.5, 3, 3), _u(0.5, 3, 3)]
# inside [0, 1] in the first two entries, outside in the last (KL = inf); the low end
# is above 0 so that x log x stays finite
UNIT_LOW, UNIT_HIGH = np.array([0.1, 0.3, -0.5]), np.array([0.6, 0.9, 0.5])
UNIFORM_Q = [np.array([-0.5, 0.0, 0.2]), np.array([1.5, 1.0, 2.0])]

CASES = {
    "beta_beta": (_beta, _beta, BETA + [_u(0.5, 3, 3), _u(0.5, 3, 3)]),
    "gamma_gamma": (_gamma, _gamma, GAMMA + [_u(0.5, 4, 3), _u(0.5, 3, 3)]),
    "chi2_gamma": (_chi2, _gamma, [_u(1, 6, 3)] + GAMMA),
    "dirichlet_dirichlet": (_dirichlet, _dirichlet, [_u(0.5, 3, 2, 4), _u(0.5, 3, 4)]),
    "half_normal_half_normal": (_half_normal, _half_normal, [_u(0.5, 2, 3), _u(0.5, 2, 3)]),
    "log_normal_log_normal": (_log_normal, _log_normal, NORMAL + [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "transformed_transformed": (_sigmoid_normal, _sigmoid_normal, NORMAL + NORMAL),
    # Beta's entropy has a gradient near 0 at some BETA entries, where ATen's trigamma
    # error (about 1e-10 absolute) is no longer small relative to it: keep away from there
    "beta_exponential": (_beta, _exponential, [_u(0.5, 1, 3), _u(2, 3, 3)] + EXPONENTIAL),
    "beta_gamma": (_beta, _gamma, BETA + GAMMA),
    "beta_normal": (_beta, _normal, BETA + NORMAL),
    "beta_uniform": (_beta, _uniform, [_u(0.5, 1, 3), _u(2, 3, 3)] + UNIFORM_Q),
    "exponential_gamma": (_exponential, _gamma, EXPONENTIAL + GAMMA),
    "gamma_exponential": (_gamma, _exponential, GAMMA + EXPONENTIAL),
    "gamma_normal": (_gamma, _normal, GAMMA + NORMAL),
    "uniform_beta": (_uniform, _beta, [UNIT_LOW, UNIT_HIGH] + BETA),
    "uniform_gamma": (_uniform, _gamma, [UNIT_LOW, UNIT_HIGH] + GAMMA),
    "exponential_beta": (_exponential, _beta, EXPONENTIAL + BETA),
    "gamma_beta": (_gamma, _beta, GAMMA + BETA),
    "gamma_uniform": (_gamma, _uniform, GAMMA + UNIFORM_Q),
    "normal_beta": (_normal, _beta, NORMAL + BETA),
    "normal_gamma": (_normal, _gamma, NORMAL + GAMMA),
    "laplace_laplace": (_laplace, _laplace, NORMAL + [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "laplace_normal": (_laplace, _normal, NORMAL + NORMAL),
    "normal_laplace": (_normal, _laplace, NORMAL + NORMAL),
    "laplace_beta": (_laplace, _beta, NORMAL + BETA),
    "laplace_exponential": (_laplace, _exponential, NORMAL + EXPONENTIAL),
    "laplace_gamma": (_laplace, _gamma, NORMAL + GAMMA),
    "laplace_uniform": (_laplace, _uniform, NORMAL + UNIFORM_Q),
    "cauchy_cauchy": (_cauchy, _cauchy, NORMAL + [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "poisson_poisson": (_poisson, _poisson, [_u(0.5, 4, 3), _u(0.5, 4, 3)]),
    "bernoulli_poisson": (_bernoulli, _poisson, [_u(0.1, 0.9, 3), _u(0.5, 4, 3)]),
    "poisson_bernoulli": (_poisson, _bernoulli, [_u(0.5, 4, 3), _u(0.1, 0.9, 3)]),
    "poisson_binomial": (_poisson, _binomial, [_u(0.5, 4, 3), _u(0.1, 0.9, 3)]),
    "binomial_binomial": (_binomial, _binomial, [_u(0.1, 0.9, 3), _u(0.1, 0.9, 3)]),
    "geometric_geometric": (_geometric, _geometric_logits, [_u(0.1, 0.9, 3), _u(-2, 2, 3)]),
    "one_hot_one_hot": (_one_hot, _one_hot, [_u(-2, 2, 2, 4), _u(-2, 2, 4)]),
}

# digamma's derivative, trigamma, is accurate to about 1e-9 in ATen's float64 (see
# test_formulas_families): pairs whose formulas hold digamma compare to that
_TRIGAMMA = {
    "beta_beta",
    "gamma_gamma",
    "chi2_gamma",
    "dirichlet_dirichlet",
    "beta_exponential",
    "beta_gamma",
    "beta_normal",
    "beta_uniform",
    "exponential_gamma",
    "gamma_exponential",
    "gamma_normal",
    "uniform_beta",
    "uniform_gamma",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_kl_values_and_derivatives_match_pytorch(name):
    make_p, make_q, arrays = CASES[name]
    kind = "iterative" if name in _TRIGAMMA else "direct"
    compare(_kl(make_p, make_q), arrays, kind=kind, torch=torch)


def test_kl_in_float32_stays_float32_with_pytorchs_values():
    for name in ("beta_beta", "gamma_normal", "uniform_beta", "dirichlet_dirichlet"):
        make_p, make_q, arrays = CASES[name]
        ours = _kl(make_p, make_q)(lg, *(lg.tensor(a, dtype=lg.float32) for a in arrays))
        theirs = _kl(make_p, make_q)(torch, *(torch.tensor(a, dtype=torch.float32) for a in arrays))
        assert ours.dtype == lg.float32
        assert_close(ours, theirs, kind="iterative")


def test_binomial_kl_is_infinite_for_more_trials_in_p_and_refused_for_fewer():
    for m in (lg, torch):
        D = m.distributions
        p = D.Binomial(m.tensor([5.0, 6.0]), m.tensor([0.3, 0.6]))
        kl = D.kl_divergence(p, D.Binomial(5, m.tensor([0.2, 0.5])))
        assert np.isinf(kl.numpy()).tolist() == [False, True]
        with pytest.raises(NotImplementedError):
            D.kl_divergence(D.Binomial(4, m.tensor(0.5)), D.Binomial(5, m.tensor(0.5)))


def test_kl_is_infinite_where_p_puts_mass_outside_q():
    for name in ("beta_uniform", "uniform_beta", "uniform_gamma", "normal_gamma"):
        make_p, make_q, arrays = CASES[name]
        ours = _kl(make_p, make_q)(lg, *(lg.tensor(a) for a in arrays))
        theirs = _kl(make_p, make_q)(torch, *(torch.tensor(a) for a in arrays))
        assert np.isinf(ours.numpy()).tolist() == np.isinf(theirs.numpy()).tolist()


@pytest.mark.parametrize(
    "pair",
    [
        lambda D: (D.Beta(1.0, 2.0), D.Dirichlet(D.Beta(1.0, 2.0)._dirichlet.concentration)),
        lambda D: (
            D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.ExpTransform()),
            D.TransformedDistribution(D.Normal(0.0, 1.0), D.transforms.SigmoidTransform()),
        ),
        lambda D: (D.HalfNormal(1.0), D.Normal(0.0, 1.0)),
    ],
)
def test_pairs_pytorch_refuses_are_refused(pair):
    for m in (lg, torch):
        p, q = pair(m.distributions)
        with pytest.raises(NotImplementedError):
            m.distributions.kl_divergence(p, q)
