"""GeneralizedPareto against PyTorch's: densities, CDFs, quantiles, entropy and moments in
float32 and float64 with first and second derivatives, the support that moves with the sign
of the concentration, validation, expand, reprs, and inverse-CDF draws."""

import contextlib
import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.distributions import constraints
from leafgrad.distributions.generalized_pareto import GeneralizedPareto
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws

torch = pytest.importorskip("torch")

_u = draws(41)


@contextlib.contextmanager
def _torch_float64_default(*libraries):
    """PyTorch 2.13 tests ``isclose(concentration, torch.tensor(0.0))``, which raises for
    float64 parameters unless the default dtype is float64 too; leafgrad needs no switch
    (it is switched as well only where given, for parameters made from Python numbers)."""
    libraries = libraries or (torch,)
    previous = [m.get_default_dtype() for m in libraries]
    for m in libraries:
        m.set_default_dtype(m.float64)
    try:
        yield
    finally:
        for m, dtype in zip(libraries, previous):
            m.set_default_dtype(dtype)


def _cls(m):
    return GeneralizedPareto if m is lg else m.distributions.GeneralizedPareto


def _everything(m, loc, scale, concentration, x, u):
    d = _cls(m)(loc, scale, concentration)
    return [
        d.log_prob(x),
        d.log_survival_function(x),
        d.log_cdf(x),
        d.cdf(x),
        d.icdf(u),
        d.entropy(),
        d.mean,
        d.variance,
        d.stddev,
        d.mode,
    ]


# loc in (-1, -0.5), scale >= 1 and concentration >= -1 put x in (-0.45, 0.45) inside every
# support (its upper end, loc - scale / c for c < 0, is at least 0.5)
_LOC, _SCALE, _X = _u(-1, -0.5, 3), _u(1, 2, 3), _u(-0.45, 0.45, 2, 3)
_Q = _u(0.05, 0.95, 3)

CASES = {
    "both_signs": [_LOC, _SCALE, np.array([-0.6, 0.3, 1.4]), _X, _Q],
    "moments_defined": [_LOC, _SCALE, np.array([-0.3, 0.2, 0.45]), _X, _Q],
    "near_zero": [_LOC, _SCALE, np.array([-1e-9, 0.0, 5e-9]), _X, _Q],
    "small": [_LOC, _SCALE, np.array([-1e-3, 2e-3, 0.05]), _X, _Q],
    "uniform_case": [_LOC, _SCALE, np.array([-1.0, -1.0, -0.5]), _X, _Q],
    "broadcast": [
        _u(-1, -0.5, 2, 1),
        _u(1, 2, 3),
        np.array(0.25),
        _u(-0.45, 0.45, 4, 2, 3),
        _u(0.05, 0.95, 2, 1),
    ],
    "scalar_parameters": [np.array(-0.7), np.array(1.3), np.array(-0.4), _u(-0.45, 0.45, 5), _Q],
}


# (1 + 1/c) log1p(c z) at small c cancels: derivatives in c lose about log10(1/c) digits
_CANCELLING = {"small"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_pytorch_in_float64(name):
    kind = "iterative" if name in _CANCELLING else "direct"
    with _torch_float64_default():
        compare(_everything, CASES[name], kind=kind, torch=torch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_parameters_give_float32_results_with_pytorchs_values(name):
    arrays = CASES[name]
    ours = _everything(lg, *[lg.tensor(a, dtype=lg.float32) for a in arrays])
    theirs = _everything(torch, *[torch.tensor(a, dtype=torch.float32) for a in arrays])
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype) == "torch.float32"
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


def test_float64_works_under_a_float32_default_where_pytorch_raises():
    c = np.array([-0.6, 0.0, 1.4])
    loc, scale, conc, x = (lg.tensor(a) for a in (_LOC, _SCALE, c, _X))
    d = GeneralizedPareto(loc, scale, conc)
    ours = [d.log_prob(x), d.cdf(x), d.log_survival_function(x)]
    assert lg.get_default_dtype() == lg.float32
    assert all(o.dtype == lg.float64 for o in ours)
    theirs = torch.distributions.GeneralizedPareto(*(torch.tensor(a) for a in (_LOC, _SCALE, c)))
    with pytest.raises(RuntimeError):  # PyTorch 2.13's mixed-dtype isclose
        theirs.log_prob(torch.tensor(_X))
    with _torch_float64_default():
        expected = [theirs.log_prob(torch.tensor(_X)), theirs.cdf(torch.tensor(_X))]
    for o, e in zip(ours, expected):
        assert_close(o, e)


def test_python_numbers_give_a_scalar_batch_and_pytorchs_values():
    x = np.array([0.6, 1.0, 4.0])

    def fn(m, x):
        d = _cls(m)(0.5, 2.0, -0.3)
        assert tuple(d.batch_shape) == () and d.loc.dtype == m.get_default_dtype()
        return [d.log_prob(x), d.cdf(x), d.icdf(x / 5), d.entropy(), d.mean, d.variance]

    with _torch_float64_default(torch, lg):
        compare(fn, [x], torch=torch)
    mixed = GeneralizedPareto(lg.zeros(2), 1.0, 0.5)
    assert tuple(mixed.batch_shape) == (2,)
    assert tuple(mixed.scale.shape) == (2,)
    ours = GeneralizedPareto(0.5, 2.0, 0.3).log_prob(lg.tensor([0.6, 3.0]))
    theirs = torch.distributions.GeneralizedPareto(0.5, 2.0, 0.3).log_prob(torch.tensor([0.6, 3.0]))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_mean_and_variance_are_nan_where_they_do_not_exist():
    d = GeneralizedPareto(0.0, 2.0, lg.tensor([0.0, 0.5, 1.0, 2.0], dtype=lg.float64))
    np.testing.assert_allclose(d.mean.numpy(), [2.0, 4.0, np.nan, np.nan])
    np.testing.assert_allclose(d.variance.numpy(), [4.0, np.nan, np.nan, np.nan])
    np.testing.assert_allclose(d.entropy().numpy(), math.log(2.0) + 1 + np.array([0, 0.5, 1, 2]))
    assert d.mode is d.loc


def _gradcheck_inputs():
    loc = lg.tensor(_LOC, requires_grad=True)
    scale = lg.tensor(_SCALE, requires_grad=True)
    c = lg.tensor([-0.6, 0.3, 1.4], dtype=lg.float64, requires_grad=True)
    x = lg.tensor(_X, requires_grad=True)
    u = lg.tensor(_Q, requires_grad=True)
    return loc, scale, c, x, u


@pytest.mark.parametrize(
    "method",
    ["log_prob", "cdf", "log_cdf", "log_survival_function", "icdf", "entropy", "mean", "variance"],
)
def test_gradcheck_and_gradgradcheck(method):
    loc, scale, c, x, u = _gradcheck_inputs()
    if method in ("mean", "variance"):
        c = lg.tensor([-0.6, 0.1, 0.3], dtype=lg.float64, requires_grad=True)

    def fn(loc, scale, c, x, u):
        d = GeneralizedPareto(loc, scale, c)
        if method == "icdf":
            return d.icdf(u)
        if method == "entropy":
            return d.entropy()
        if method in ("mean", "variance"):
            return getattr(d, method)
        return getattr(d, method)(x)

    inputs = (loc, scale, c, x, u)
    assert lg.autograd.gradcheck(fn, inputs, check_undefined_grad=False)
    assert lg.autograd.gradgradcheck(fn, inputs, check_undefined_grad=False)


def test_support_is_dependent_and_ends_at_loc_minus_scale_over_c_for_negative_c():
    assert constraints.is_dependent(GeneralizedPareto.support)
    assert GeneralizedPareto.support.event_dim == 0 and not GeneralizedPareto.support.is_discrete
    loc, scale, c = (
        np.array([0.5, -1.0, 2.0]),
        np.array([2.0, 1.0, 3.0]),
        np.array([-0.5, 0.0, 0.7]),
    )
    ours = GeneralizedPareto(*(lg.tensor(a) for a in (loc, scale, c))).support
    theirs = torch.distributions.GeneralizedPareto(*(torch.tensor(a) for a in (loc, scale, c)))
    theirs = theirs.support
    assert type(ours).__name__ == type(theirs).__name__ == "_Interval"
    np.testing.assert_array_equal(ours.lower_bound.numpy(), loc)
    np.testing.assert_array_equal(ours.upper_bound.numpy(), [4.5, np.inf, np.inf])
    np.testing.assert_array_equal(ours.upper_bound.numpy(), theirs.upper_bound.numpy())
    value = np.array([[0.5, -1.0, 2.0], [4.5, 1e6, 1e6], [4.6, -1.1, 1.9]])
    np.testing.assert_array_equal(
        ours.check(lg.tensor(value)).numpy(), theirs.check(torch.tensor(value)).numpy()
    )
    np.testing.assert_array_equal(
        ours.check(lg.tensor(value)).numpy(), [[True] * 3, [True] * 3, [False] * 3]
    )


@pytest.fixture(params=["leafgrad", "pytorch"])
def m(request):
    return lg if request.param == "leafgrad" else torch


def test_invalid_parameters_raise_value_error(m):
    G = _cls(m)
    for args in [
        (0.0, 0.0, 1.0),
        (0.0, -1.0, 0.5),
        (m.tensor([0.0, float("nan")]), 1.0, 0.5),
        (0.0, 1.0, m.tensor([0.1, float("nan")])),
        (0.0, m.tensor([1.0, float("nan")]), 0.5),
    ]:
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            G(*args)
    G(0.0, -1.0, 0.5, validate_args=False)
    with pytest.raises(ValueError, match="Input arguments must all be instances"):
        G([0.0], 1.0, 0.5)


def test_values_outside_the_support_raise_value_error_when_validating(m):
    d = _cls(m)(m.tensor([0.0, 1.0]), m.tensor([1.0, 2.0]), m.tensor([-0.5, 0.5]))
    for bad in ([-0.1, 2.0], [2.5, 2.0], [1.0, 0.9]):
        for method in (d.log_prob, d.cdf, d.log_cdf, d.log_survival_function):
            with pytest.raises(ValueError, match="to be within the support"):
                method(m.tensor(bad))
    with pytest.raises(ValueError, match="must be a Tensor"):
        d.log_prob(1.0)
    with pytest.raises(ValueError, match="not broadcastable"):
        d.log_prob(m.zeros(3))
    assert tuple(d.icdf(m.tensor([0.5, 0.5])).shape) == (2,)  # icdf does not validate


def test_without_validation_out_of_support_values_give_pytorchs_numbers():
    loc, scale, c = [0.0, 1.0, 0.0], [1.0, 2.0, 1.0], [-0.5, 0.5, 1.5]
    value = [[3.0, -1.0, -0.5], [-0.5, 0.5, 1.0]]
    ours = GeneralizedPareto(*(lg.tensor(a) for a in (loc, scale, c)), validate_args=False)
    theirs = torch.distributions.GeneralizedPareto(
        *(torch.tensor(a) for a in (loc, scale, c)), validate_args=False
    )
    for method in ("log_prob", "cdf", "log_survival_function"):
        o = getattr(ours, method)(lg.tensor(value)).numpy()
        t = getattr(theirs, method)(torch.tensor(value)).numpy()
        np.testing.assert_allclose(o, t, rtol=1e-6, equal_nan=True)
    assert np.isnan(ours.log_prob(lg.tensor(value)).numpy()[0, 0])


def test_expand_shapes_values_and_validation_flag(m):
    d = _cls(m)(m.tensor([0.0, 1.0]), 2.0, m.tensor([-0.2, 0.4]), validate_args=False)
    e = d.expand((3, 2))
    assert type(e) is type(d)
    assert tuple(e.batch_shape) == (3, 2) and tuple(e.event_shape) == ()
    assert tuple(e.loc.shape) == tuple(e.scale.shape) == tuple(e.concentration.shape) == (3, 2)
    assert e._validate_args is False
    x = m.tensor([[0.5, 1.5]])
    assert m.equal(e.log_prob(x), d.log_prob(x).expand(3, 2))
    assert tuple(e.sample((4,)).shape) == (4, 3, 2)
    assert tuple(e.entropy().shape) == (3, 2)
    assert tuple(_cls(m)(0.0, 1.0, 0.5).expand([5]).batch_shape) == (5,)
    # entropy is broadcast to the batch shape even when only one parameter has it
    assert tuple(_cls(m)(m.zeros(4), 1.0, 0.5).entropy().shape) == (4,)


def test_repr_and_flags_as_pytorchs():
    ours = GeneralizedPareto(lg.zeros(3), 1.0, 0.5)
    theirs = torch.distributions.GeneralizedPareto(torch.zeros(3), 1.0, 0.5)
    assert repr(ours) == repr(theirs)
    assert repr(GeneralizedPareto(0.5, 2.0, -0.25)) == repr(
        torch.distributions.GeneralizedPareto(0.5, 2.0, -0.25)
    )
    assert GeneralizedPareto.has_rsample is True
    assert GeneralizedPareto.has_enumerate_support is False
    assert GeneralizedPareto.arg_constraints == {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }


def test_rsample_is_the_icdf_of_the_generators_uniforms_and_carries_gradients():
    loc = lg.tensor([0.0, 1.0], dtype=lg.float64, requires_grad=True)
    scale = lg.tensor([1.0, 2.0], dtype=lg.float64, requires_grad=True)
    c = lg.tensor([-0.3, 0.2], dtype=lg.float64, requires_grad=True)
    d = GeneralizedPareto(loc, scale, c)
    lg.manual_seed(3)
    u = lg.rand((5, 2), dtype=lg.float64)
    lg.manual_seed(3)
    x = d.rsample((5,))
    assert x.dtype == lg.float64 and tuple(x.shape) == (5, 2)
    assert lg.equal(x, d.icdf(u))
    grads = lg.autograd.grad(x.sum(), (loc, scale, c))
    expected = lg.autograd.grad(d.icdf(u).sum(), (loc, scale, c))
    for g, e in zip(grads, expected):
        assert lg.equal(g, e)
    np.testing.assert_allclose(grads[0].numpy(), [5.0, 5.0])
    assert not d.sample((3,)).requires_grad
    assert d.sample().dtype == lg.float64
    assert GeneralizedPareto(lg.zeros(2), 1.0, 0.1).rsample((7,)).dtype == lg.float32


@pytest.mark.parametrize("concentration", [-0.4, 0.0, 0.1])
def test_draws_have_the_distributions_moments_and_cdf(concentration):
    lg.manual_seed(11)
    n = 40_000
    d = GeneralizedPareto(
        lg.tensor(0.5, dtype=lg.float64), lg.tensor(2.0, dtype=lg.float64), concentration
    )
    x = d.sample((n,))
    values = x.numpy()
    support = d.support
    assert bool(support.check(x).all())
    mean, std = d.mean.item(), d.stddev.item()
    assert abs(values.mean() - mean) < 5 * std / math.sqrt(n)
    np.testing.assert_allclose(values.var(), d.variance.item(), rtol=0.08)
    # Kolmogorov-Smirnov distance to the model's CDF; its 0.1% critical value is 1.95 / sqrt(n)
    sorted_values = lg.tensor(np.sort(values))
    cdf = d.cdf(sorted_values).numpy()
    ranks = np.arange(1, n + 1) / n
    distance = max(np.max(ranks - cdf), np.max(cdf - (ranks - 1 / n)))
    assert distance < 1.95 / math.sqrt(n)
