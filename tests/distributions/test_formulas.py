"""log_prob, cdf, icdf, entropy and moments of every distribution against PyTorch: values in
float32 and float64, first and second derivatives in the parameters and the value."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws

torch = pytest.importorskip("torch")

_uniform = draws(7)


def _moments(d):
    return [d.entropy(), d.mean, d.variance, d.stddev, d.perplexity()]


def _normal(m, loc, scale, x, u):
    d = m.distributions.Normal(loc, scale)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), *_moments(d)]


def _normal_numbers(m, x):
    d = m.distributions.Normal(0.5, 2.0)
    return [d.log_prob(x), d.cdf(x), d.icdf(m.sigmoid(x)), d.entropy(), d.variance]


def _uniform_dist(m, low, high, x, u):
    d = m.distributions.Uniform(low, high)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), *_moments(d)]


def _exponential(m, rate, x, u):
    d = m.distributions.Exponential(rate)
    return [d.log_prob(x), d.cdf(x), d.icdf(u), *_moments(d)]


def _bernoulli_probs(m, probs, value):
    d = m.distributions.Bernoulli(probs=probs)
    return [d.log_prob(value), d.logits, *_moments(d)]


def _bernoulli_logits(m, logits, value):
    d = m.distributions.Bernoulli(logits=logits)
    return [d.log_prob(value), d.probs, *_moments(d)]


def _categorical_probs(m, probs):
    d = m.distributions.Categorical(probs=probs)
    return [d.log_prob(m.tensor([[3, 0], [1, 2]])), d.logits, d.entropy()]


def _categorical_logits(m, logits):
    d = m.distributions.Categorical(logits=logits)
    return [d.log_prob(m.tensor([2, 0])), d.probs, d.entropy(), d.perplexity()]


def _independent(m, loc, scale, x):
    d = m.distributions.Independent(m.distributions.Normal(loc, scale), 2)
    return [d.log_prob(x), d.entropy(), d.mean, d.variance]


def _mvn_scale_tril(m, loc, tril, x):
    d = m.distributions.MultivariateNormal(loc, scale_tril=tril)
    return [d.log_prob(x), d.entropy(), d.variance, d.covariance_matrix, d.precision_matrix]


def _mvn_covariance(m, loc, a, x):
    cov = a @ a.mT + 0.5 * m.eye(3, dtype=a.dtype)
    d = m.distributions.MultivariateNormal(loc, covariance_matrix=cov)
    return [d.log_prob(x), d.entropy(), d.variance, d.scale_tril]


def _mvn_precision(m, loc, a, x):
    precision = a @ a.mT + 0.5 * m.eye(3, dtype=a.dtype)
    d = m.distributions.MultivariateNormal(loc, precision_matrix=precision)
    return [d.log_prob(x), d.entropy(), d.variance, d.scale_tril, d.covariance_matrix]


_TRIL = np.tril(_uniform(-0.5, 0.5, 2, 3, 3), -1) + np.eye(3) * _uniform(0.5, 2.0, 2, 1, 3)

CASES = {
    "normal": (
        _normal,
        [_uniform(-1, 1, 3), _uniform(0.5, 2, 3), _uniform(-2, 2, 2, 3), _uniform(0.05, 0.95, 3)],
    ),
    "normal_numbers": (_normal_numbers, [_uniform(-2, 2, 4)]),
    "uniform": (
        _uniform_dist,
        [_uniform(-2, -1, 3), _uniform(1, 2, 3), _uniform(-0.9, 0.9, 2, 3), _uniform(0, 1, 3)],
    ),
    "exponential": (
        _exponential,
        [_uniform(0.5, 3, 3), _uniform(0.01, 3, 2, 3), _uniform(0.05, 0.95, 3)],
    ),
    "bernoulli_probs": (
        _bernoulli_probs,
        [_uniform(0.1, 0.9, 4), np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0]])],
    ),
    "bernoulli_logits": (_bernoulli_logits, [_uniform(-3, 3, 4), np.array([0.0, 1.0, 1.0, 0.0])]),
    "categorical_probs": (_categorical_probs, [_uniform(0.1, 1, 2, 4)]),
    "categorical_logits": (_categorical_logits, [_uniform(-2, 2, 2, 3)]),
    "independent": (
        _independent,
        [_uniform(-1, 1, 2, 3, 2), _uniform(0.5, 2, 2, 3, 2), _uniform(-2, 2, 2, 3, 2)],
    ),
    "mvn_scale_tril": (_mvn_scale_tril, [_uniform(-1, 1, 2, 3), _TRIL, _uniform(-2, 2, 4, 2, 3)]),
    "mvn_covariance": (
        _mvn_covariance,
        [_uniform(-1, 1, 3), _uniform(-1, 1, 3, 3), _uniform(-2, 2, 2, 3)],
    ),
    "mvn_precision": (
        _mvn_precision,
        [_uniform(-1, 1, 3), _uniform(-1, 1, 3, 3), _uniform(-2, 2, 3)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_pytorch_in_float64(name):
    fn, arrays = CASES[name]
    compare(fn, arrays, kind="direct", torch=torch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_parameters_give_float32_results_with_pytorchs_values(name):
    fn, arrays = CASES[name]
    ours = fn(lg, *[lg.tensor(a, dtype=lg.float32) for a in arrays])
    theirs = fn(torch, *[torch.tensor(a, dtype=torch.float32) for a in arrays])
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype) == "torch.float32"
        # one float32 rounding per step of a short chain; the matrix cases solve and invert
        assert_close(o, t.detach(), kind="iterative" if name.startswith("mvn") else "direct")


def test_the_default_dtype_decides_the_dtype_of_number_parameters():
    lg.set_default_dtype(lg.float64)
    try:
        assert lg.distributions.Normal(0.0, 1.0).loc.dtype == lg.float64
    finally:
        lg.set_default_dtype(lg.float32)
    d = lg.distributions.Normal(lg.zeros(2, dtype=lg.float64), 1.0)
    assert d.scale.dtype == lg.float64 and tuple(d.scale.shape) == (2,)
    assert lg.distributions.Exponential(2.0).rate.dtype == lg.float32


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.distributions.Normal(m.tensor([0.0, 1.0]), m.tensor([1.0, 2.0])),
        lambda m: m.distributions.Uniform(m.tensor([0.0, 1.0]), 3.0),
        lambda m: m.distributions.Exponential(m.tensor([0.5, 2.0])),
        lambda m: m.distributions.Bernoulli(probs=m.tensor([0.3, 0.5, 0.8])),
        lambda m: m.distributions.Categorical(logits=m.tensor([[0.0, 2.0, 1.0], [3.0, 3.0, 0.0]])),
        lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.eye(2)),
    ],
)
def test_mode_is_pytorchs(build):
    assert_close(build(lg).mode, build(torch).mode.detach(), kind="direct")


def test_uniform_log_prob_is_minus_infinity_outside_and_cdf_is_clamped():
    args = ([0.0, 1.0], [1.0, 3.0], [[-0.5, 3.5], [0.5, 2.0]])
    for m in (lg, torch):
        low, high, x = (m.tensor(a) for a in args)
        d = m.distributions.Uniform(low, high, validate_args=False)
        values = [d.log_prob(x), d.cdf(x), d.mode]
        if m is lg:
            ours = values
    for o, t in zip(ours, values):
        assert_close(o, t, kind="direct")
    assert np.isneginf(ours[0].numpy()[0]).all()


def test_exponential_family_entropy_through_the_log_normalizer_is_the_closed_form():
    loc, scale = torch.tensor([0.3, -1.0]), torch.tensor([0.5, 2.0])
    ours = lg.distributions.Normal(lg.tensor(loc.numpy()), lg.tensor(scale.numpy()))
    theirs = torch.distributions.Normal(loc, scale)
    bregman = lg.distributions.ExponentialFamily.entropy(ours)
    assert_close(bregman, torch.distributions.ExponentialFamily.entropy(theirs).detach())
    assert_close(bregman, ours.entropy(), kind="iterative")
    for cls in ("Exponential", "Bernoulli"):
        d = getattr(lg.distributions, cls)(lg.tensor([0.3, 0.6]))
        assert_close(lg.distributions.ExponentialFamily.entropy(d), d.entropy(), kind="iterative")
