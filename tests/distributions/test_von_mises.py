"""VonMises against PyTorch's: log densities and circular moments in float32 and float64 with
first and second derivatives, the polynomial log-Bessel approximation they rest on,
validation, expand, reprs, and rejection-sampled draws checked by their statistics."""

import math

import numpy as np
import pytest
import scipy.special
import scipy.stats

import leafgrad as lg
from leafgrad.distributions import constraints
from leafgrad.distributions.von_mises import VonMises, _log_modified_bessel_fn
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws

torch = pytest.importorskip("torch")
torch_von_mises = pytest.importorskip("torch.distributions.von_mises")

_u = draws(37)


def _cls(m):
    return VonMises if m is lg else m.distributions.VonMises


def _everything(m, loc, concentration, x):
    d = _cls(m)(loc, concentration)
    return [d.log_prob(x), d.mean, d.mode, d.variance, d.stddev]


# concentrations on both sides of 3.75, where the approximation switches polynomials
CASES = {
    "both_branches": [
        _u(-3, 3, 6),
        np.array([1e-3, 0.4, 2.5, 3.7, 5.0, 60.0]),
        _u(-10, 10, 2, 6),
    ],
    "broadcast": [_u(-3, 3, 3, 1), _u(0.2, 8, 4), _u(-4, 4, 2, 3, 4)],
    "scalar_parameters": [np.array(0.7), np.array(2.0), _u(-4, 4, 5)],
    "tiny_and_huge": [np.array([0.0, 1.0]), np.array([1e-4, 500.0]), _u(-4, 4, 3, 2)],
    "tinier": [np.array([0.5, -1.0]), np.array([1e-7, 2e-6]), _u(-4, 4, 3, 2)],
}
# the variance's second derivative at k near 1e-7 is a difference of terms of size 1 / k,
# round-off in both libraries (about 1e-9 absolute): first derivatives only there
_FIRST_ORDER_ONLY = {"tinier"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_pytorch_in_float64(name):
    compare(_everything, CASES[name], second=name not in _FIRST_ORDER_ONLY, torch=torch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_parameters_give_float32_results_with_pytorchs_values(name):
    arrays = CASES[name]
    ours = _everything(lg, *[lg.tensor(a, dtype=lg.float32) for a in arrays])
    theirs = _everything(torch, *[torch.tensor(a, dtype=torch.float32) for a in arrays])
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype) == "torch.float32"
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_python_numbers_give_a_scalar_batch_and_pytorchs_values():
    x = np.array([-7.0, -1.0, 0.2, 3.0])

    def fn(m, x):
        d = _cls(m)(0.5, 2.0)
        assert tuple(d.batch_shape) == () and d.loc.dtype == m.float32
        return [d.log_prob(x), d.variance]

    compare(fn, [x], torch=torch, grads=False)
    mixed = VonMises(lg.zeros(2, 1), 3.0)
    assert tuple(mixed.batch_shape) == (2, 1) and tuple(mixed.concentration.shape) == (2, 1)


@pytest.mark.parametrize("order", [0, 1])
def test_log_bessel_approximation_is_pytorchs_and_close_to_scipys(order):
    x = np.concatenate([np.geomspace(1e-4, 3.7, 30), [3.75], np.geomspace(3.8, 700, 30)])
    ours = _log_modified_bessel_fn(lg.tensor(x), order=order)
    theirs = torch_von_mises._log_modified_bessel_fn(torch.tensor(x), order=order)
    assert_close(ours, theirs)
    # Abramowitz and Stegun bound the polynomials' error by 2.2e-7 where they are about 0.4
    exact = np.log(scipy.special.ive(order, x)) + x
    np.testing.assert_allclose(ours.numpy(), exact, atol=1e-6, rtol=0)
    with pytest.raises(AssertionError, match="order must be 0 or 1, got 2"):
        _log_modified_bessel_fn(lg.tensor(x), order=2)


def test_gradcheck_and_gradgradcheck_of_log_prob_and_variance():
    loc = lg.tensor(_u(-3, 3, 4), requires_grad=True)
    concentration = lg.tensor([0.3, 1.5, 6.0, 20.0], dtype=lg.float64, requires_grad=True)
    x = lg.tensor(_u(-5, 5, 2, 4), requires_grad=True)

    def log_prob(loc, concentration, x):
        return VonMises(loc, concentration).log_prob(x)

    def variance(concentration):
        return VonMises(lg.zeros_like(concentration), concentration).variance

    assert lg.autograd.gradcheck(log_prob, (loc, concentration, x))
    assert lg.autograd.gradgradcheck(log_prob, (loc, concentration, x))
    assert lg.autograd.gradcheck(variance, (concentration,))
    assert lg.autograd.gradgradcheck(variance, (concentration,))


def test_proposal_radius_is_pytorchs_including_its_small_concentration_expansion():
    concentration = np.array([1e-8, 9e-6, 1.1e-5, 0.3, 4.0, 200.0])
    ours = VonMises(lg.zeros(6), lg.tensor(concentration, dtype=lg.float32))
    theirs = torch.distributions.VonMises(
        torch.zeros(6), torch.tensor(concentration, dtype=torch.float32)
    )
    assert ours._proposal_r.dtype == lg.float64 and ours._loc.dtype == lg.float64
    assert_close(ours._proposal_r, theirs._proposal_r)


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
def test_draws_keep_the_parameters_dtype_the_shape_and_lie_in_minus_pi_to_pi(dtype):
    lg.manual_seed(5)
    loc = lg.tensor([-100.0, 0.0, 3.1, 50.0], dtype=dtype, requires_grad=True)
    concentration = lg.tensor([1e-6, 0.5, 80.0, 2.0], dtype=dtype)
    d = VonMises(loc, concentration)
    x = d.sample((500, 2))
    assert x.dtype == dtype and tuple(x.shape) == (500, 2, 4)
    assert not x.requires_grad and x.grad_fn is None
    values = x.numpy()
    assert values.min() >= -math.pi and values.max() <= math.pi
    if dtype == lg.float64:
        assert values.max() < math.pi
    assert tuple(d.sample().shape) == (4,)
    assert tuple(VonMises(0.0, 1.0).sample().shape) == ()


@pytest.mark.parametrize(
    ("loc", "concentration"),
    [(2.5, 0.5), (-1.0, 4.0), (0.3, 30.0), (-3.0, 1e-5)],
)
def test_draws_have_the_distributions_direction_spread_and_cdf(loc, concentration):
    lg.manual_seed(17)
    n = 40_000
    d = VonMises(lg.tensor(loc, dtype=lg.float64), lg.tensor(concentration, dtype=lg.float64))
    centred = d.sample((n,)).numpy() - loc
    cos, sin = np.cos(centred), np.sin(centred)
    resultant = 1 - d.variance.item()  # I1(k) / I0(k), the mean of cos(x - loc)
    assert abs(cos.mean() - resultant) < 5 * cos.std() / math.sqrt(n) + 1e-6
    assert abs(sin.mean()) < 5 * sin.std() / math.sqrt(n) + 1e-6
    # Kolmogorov-Smirnov distance of the centred angles to SciPy's CDF on [-pi, pi)
    wrapped = np.sort((centred + math.pi) % (2 * math.pi) - math.pi)
    cdf = scipy.stats.vonmises.cdf(wrapped, concentration)
    ranks = np.arange(1, n + 1) / n
    distance = max(np.max(ranks - cdf), np.max(cdf - (ranks - 1 / n)))
    assert distance < 1.95 / math.sqrt(n)


def test_float32_sampling_at_tiny_concentration_is_uniform_and_terminates():
    lg.manual_seed(2)
    x = VonMises(lg.zeros(3), lg.full((3,), 1e-5)).sample((20_000,))
    assert x.dtype == lg.float32
    values = x.numpy().astype(np.float64).ravel()
    distance = scipy.stats.kstest(values, scipy.stats.uniform(-math.pi, 2 * math.pi).cdf)
    assert distance.statistic < 1.95 / math.sqrt(values.size)


@pytest.fixture(params=["leafgrad", "pytorch"])
def m(request):
    return lg if request.param == "leafgrad" else torch


def test_shapes_moments_and_flags(m):
    loc = m.tensor([[0.0], [1.0]])
    d = _cls(m)(loc, m.tensor([1.0, 2.0, 3.0]))
    assert tuple(d.batch_shape) == (2, 3) and tuple(d.event_shape) == ()
    assert d.mean is d.loc and d.mode is d.loc
    assert tuple(d.loc.shape) == (2, 3)
    assert d.variance is d.variance  # computed once, then stored
    real = constraints.real if m is lg else m.distributions.constraints.real
    assert d.support is real
    assert not d.has_rsample and not d.has_enumerate_support
    with pytest.raises(NotImplementedError):
        d.rsample()
    for method in (d.entropy, lambda: d.cdf(m.zeros(2, 3)), lambda: d.icdf(m.zeros(2, 3))):
        with pytest.raises(NotImplementedError):
            method()


def test_invalid_parameters_raise_value_error(m):
    V = _cls(m)
    for args in [
        (0.0, 0.0),
        (0.0, -1.0),
        (0.0, m.tensor([1.0, float("nan")])),
        (m.tensor([0.0, float("nan")]), 1.0),
    ]:
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            V(*args)
    assert tuple(V(0.0, -1.0, validate_args=False).batch_shape) == ()
    with pytest.raises(ValueError, match="Input arguments must all be instances"):
        V([0.0], 1.0)


def test_log_prob_validates_its_value(m):
    d = _cls(m)(m.zeros(2), m.ones(2))
    with pytest.raises(ValueError, match="to be within the support"):
        d.log_prob(m.tensor([0.0, float("nan")]))
    with pytest.raises(ValueError, match="must be a Tensor"):
        d.log_prob(0.5)
    with pytest.raises(ValueError, match="not broadcastable"):
        d.log_prob(m.zeros(3))
    # angles far outside [-pi, pi) are in the support: the density is 2 pi periodic
    far = d.log_prob(m.tensor([100.0, -100.0 + 2 * math.pi]))
    near = d.log_prob(m.tensor([100.0 - 32 * math.pi, -100.0]))
    assert m.allclose(far, near, atol=1e-4)
    quiet = _cls(m)(m.zeros(2), m.ones(2), validate_args=False)
    assert bool(m.isnan(quiet.log_prob(m.tensor([0.0, float("nan")])))[1])


def test_expand_shapes_values_and_validation_flag(m):
    d = _cls(m)(m.tensor([0.0, 1.0]), 2.0, validate_args=False)
    e = d.expand((3, 2))
    assert type(e) is type(d)
    assert tuple(e.batch_shape) == (3, 2) and tuple(e.concentration.shape) == (3, 2)
    assert e._validate_args is False
    x = m.tensor([[0.5, float("nan")]])
    assert m.equal(e.log_prob(x)[:, 0], d.log_prob(x)[0, 0].expand(3))
    assert tuple(e.sample((4,)).shape) == (4, 3, 2)
    checked = _cls(m)(0.0, 1.0).expand([5])
    assert tuple(checked.batch_shape) == (5,)
    with pytest.raises(ValueError, match="to be within the support"):
        checked.log_prob(m.full((5,), float("nan")))


def test_repr_and_arg_constraints_as_pytorchs():
    assert repr(VonMises(lg.zeros(3), 1.0)) == repr(
        torch.distributions.VonMises(torch.zeros(3), 1.0)
    )
    assert repr(VonMises(0.5, 2.0)) == repr(torch.distributions.VonMises(0.5, 2.0))
    assert VonMises.arg_constraints == {
        "loc": constraints.real,
        "concentration": constraints.positive,
    }
