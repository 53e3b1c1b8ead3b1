"""log_prob, cdf, icdf, entropy and moments of the extreme-value, mixture, low-rank, relaxed
and count families added last, against PyTorch: values in float32 and float64, first and
second derivatives."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws

torch = pytest.importorskip("torch")

_u = draws(29)


def _moments(d):
    return [d.entropy(), d.mean, d.mode, d.variance, d.stddev]


def _gumbel(m, loc, scale, x, u):
    d = m.distributions.Gumbel(loc, scale)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), *_moments(d)]


def _weibull(m, scale, concentration, x, u):
    d = m.distributions.Weibull(scale, concentration)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), *_moments(d)]


def _pareto(m, scale, alpha, x, u):
    d = m.distributions.Pareto(scale, alpha)
    return [d.log_prob(scale + x), d.cdf(scale + x), d.icdf(u), *_moments(d)]


def _half_cauchy(m, scale, x, u):
    d = m.distributions.HalfCauchy(scale)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), d.entropy(), d.mode]


def _inverse_gamma(m, concentration, rate, x):
    d = m.distributions.InverseGamma(concentration, rate)
    return [d.log_prob(x), *_moments(d)]


def _kumaraswamy(m, c1, c0, x):
    d = m.distributions.Kumaraswamy(c1, c0)
    return [d.log_prob(x), d.entropy(), d.mean, d.variance]


def _fisher_snedecor(m, df1, df2, x):
    d = m.distributions.FisherSnedecor(df1, df2)
    return [d.log_prob(x), d.mean, d.mode, d.variance]


def _negative_binomial(m, total_count, probs):
    d = m.distributions.NegativeBinomial(total_count, probs)
    k = m.tensor([[0.0, 3.0, 6.0], [2.0, 1.0, 0.0]], dtype=probs.dtype)
    return [d.log_prob(k), d.logits, d.mean, d.mode, d.variance]


def _negative_binomial_logits(m, logits):
    d = m.distributions.NegativeBinomial(
        m.tensor([0.0, 2.5, 4.0], dtype=logits.dtype), logits=logits
    )
    return [d.log_prob(m.tensor([0.0, 2.0, 5.0], dtype=logits.dtype)), d.probs, d.mean]


def _multinomial(m, logits):
    d = m.distributions.Multinomial(4, logits=logits)
    value = m.tensor([[1.0, 0.0, 3.0, 0.0], [0.0, 2.0, 1.0, 1.0]], dtype=logits.dtype)
    return [d.log_prob(value), d.probs, d.mean, d.variance, d.entropy()]


def _mixture(m, logits, loc, scale, x):
    D = m.distributions
    d = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(loc, scale))
    return [d.log_prob(x), d.cdf(x), d.mean, d.variance]


def _mixture_event(m, logits, loc, scale, x):
    D = m.distributions
    components = D.Independent(D.Normal(loc, scale), 1)
    d = D.MixtureSameFamily(D.Categorical(logits=logits), components)
    return [d.log_prob(x), d.mean, d.variance]


def _low_rank(m, loc, cov_factor, cov_diag, x):
    d = m.distributions.LowRankMultivariateNormal(loc, cov_factor, cov_diag)
    matrices = [d.covariance_matrix, d.precision_matrix, d.scale_tril]
    return [d.log_prob(x), d.entropy(), d.variance, *matrices]


def _relaxed_bernoulli(m, temperature, logits, x):
    d = m.distributions.RelaxedBernoulli(temperature, logits=logits)
    return [d.log_prob(x), d.probs]


def _relaxed_one_hot(m, temperature, probs, x):
    d = m.distributions.RelaxedOneHotCategorical(temperature, probs=probs)
    return [d.log_prob(x / x.sum(-1, keepdim=True)), d.logits]


def _continuous_bernoulli(m, probs, x, u):
    d = m.distributions.ContinuousBernoulli(probs)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), d.entropy(), d.mean, d.variance, d.logits]


def _continuous_bernoulli_logits(m, logits, x):
    d = m.distributions.ContinuousBernoulli(logits=logits)
    return [d.log_prob(x), d.entropy(), d.mean, d.variance]


def _continuous_bernoulli_exp_family(m, probs):
    d = m.distributions.ContinuousBernoulli(probs)
    return [m.distributions.ExponentialFamily.entropy(d)]


def _logistic_normal(m, loc, scale, x):
    d = m.distributions.LogisticNormal(loc, scale)
    return [d.log_prob(x / x.sum(-1, keepdim=True))]


CASES = {
    "gumbel": (_gumbel, [_u(-1, 1, 3), _u(0.5, 2, 3), _u(-1, 3, 2, 3), _u(0.05, 0.95, 3)]),
    "weibull": (_weibull, [_u(0.5, 2, 3), _u(0.5, 3, 3), _u(0.1, 3, 2, 3), _u(0.05, 0.95, 3)]),
    "pareto": (
        _pareto,
        [_u(0.5, 2, 3), np.array([0.7, 1.5, 3.0]), _u(0, 3, 2, 3), _u(0.05, 0.95, 3)],
    ),
    "half_cauchy": (_half_cauchy, [_u(0.5, 2, 3), _u(0.1, 3, 2, 3), _u(0.05, 0.95, 3)]),
    "inverse_gamma": (_inverse_gamma, [np.array([0.7, 1.5, 3.0]), _u(0.5, 3, 3), _u(0.1, 3, 2, 3)]),
    "kumaraswamy": (_kumaraswamy, [_u(0.5, 3, 3), _u(0.5, 3, 3), _u(0.05, 0.95, 2, 3)]),
    "fisher_snedecor": (
        _fisher_snedecor,
        [np.array([1.5, 3.0, 6.0]), np.array([1.5, 3.0, 6.0]), _u(0.1, 4, 2, 3)],
    ),
    "negative_binomial": (_negative_binomial, [_u(0.5, 5, 3), _u(0.1, 0.9, 3)]),
    "negative_binomial_logits": (_negative_binomial_logits, [_u(-2, 2, 3)]),
    "multinomial": (_multinomial, [_u(-2, 2, 2, 4)]),
    "mixture": (_mixture, [_u(-1, 1, 2, 3), _u(-1, 1, 2, 3), _u(0.5, 2, 2, 3), _u(-2, 2, 4, 2)]),
    "mixture_event": (
        _mixture_event,
        [_u(-1, 1, 3), _u(-1, 1, 3, 2), _u(0.5, 2, 3, 2), _u(-2, 2, 4, 2)],
    ),
    "low_rank": (_low_rank, [_u(-1, 1, 2, 3), _u(-1, 1, 3, 2), _u(0.5, 2, 3), _u(-2, 2, 4, 2, 3)]),
    "relaxed_bernoulli": (_relaxed_bernoulli, [_u(0.3, 2, 3), _u(-2, 2, 3), _u(0.05, 0.95, 2, 3)]),
    "relaxed_one_hot": (_relaxed_one_hot, [_u(0.3, 2), _u(0.1, 1, 2, 4), _u(0.1, 1, 2, 4)]),
    "continuous_bernoulli": (
        _continuous_bernoulli,
        [np.array([0.2, 0.4995, 0.8]), _u(0.05, 0.95, 2, 3), _u(0.05, 0.95, 3)],
    ),
    "continuous_bernoulli_logits": (
        _continuous_bernoulli_logits,
        [np.array([-2.0, 1e-4, 1.5]), _u(0.05, 0.95, 2, 3)],
    ),
    "continuous_bernoulli_exp_family": (_continuous_bernoulli_exp_family, [np.array([0.2, 0.7])]),
    "logistic_normal": (_logistic_normal, [_u(-1, 1, 3), _u(0.5, 2, 3), _u(0.1, 1, 2, 4)]),
}

# digamma's derivative, trigamma, is accurate to about 1e-9 in ATen's float64 (see
# test_formulas_families)
_TRIGAMMA = {
    "inverse_gamma",
    "kumaraswamy",
    "fisher_snedecor",
    "negative_binomial",
    "negative_binomial_logits",
    "weibull",
    "multinomial",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_pytorch_in_float64(name):
    fn, arrays = CASES[name]
    compare(fn, arrays, kind="iterative" if name in _TRIGAMMA else "direct", torch=torch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_parameters_give_float32_results_with_pytorchs_values(name):
    fn, arrays = CASES[name]
    ours = fn(lg, *[lg.tensor(a, dtype=lg.float32) for a in arrays])
    theirs = fn(torch, *[torch.tensor(a, dtype=torch.float32) for a in arrays])
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype) == "torch.float32"
        assert_close(o, t.detach(), kind="iterative")
