"""log_prob, cdf, icdf, entropy and moments of the transformed, gamma-based, heavy-tailed and
count families against PyTorch: values in float32 and float64, first and second derivatives."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws

torch = pytest.importorskip("torch")

_u = draws(17)


def _moments(d):
    return [d.entropy(), d.mean, d.mode, d.variance, d.stddev]


def _log_normal(m, loc, scale, x, u):
    d = m.distributions.LogNormal(loc, scale)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), *_moments(d)]


def _half_normal(m, scale, x, u):
    d = m.distributions.HalfNormal(scale)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), d.entropy(), d.mean, d.variance]


def _transformed(m, loc, scale, shift, x):
    T = m.distributions.transforms
    parts = [T.AffineTransform(shift, scale), T.SigmoidTransform(), T.PowerTransform(2.0)]
    d = m.distributions.TransformedDistribution(m.distributions.Normal(loc, 1.0), parts)
    return [d.log_prob(x), d.cdf(x), d.icdf(x)]


def _transformed_tanh_softplus(m, loc, scale, x):
    T = m.distributions.transforms
    base = m.distributions.Normal(loc, scale)
    tanh = m.distributions.TransformedDistribution(base, [T.TanhTransform()])
    softplus = m.distributions.TransformedDistribution(base, T.SoftplusTransform())
    return [tanh.log_prob(x.tanh()), softplus.log_prob(x.exp()), softplus.cdf(x.exp())]


def _transformed_event(m, loc, scale, x):
    T = m.distributions.transforms
    affine = T.AffineTransform(loc, scale, event_dim=1)
    base = m.distributions.Normal(m.zeros(3, dtype=loc.dtype), 1.0)
    d = m.distributions.TransformedDistribution(base, [affine, T.ExpTransform()])
    return [d.log_prob(x)]


def _gamma(m, concentration, rate, x):
    d = m.distributions.Gamma(concentration, rate)
    return [d.log_prob(x), *_moments(d)]


def _gamma_cdf(m, rate, x):
    # PyTorch has no derivative of igamma in the concentration: keep it a constant here
    d = m.distributions.Gamma(m.tensor([0.5, 2.0, 4.0], dtype=rate.dtype), rate)
    return [d.cdf(x)]


def _chi2(m, df, x):
    d = m.distributions.Chi2(df)
    return [d.log_prob(x), *_moments(d)]


def _beta(m, c1, c0, x):
    d = m.distributions.Beta(c1, c0)
    return [d.log_prob(x), *_moments(d)]


def _beta_numbers(m, x):
    d = m.distributions.Beta(0.7, 2.5)
    return [d.log_prob(x), d.entropy(), d.mean, d.variance]


def _dirichlet(m, concentration, x):
    d = m.distributions.Dirichlet(concentration)
    return [d.log_prob(x / x.sum(-1, keepdim=True)), *_moments(d)]


def _exp_family_entropy(m, concentration, rate):
    # Beta and Dirichlet have no carrier measure in PyTorch: only Gamma takes this path
    return [m.distributions.ExponentialFamily.entropy(m.distributions.Gamma(concentration, rate))]


def _laplace(m, loc, scale, x, u):
    d = m.distributions.Laplace(loc, scale)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), *_moments(d)]


def _cauchy(m, loc, scale, x, u):
    d = m.distributions.Cauchy(loc, scale)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), d.entropy(), d.mode]


def _studentt(m, df, loc, scale, x):
    d = m.distributions.StudentT(df, loc, scale)
    return [d.log_prob(x), d.entropy(), d.mean, d.mode, d.variance]


def _poisson(m, rate):
    d = m.distributions.Poisson(rate)
    k = m.tensor([[0.0, 1.0, 4.0], [2.0, 0.0, 7.0]], dtype=rate.dtype)
    return [d.log_prob(k), d.mean, d.mode, d.variance]


def _binomial_probs(m, probs):
    d = m.distributions.Binomial(6, probs)
    k = m.tensor([[0.0, 3.0, 6.0], [2.0, 1.0, 5.0]], dtype=probs.dtype)
    return [d.log_prob(k), d.logits, *_moments(d)]


def _binomial_logits(m, total_count, logits):
    # total_count is an integer parameter: no derivative there, so it enters as a constant
    d = m.distributions.Binomial(total_count.detach().round() + 4, logits=logits)
    return [d.log_prob(m.tensor([0.0, 2.0, 4.0], dtype=logits.dtype)), d.probs, d.mean]


def _geometric_probs(m, probs):
    d = m.distributions.Geometric(probs)
    k = m.tensor([[0.0, 3.0, 6.0], [2.0, 1.0, 0.0]], dtype=probs.dtype)
    return [d.log_prob(k), *_moments(d)]


def _geometric_logits(m, logits):
    d = m.distributions.Geometric(logits=logits)
    return [d.log_prob(m.tensor([0.0, 2.0, 5.0], dtype=logits.dtype)), d.probs, d.entropy()]


def _one_hot_categorical(m, logits):
    d = m.distributions.OneHotCategorical(logits=logits)
    value = m.tensor([[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]], dtype=logits.dtype)
    return [d.log_prob(value), d.probs, d.entropy(), d.mean, d.variance]


CASES = {
    "log_normal": (
        _log_normal,
        [_u(-1, 1, 3), _u(0.5, 2, 3), _u(0.1, 4, 2, 3), _u(0.05, 0.95, 3)],
    ),
    "half_normal": (_half_normal, [_u(0.5, 2, 3), _u(0.1, 3, 2, 3), _u(0.05, 0.95, 3)]),
    "transformed": (
        _transformed,
        [_u(-1, 1, 3), _u(0.5, 2, 3), _u(-0.5, 0.5, 2, 1), _u(0.1, 0.9, 2, 3)],
    ),
    "transformed_tanh_softplus": (
        _transformed_tanh_softplus,
        [_u(-1, 1, 3), _u(0.5, 2, 3), _u(-2, 2, 2, 3)],
    ),
    "transformed_event": (_transformed_event, [_u(-1, 1, 3), _u(0.5, 2, 3), _u(0.2, 3, 2, 3)]),
    "gamma": (_gamma, [_u(0.3, 4, 3), _u(0.5, 3, 3), _u(0.1, 3, 2, 3)]),
    "gamma_cdf": (_gamma_cdf, [_u(0.5, 3, 3), _u(0.1, 3, 2, 3)]),
    "chi2": (_chi2, [_u(1, 6, 3), _u(0.1, 5, 2, 3)]),
    "beta": (_beta, [_u(0.3, 3, 3), _u(0.3, 3, 3), _u(0.05, 0.95, 2, 3)]),
    "beta_numbers": (_beta_numbers, [_u(0.05, 0.95, 4)]),
    "dirichlet": (_dirichlet, [_u(0.3, 3, 2, 4), _u(0.1, 1, 2, 4)]),
    "laplace": (
        _laplace,
        [_u(-1, 1, 3), _u(0.5, 2, 3), _u(-3, 3, 2, 3), _u(0.05, 0.95, 3)],
    ),
    "cauchy": (_cauchy, [_u(-1, 1, 3), _u(0.5, 2, 3), _u(-3, 3, 2, 3), _u(0.05, 0.95, 3)]),
    "studentt": (
        _studentt,
        [np.array([0.7, 1.5, 2.5]), _u(-1, 1, 3), _u(0.5, 2, 3), _u(-3, 3, 2, 3)],
    ),
    "poisson": (_poisson, [_u(0.3, 5, 3)]),
    "binomial_probs": (_binomial_probs, [_u(0.1, 0.9, 3)]),
    "binomial_logits": (_binomial_logits, [_u(0, 3, 3), _u(-2, 2, 3)]),
    "geometric_probs": (_geometric_probs, [np.array([0.2, 0.7, 1.0])]),
    "geometric_logits": (_geometric_logits, [_u(-2, 2, 3)]),
    "one_hot_categorical": (_one_hot_categorical, [_u(-2, 2, 2, 4)]),
    "exp_family_entropy": (
        _exp_family_entropy,
        [_u(0.3, 4, 3), _u(0.5, 3, 3)],
    ),
}


# Derivatives of digamma are trigamma, which ATen computes to about 1e-9 relative in float64
# (polygamma(1, 0.5) is pi^2 / 2 + 1.5e-9 there; SciPy's, which leafgrad uses, is exact).
_TRIGAMMA = {
    "beta",
    "binomial_probs",
    "chi2",
    "dirichlet",
    "exp_family_entropy",
    "gamma",
    "poisson",
    "studentt",
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
        # special functions (lgamma, digamma, igamma) round differently in SciPy and ATen
        assert_close(o, t.detach(), kind="iterative")


def test_mode_of_beta_and_dirichlet_below_one_is_a_corner_as_pytorchs():
    args = ([[0.5, 0.3, 0.8], [2.0, 3.0, 1.0], [0.9, 0.9, 0.2]], [0.5, 2.0], [0.5, 3.0])
    ours, theirs = [], []
    for m, out in ((lg, ours), (torch, theirs)):
        c, c1, c0 = (m.tensor(a) for a in args)
        out += [m.distributions.Dirichlet(c).mode, m.distributions.Beta(c1, c0).mode]
    for o, t in zip(ours, theirs):
        assert_close(o, t)


def test_half_normal_log_prob_is_minus_infinity_below_zero():
    for m in (lg, torch):
        d = m.distributions.HalfNormal(m.tensor([1.0, 2.0]), validate_args=False)
        assert d.log_prob(m.tensor([-0.5, 0.5])).tolist()[0] == float("-inf")
