"""Draws of the extreme-value, mixture, low-rank, relaxed and count families added last:
shapes, dtypes, statistics under a fixed seed, and the gradients their rsample carries."""

import math

import numpy as np
import pytest

import leafgrad as lg

D = lg.distributions
N = 20_000


def _standard_errors(draws, mean, std):
    return np.abs(draws.mean(0) - mean) / (std / math.sqrt(draws.shape[0]))


def _mixture():
    components = D.Normal(lg.tensor([[-2.0, 1.0], [0.0, 3.0]]), lg.tensor([[0.5, 1.0], [1.0, 0.3]]))
    return D.MixtureSameFamily(D.Categorical(lg.tensor([[0.3, 0.7], [0.5, 0.5]])), components)


@pytest.mark.parametrize(
    "build",
    [
        lambda: D.Gumbel(lg.tensor([0.0, 2.0]), lg.tensor([1.0, 0.5])),
        lambda: D.Weibull(lg.tensor([1.0, 2.0]), lg.tensor([0.8, 3.0])),
        lambda: D.Pareto(lg.tensor([1.0, 0.5]), lg.tensor([6.0, 9.0])),
        lambda: D.InverseGamma(lg.tensor([8.0, 12.0]), lg.tensor([1.0, 3.0])),
        lambda: D.Kumaraswamy(lg.tensor([0.5, 3.0]), lg.tensor([2.0, 0.7])),
        lambda: D.FisherSnedecor(lg.tensor([3.0, 10.0]), lg.tensor([30.0, 40.0])),
        lambda: D.NegativeBinomial(lg.tensor([2.0, 7.5]), lg.tensor([0.3, 0.6])),
        lambda: D.ContinuousBernoulli(lg.tensor([0.2, 0.9])),
        lambda: D.Multinomial(5, lg.tensor([0.3, 0.7])),
        lambda: D.LowRankMultivariateNormal(
            lg.tensor([1.0, -1.0]), lg.tensor([[1.0], [0.5]]), lg.tensor([0.5, 1.0])
        ),
        _mixture,
    ],
)
def test_sample_means_lie_within_five_standard_errors(build):
    lg.manual_seed(0)
    d = build()
    draws = d.sample((N,)).numpy().astype(np.float64)
    assert draws.shape == (N, 2)
    assert (_standard_errors(draws, d.mean.numpy(), d.stddev.numpy()) < 5).all()
    np.testing.assert_allclose(draws.var(0), d.variance.numpy(), rtol=0.06)


def test_low_rank_draws_have_its_covariance():
    lg.manual_seed(1)
    d = D.LowRankMultivariateNormal(
        lg.zeros(3, dtype=lg.float64),
        lg.tensor([[1.0], [0.5], [-1.0]], dtype=lg.float64),
        lg.ones(3, dtype=lg.float64),
    )
    draws = d.rsample((N,)).numpy()
    np.testing.assert_allclose(np.cov(draws.T), d.covariance_matrix.numpy(), atol=0.06)


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_draws_have_sample_batch_and_event_shape_and_the_parameters_dtype(dtype, method):
    ones = lg.ones(4, 3, dtype=dtype)
    t = lg.tensor(0.5, dtype=dtype)
    cases = [
        (D.Gumbel(ones, 1.0), (4, 3)),
        (D.Weibull(ones, 2.0), (4, 3)),
        (D.Pareto(ones, 2.0), (4, 3)),
        (D.HalfCauchy(ones), (4, 3)),
        (D.InverseGamma(ones, 2.0), (4, 3)),
        (D.Kumaraswamy(ones, 2.0), (4, 3)),
        (D.FisherSnedecor(ones, 2.0), (4, 3)),
        (D.ContinuousBernoulli(ones / 3), (4, 3)),
        (D.RelaxedBernoulli(t, ones / 3), (4, 3)),
        (D.RelaxedOneHotCategorical(t, ones), (4, 3)),
        (D.LogisticNormal(ones[:, :2], 1.0), (4, 3)),
        (D.LowRankMultivariateNormal(ones, ones.unsqueeze(-1), ones), (4, 3)),
        (D.OneHotCategoricalStraightThrough(ones), (4, 3)),
    ]
    if method == "sample":
        cases += [
            (D.NegativeBinomial(5.0, ones / 2), (4, 3)),
            (D.Multinomial(3, ones), (4, 3)),
            (D.MixtureSameFamily(D.Categorical(ones), D.Normal(ones, 1.0)), (4,)),
        ]
    for d, shape in cases:
        draws = getattr(d, method)((5, 2))
        assert tuple(draws.shape) == (5, 2) + shape and draws.dtype == dtype, d
        assert tuple(getattr(d, method)().shape) == shape and not draws.requires_grad


def test_draws_lie_in_the_support():
    lg.manual_seed(3)
    t = lg.tensor(0.3)
    cases = [
        D.Pareto(lg.tensor([1.0, 2.0]), 1.5),
        D.HalfCauchy(lg.ones(2)),
        D.Kumaraswamy(lg.tensor([0.3, 2.0]), 0.5),
        D.ContinuousBernoulli(lg.tensor([0.01, 0.5, 0.99])),
        D.RelaxedBernoulli(t, logits=lg.tensor([-3.0, 3.0])),
        D.RelaxedOneHotCategorical(t, logits=lg.tensor([-3.0, 0.0, 3.0])),
        D.LogisticNormal(lg.tensor([-3.0, 0.0, 3.0]), 2.0),
        D.NegativeBinomial(3.0, lg.tensor([0.2, 0.9])),
        D.Multinomial(7, lg.tensor([0.1, 0.2, 0.7])),
    ]
    for d in cases:
        assert bool(d.support.check(d.sample((500,))).all()), d


def test_half_cauchy_draws_have_their_median():
    lg.manual_seed(0)
    draws = D.HalfCauchy(lg.tensor(2.0, dtype=lg.float64)).sample((N,)).numpy()
    assert np.median(draws) == pytest.approx(2.0, abs=0.1)


def test_relaxed_draws_approach_the_discrete_ones_as_the_temperature_falls():
    lg.manual_seed(0)
    cold = D.RelaxedBernoulli(lg.tensor(0.01), lg.tensor([0.3, 0.8])).sample((N,)).numpy()
    assert ((cold < 0.01) | (cold > 0.99)).mean() > 0.97
    np.testing.assert_allclose((cold > 0.5).mean(0), [0.3, 0.8], atol=0.02)
    probs = lg.tensor([0.2, 0.3, 0.5])
    one_hot = D.RelaxedOneHotCategorical(lg.tensor(0.01), probs).sample((N,)).numpy()
    np.testing.assert_allclose(
        (one_hot.argmax(-1)[:, None] == np.arange(3)).mean(0), probs.numpy(), atol=0.02
    )


def test_rsample_carries_gradients_to_the_parameters():
    lg.manual_seed(4)
    loc, scale = lg.tensor(0.5, requires_grad=True), lg.tensor(2.0, requires_grad=True)
    D.Gumbel(loc, scale).rsample((N,)).mean().backward()
    assert loc.grad.item() == pytest.approx(1.0)
    # d E[x] / d scale = Euler's constant
    assert scale.grad.item() == pytest.approx(0.5772, abs=0.03)
    probs = lg.tensor([0.2, 0.3, 0.5], requires_grad=True)
    weights = lg.tensor([1.0, 2.0, 3.0])
    (D.OneHotCategoricalStraightThrough(probs).rsample((10,)) * weights).sum().backward()
    # the gradient of probs through Categorical's normalization p / sum(p), at sum(p) = 1
    expected = 10 * (weights.numpy() - (weights * probs.detach()).sum().item())
    np.testing.assert_allclose(probs.grad.numpy(), expected, rtol=1e-6)
    c = lg.tensor(0.3, dtype=lg.float64, requires_grad=True)
    D.ContinuousBernoulli(c).rsample((N,)).mean().backward()
    # d mean / d p at p = 0.3, by a central difference of the closed-form mean
    h = 1e-6
    mean = lambda p: D.ContinuousBernoulli(lg.tensor(p, dtype=lg.float64)).mean.item()
    assert c.grad.item() == pytest.approx((mean(0.3 + h) - mean(0.3 - h)) / (2 * h), rel=0.03)
