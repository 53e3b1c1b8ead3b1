"""Draws of the transformed, gamma-based, heavy-tailed and count families: shapes, dtypes,
statistics under a fixed seed, and the implicit reparameterization gradient of gamma draws
(checked at fixed draws against an exact quadrature and PyTorch's approximation, and on
average)."""

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.distributions._gamma_sampling import _standard_gamma, _standard_gamma_grad

D = lg.distributions
N = 20_000


def _standard_errors(draws, mean, std):
    return np.abs(draws.mean(0) - mean) / (std / math.sqrt(draws.shape[0]))


@pytest.mark.parametrize(
    "build",
    [
        lambda: D.Gamma(lg.tensor([0.3, 4.0]), lg.tensor([1.0, 2.0])),
        lambda: D.Chi2(lg.tensor([1.0, 7.0])),
        lambda: D.Beta(lg.tensor([0.5, 3.0]), lg.tensor([0.5, 1.5])),
        lambda: D.LogNormal(lg.tensor([0.0, 1.0]), lg.tensor([0.3, 0.5])),
        lambda: D.HalfNormal(lg.tensor([1.0, 3.0])),
        lambda: D.Dirichlet(lg.tensor([0.5, 2.0])),
        lambda: D.Laplace(lg.tensor([0.0, 3.0]), lg.tensor([1.0, 0.5])),
        lambda: D.StudentT(lg.tensor([5.0, 9.0]), lg.tensor([1.0, -1.0]), 2.0),
        lambda: D.Poisson(lg.tensor([0.5, 6.0])),
        lambda: D.Binomial(lg.tensor([3.0, 10.0]), lg.tensor([0.2, 0.7])),
        lambda: D.Geometric(lg.tensor([0.3, 0.9])),
        lambda: D.OneHotCategorical(lg.tensor([0.3, 0.7])),
    ],
)
def test_sample_means_lie_within_five_standard_errors(build):
    lg.manual_seed(0)
    d = build()
    draws = d.sample((N,)).numpy().astype(np.float64)
    assert draws.shape == (N, 2)
    assert (_standard_errors(draws, d.mean.numpy(), d.stddev.numpy()) < 5).all()
    np.testing.assert_allclose(draws.var(0), d.variance.numpy(), rtol=0.06)


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_draws_have_sample_batch_and_event_shape_and_the_parameters_dtype(dtype, method):
    ones = lg.ones(4, 3, dtype=dtype)
    cases = [
        (D.Gamma(ones, 2.0), (4, 3)),
        (D.Chi2(ones), (4, 3)),
        (D.Beta(ones, 0.5), (4, 3)),
        (D.Dirichlet(ones), (4, 3)),
        (D.LogNormal(ones, 1.0), (4, 3)),
        (D.HalfNormal(ones), (4, 3)),
        (D.Laplace(ones, 1.0), (4, 3)),
        (D.Cauchy(ones, 1.0), (4, 3)),
        (D.StudentT(ones), (4, 3)),
    ]
    if method == "sample":
        cases += [
            (D.Poisson(ones), (4, 3)),
            (D.Binomial(5, ones / 2), (4, 3)),
            (D.Geometric(ones / 2), (4, 3)),
            (D.OneHotCategorical(ones), (4, 3)),
        ]
    for d, shape in cases:
        draws = getattr(d, method)((5, 2))
        assert tuple(draws.shape) == (5, 2) + shape and draws.dtype == dtype
        assert tuple(getattr(d, method)().shape) == shape and not draws.requires_grad
    assert np.allclose(D.Dirichlet(ones).sample().sum(-1).numpy(), 1.0)


def test_cauchy_draws_have_the_median_and_quartiles_of_their_distribution():
    lg.manual_seed(0)
    draws = D.Cauchy(lg.tensor(1.0, dtype=lg.float64), 2.0).sample((N,)).numpy()
    np.testing.assert_allclose(np.percentile(draws, [25, 50, 75]), [-1.0, 1.0, 3.0], atol=0.1)


def test_count_draws_are_whole_numbers_in_the_support():
    lg.manual_seed(0)
    for d in (D.Poisson(lg.tensor([2.0])), D.Binomial(4, lg.tensor([0.5])), D.Geometric(0.5)):
        draws = d.sample((500,)).numpy()
        assert (draws == np.floor(draws)).all() and (draws >= 0).all()
    assert D.Binomial(4, lg.tensor([0.5])).sample((500,)).numpy().max() <= 4
    one_hot = D.OneHotCategorical(logits=lg.zeros(2, 3)).sample((7,)).numpy()
    assert (one_hot.sum(-1) == 1).all()


def test_laplace_and_studentt_rsample_carry_gradients_to_their_parameters():
    lg.manual_seed(4)
    loc, scale = lg.tensor(0.5, requires_grad=True), lg.tensor(2.0, requires_grad=True)
    x = D.Laplace(loc, scale).rsample((N,))
    x.mean().backward()
    assert loc.grad.item() == pytest.approx(1.0)
    assert scale.grad.item() == pytest.approx(((x.detach() - 0.5) / 2.0).mean().item(), rel=1e-4)
    df = lg.tensor(4.0, dtype=lg.float64, requires_grad=True)
    D.StudentT(df).rsample((N,)).abs().mean().backward()
    # d E|t| / d df at df = 4 (E|t| = 2 sqrt(df) / ((df - 1) B(df/2, 1/2))): -0.0681
    assert df.grad.item() == pytest.approx(-0.0681, abs=0.006)


def test_manual_seed_makes_gamma_draws_reproducible():
    d = D.Gamma(lg.tensor([0.5, 3.0]), 1.0)
    lg.manual_seed(5)
    first = d.sample((4,)).numpy()
    lg.manual_seed(5)
    np.testing.assert_array_equal(first, d.sample((4,)).numpy())


def test_tiny_concentrations_give_positive_draws_with_finite_log_prob():
    lg.manual_seed(0)
    d = D.Gamma(lg.tensor([1e-3, 1e-2]), 1.0)
    x = d.sample((1000,))
    assert bool((x > 0).all()) and bool(d.log_prob(x).isfinite().all())


def _quadrature_grad(a, x):
    """dx/da = -(dP/da) / density, dP/da by adaptive quadrature of the density's a-derivative."""
    integrate, special = (
        pytest.importorskip("scipy.integrate"),
        pytest.importorskip("scipy.special"),
    )

    def f(t):
        return np.exp((a - 1) * np.log(t) - t - special.gammaln(a)) * (
            np.log(t) - special.digamma(a)
        )

    if x < a:
        dP = integrate.quad(f, 0, x, epsabs=0, epsrel=1e-12, limit=200)[0]
    else:
        dP = -integrate.quad(f, x, np.inf, epsabs=0, epsrel=1e-12, limit=200)[0]
    return -dP / np.exp((a - 1) * np.log(x) - x - special.gammaln(a))


@pytest.mark.parametrize(
    "a, x", [(0.1, 1e-5), (0.1, 0.3), (0.5, 2.0), (1.0, 0.7), (2.0, 5.0), (5.0, 1.0), (30.0, 25.0)]
)
def test_gamma_draw_gradient_is_the_implicit_one_at_fixed_draws(a, x):
    ours = _standard_gamma_grad(np.array(a), np.array(x))
    assert ours == pytest.approx(_quadrature_grad(a, x), rel=1e-8)


def test_gamma_draw_gradient_agrees_with_pytorchs_approximation():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    alpha = np.repeat([0.05, 0.5, 1.0, 3.0, 20.0, 500.0], 200)
    x = np.maximum(rng.gamma(alpha), 1e-300)
    ours = _standard_gamma_grad(alpha, x)
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    # PyTorch's is a hybrid of series and rational approximations good to about 1e-3
    np.testing.assert_allclose(ours, theirs, rtol=2e-3)


def test_rsample_gradients_are_unbiased_for_the_mean():
    # d E[x] / d theta is the average of d x / d theta over draws
    lg.manual_seed(2)
    concentration = lg.tensor([0.4, 3.0], dtype=lg.float64, requires_grad=True)
    rate = lg.tensor([2.0, 0.5], dtype=lg.float64, requires_grad=True)
    D.Gamma(concentration, rate).rsample((N,)).mean(0).sum().backward()
    np.testing.assert_allclose(concentration.grad.numpy(), 1 / rate.detach().numpy(), rtol=0.03)
    c1 = lg.tensor(0.7, dtype=lg.float64, requires_grad=True)
    c0 = lg.tensor(2.0, dtype=lg.float64, requires_grad=True)
    D.Beta(c1, c0).rsample((N,)).mean().backward()
    assert c1.grad.item() == pytest.approx(2.0 / 2.7**2, rel=0.05)
    assert c0.grad.item() == pytest.approx(-0.7 / 2.7**2, rel=0.05)
    c = lg.tensor([0.5, 1.0, 2.5], dtype=lg.float64, requires_grad=True)
    D.Dirichlet(c).rsample((N,)).mean(0)[0].backward()
    np.testing.assert_allclose(c.grad.numpy(), [3.5 / 16, -0.5 / 16, -0.5 / 16], atol=0.01)


def test_the_gamma_draw_gradient_is_first_order_only_as_pytorchs():
    concentration = lg.tensor([1.5], requires_grad=True)
    x = _standard_gamma(concentration)
    (g,) = lg.autograd.grad(x.sum(), concentration, create_graph=True)
    with pytest.raises(RuntimeError):
        lg.autograd.grad(g.sum(), concentration)
