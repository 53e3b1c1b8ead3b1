"""sample and rsample: shapes, dtypes, statistics under a fixed seed, reproducibility under
manual_seed, and reparameterized gradients (leafgrad's draws are not PyTorch's, so only
what does not depend on the draws is compared)."""

import math

import numpy as np
import pytest

import leafgrad as lg

D = lg.distributions
N = 20_000


def _standard_errors(draws, mean, std):
    """How many standard errors the sample mean is from ``mean``."""
    return np.abs(draws.mean(0) - mean) / (std / math.sqrt(draws.shape[0]))


@pytest.mark.parametrize(
    "build",
    [
        lambda: D.Normal(lg.tensor([0.0, 3.0]), lg.tensor([1.0, 0.5])),
        lambda: D.Uniform(lg.tensor([-1.0, 2.0]), lg.tensor([1.0, 5.0])),
        lambda: D.Exponential(lg.tensor([0.5, 4.0])),
        lambda: D.Bernoulli(probs=lg.tensor([0.2, 0.9])),
        lambda: D.Bernoulli(logits=lg.tensor([-1.0, 2.0])),
        lambda: D.MultivariateNormal(
            lg.tensor([1.0, -1.0]), scale_tril=lg.tensor([[1.0, 0.0], [0.8, 0.6]])
        ),
    ],
)
def test_sample_means_lie_within_five_standard_errors(build):
    lg.manual_seed(0)
    d = build()
    draws = d.sample((N,)).numpy().astype(np.float64)
    assert draws.shape == (N, 2)
    assert (_standard_errors(draws, d.mean.numpy(), d.stddev.numpy()) < 5).all()
    # and the spread is right: the sample variance within 5% of the variance
    np.testing.assert_allclose(draws.var(0), d.variance.numpy(), rtol=0.05)


def test_categorical_frequencies_lie_within_five_standard_errors():
    lg.manual_seed(0)
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    draws = D.Categorical(probs=lg.tensor(probs)).sample((N,)).numpy()
    assert draws.shape == (N, 2) and draws.dtype == np.int64
    for row in range(2):
        freq = np.bincount(draws[:, row], minlength=3) / N
        se = np.sqrt(probs[row] * (1 - probs[row]) / N)
        assert (np.abs(freq - probs[row]) < 5 * se).all()


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_draws_have_sample_batch_and_event_shape_and_the_parameters_dtype(dtype, method):
    loc = lg.zeros(4, 3, dtype=dtype)
    cases = [
        (D.Normal(loc, 1.0), (4, 3)),
        (D.Uniform(loc, 1.0), (4, 3)),
        (D.Exponential(loc + 1), (4, 3)),
        (D.Independent(D.Normal(loc, 1.0), 1), (4, 3)),
        (D.MultivariateNormal(loc, scale_tril=lg.eye(3, dtype=dtype)), (4, 3)),
    ]
    if method == "sample":
        cases.append((D.Bernoulli(probs=loc + 0.5), (4, 3)))
    for d, shape in cases:
        draws = getattr(d, method)((5, 2))
        assert tuple(draws.shape) == (5, 2) + shape and draws.dtype == dtype
        assert tuple(getattr(d, method)().shape) == shape
        assert draws.requires_grad is False
    categorical = D.Categorical(logits=loc)
    assert tuple(categorical.sample((5, 2)).shape) == (5, 2, 4)
    assert categorical.sample().dtype == lg.int64


def test_manual_seed_makes_draws_reproducible():
    d = D.Normal(lg.zeros(3), 1.0)
    lg.manual_seed(123)
    first = d.sample((4,)).numpy()
    lg.manual_seed(123)
    np.testing.assert_array_equal(first, d.sample((4,)).numpy())


def test_rsample_is_loc_plus_scale_times_noise_so_gradients_reach_the_parameters():
    # float64: the noise sums to near zero, where float32 would keep few digits
    loc = lg.tensor([0.5, -1.0], dtype=lg.float64, requires_grad=True)
    scale = lg.tensor([2.0, 0.5], dtype=lg.float64, requires_grad=True)
    lg.manual_seed(1)
    x = D.Normal(loc, scale).rsample((3,))
    assert x.requires_grad and x.grad_fn is not None
    x.sum().backward()
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(loc.grad.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0).numpy(), rtol=1e-12)
    with lg.no_grad():
        assert not D.Normal(loc, scale).sample().requires_grad


def test_rsample_gradients_of_uniform_exponential_and_mvn_follow_the_reparameterization():
    low, high = lg.tensor(1.0, requires_grad=True), lg.tensor(3.0, requires_grad=True)
    x = D.Uniform(low, high).rsample((50,))
    x.sum().backward()
    u = (x.detach() - 1.0) / 2.0
    assert low.grad.item() == pytest.approx((1 - u).sum().item(), rel=1e-5)
    assert high.grad.item() == pytest.approx(u.sum().item(), rel=1e-5)
    rate = lg.tensor(2.0, requires_grad=True)
    y = D.Exponential(rate).rsample((50,))
    y.sum().backward()
    assert rate.grad.item() == pytest.approx(-(y.detach() / 2.0).sum().item(), rel=1e-5)
    tril = lg.tensor([[1.0, 0.0], [0.5, 2.0]], requires_grad=True)
    z = D.MultivariateNormal(lg.zeros(2), scale_tril=tril).rsample((10,))
    z[:, 1].sum().backward()
    eps = lg.linalg.solve_triangular(tril.detach(), z.detach().unsqueeze(-1), upper=False)
    np.testing.assert_allclose(tril.grad[1].numpy(), eps.squeeze(-1).sum(0).numpy(), rtol=1e-5)
    np.testing.assert_array_equal(tril.grad[0].numpy(), [0.0, 0.0])


def test_a_monte_carlo_elbo_gradient_is_close_to_the_closed_form():
    # E_q[log q - log p] for q = N(mu, s), p = N(0, 1) is KL(q || p): its reparameterized
    # estimate's gradient approaches the closed form's
    mu, s = lg.tensor(0.7, requires_grad=True), lg.tensor(1.5, requires_grad=True)
    q, p = D.Normal(mu, s), D.Normal(0.0, 1.0)
    lg.manual_seed(3)
    x = q.rsample((N,))
    (q.log_prob(x) - p.log_prob(x)).mean().backward()
    assert mu.grad.item() == pytest.approx(0.7, abs=0.05)
    assert s.grad.item() == pytest.approx(1.5 - 1 / 1.5, abs=0.05)
