"""LKJCholesky against PyTorch's: log_prob values (float64 and float32), first and second
derivatives, gradcheck; the Distribution protocol with both libraries (validation, shapes,
expand, support, repr); and the statistics of leafgrad's onion-method draws."""

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.distributions import constraints
from leafgrad.distributions.lkj_cholesky import LKJCholesky
from leafgrad.distributions.transforms import CorrCholeskyTransform
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws

torch = pytest.importorskip("torch")

_u = draws(41)


def _lkj(m):
    """The class under test in library ``m``."""
    return LKJCholesky if m is lg else m.distributions.LKJCholesky


def _corr_cholesky(dim: int, *batch) -> np.ndarray:
    """Random Cholesky factors of correlation matrices: lower triangular rows of unit norm
    with positive diagonal."""
    raw = np.tril(_u(-1, 1, *batch, dim, dim))
    idx = np.arange(dim)
    raw[..., idx, idx] = _u(0.3, 1.5, *batch, dim)
    return raw / np.linalg.norm(raw, axis=-1, keepdims=True)


def _log_prob(dim):
    def fn(m, concentration, value):
        return [_lkj(m)(dim, concentration).log_prob(value)]

    return fn


def _log_prob_of_unconstrained(dim):
    """log_prob of the factor CorrCholeskyTransform makes of a free vector (so derivatives
    reach every free coordinate of the value)."""

    def fn(m, concentration, x):
        value = m.distributions.transforms.CorrCholeskyTransform()(x)
        return [_lkj(m)(dim, concentration).log_prob(value)]

    return fn


CASES = {
    "dim2": (_log_prob(2), [np.array(0.7), _corr_cholesky(2, 4)]),
    "dim3_batch": (_log_prob(3), [_u(0.3, 4, 2), _corr_cholesky(3, 5, 2)]),
    "dim5_broadcast": (_log_prob(5), [_u(0.3, 4, 3, 1), _corr_cholesky(5, 2)]),
    "dim4_uniform": (_log_prob(4), [np.ones(3), _corr_cholesky(4, 3)]),
    "dim3_unconstrained": (_log_prob_of_unconstrained(3), [_u(0.5, 3, 2), _u(-1.5, 1.5, 4, 2, 3)]),
}


def _values(fn, arrays, m, dtype):
    return fn(m, *[m.tensor(a, dtype=dtype) for a in arrays])


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_matches_pytorch_in_float64(name):
    fn, arrays = CASES[name]
    (ours,) = _values(fn, arrays, lg, lg.float64)
    (theirs,) = _values(fn, arrays, torch, torch.float64)
    assert str(ours.dtype) == str(theirs.dtype) == "torch.float64"
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_derivatives_match_pytorch_in_float64(name):
    # second derivatives in the concentration pass through trigamma, which ATen computes
    # to about 1e-9 in float64: hence the "iterative" tolerance (1e-8)
    fn, arrays = CASES[name]
    compare(fn, arrays, kind="iterative", torch=torch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_log_prob_is_float32_with_pytorchs_values(name):
    fn, arrays = CASES[name]
    (ours,) = _values(fn, arrays, lg, lg.float32)
    (theirs,) = _values(fn, arrays, torch, torch.float32)
    assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
    assert_close(ours, theirs, kind="iterative")


def test_gradcheck_and_gradgradcheck_of_log_prob():
    concentration = lg.tensor([0.6, 2.5], dtype=lg.float64, requires_grad=True)
    x = lg.tensor(_u(-1, 1, 3, 2, 6), dtype=lg.float64, requires_grad=True)

    def fn(c, free):
        return LKJCholesky(4, c).log_prob(CorrCholeskyTransform()(free))

    assert lg.autograd.gradcheck(fn, (concentration, x))
    assert lg.autograd.gradgradcheck(fn, (concentration, x))


@pytest.mark.parametrize("concentration", [0.6, 1.0, 2.5, 7.0])
def test_two_dimensional_density_integrates_to_one(concentration):
    # dim 2: L = [[1, 0], [r, sqrt(1 - r^2)]], a density in r on (-1, 1); with r = sin(t)
    # the integrand (1 - r^2)^(eta - 1) dr is cos(t)^(2 eta - 1) dt, smooth for eta >= 1/2
    t = np.linspace(-math.pi / 2, math.pi / 2, 20001)[1:-1]
    r = np.sin(t)
    value = np.zeros((t.size, 2, 2))
    value[:, 0, 0], value[:, 1, 0], value[:, 1, 1] = 1.0, r, np.cos(t)
    d = LKJCholesky(2, lg.tensor(concentration, dtype=lg.float64), validate_args=False)
    density = np.exp(d.log_prob(lg.tensor(value)).numpy()) * np.cos(t)
    total = np.sum((density[1:] + density[:-1]) / 2 * np.diff(t))
    assert total == pytest.approx(1.0, abs=2e-3)


@pytest.fixture(params=["leafgrad", "pytorch"])
def lib(request):
    """(library, LKJCholesky): leafgrad, then PyTorch as the oracle."""
    m = lg if request.param == "leafgrad" else torch
    return m, _lkj(m)


def test_dim_below_two_raises_value_error(lib):
    _, LKJ = lib
    for dim in (1, 0, -3):
        with pytest.raises(ValueError, match=f"greater than or equal to 2. Found dim={dim}."):
            LKJ(dim)


def test_nonpositive_concentration_raises_value_error(lib):
    m, LKJ = lib
    for concentration in (0.0, -1.0, m.tensor([1.0, -0.5])):
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            LKJ(3, concentration)


def test_shapes_flags_support_and_repr(lib):
    m, LKJ = lib
    d = LKJ(3)
    assert tuple(d.batch_shape) == () and tuple(d.event_shape) == (3, 3)
    assert d.dim == 3 and d.concentration.item() == 1.0 and d.concentration.dtype == m.float32
    assert d.has_rsample is False and d.has_enumerate_support is False
    assert type(d.support).__name__ == "_CorrCholesky" and d.support.event_dim == 2
    assert list(d.arg_constraints) == ["concentration"]
    assert type(d.arg_constraints["concentration"]).__name__ == "_GreaterThan"
    assert repr(LKJ(3, 0.5)) == "LKJCholesky(concentration: 0.5)"
    batched = LKJ(4, m.tensor([[0.5], [2.0]], dtype=m.float64))
    assert repr(batched) == "LKJCholesky(concentration: torch.Size([2, 1]))"
    assert tuple(batched.batch_shape) == (2, 1) and tuple(batched.event_shape) == (4, 4)
    draw = batched.sample((5,))
    assert tuple(draw.shape) == (5, 2, 1, 4, 4) and draw.dtype == m.float64
    assert tuple(batched.log_prob(draw).shape) == (5, 2, 1)
    with pytest.raises(NotImplementedError):
        batched.rsample()
    with pytest.raises(NotImplementedError):
        batched.mean  # noqa: B018 (the property raises)
    with pytest.raises(NotImplementedError):
        batched.entropy()


def test_support_is_the_corr_cholesky_constraint():
    assert LKJCholesky(3).support is constraints.corr_cholesky


def test_expand(lib):
    m, LKJ = lib
    d = LKJ(4, m.tensor([0.5, 2.0]))
    e = d.expand((3, 2))
    assert type(e) is LKJ and e.dim == 4
    assert tuple(e.batch_shape) == (3, 2) and tuple(e.event_shape) == (4, 4)
    assert tuple(e.concentration.shape) == (3, 2)
    np.testing.assert_array_equal(e.concentration.numpy(), [[0.5, 2.0]] * 3)
    assert tuple(e._beta.batch_shape) == (3, 2, 4)
    assert tuple(e.sample((5,)).shape) == (5, 3, 2, 4, 4)
    value = m.eye(4).expand(3, 2, 4, 4)
    np.testing.assert_allclose(
        e.log_prob(value).numpy(), d.log_prob(m.eye(4)).expand(3, 2).numpy(), rtol=1e-6
    )
    assert e._validate_args == d._validate_args


def test_log_prob_validates_the_value(lib):
    m, LKJ = lib
    d = LKJ(3, 2.0)
    eye = m.eye(3)
    not_unit = eye * 2
    upper = m.tensor([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]]).mT
    negative = m.tensor([[1.0, 0.0, 0.0], [0.6, -0.8, 0.0], [0.0, 0.0, 1.0]])
    for value in (not_unit, upper, negative):
        with pytest.raises(ValueError, match="to be within the support"):
            d.log_prob(value)
    with pytest.raises(ValueError, match="must match event_shape"):
        d.log_prob(m.eye(2))
    # unchecked, the diagonal 2 enters as L_ii^(2 eta - 2 + dim - i), i = 2, 3: 2^3 * 2^2
    assert LKJ(3, 2.0, validate_args=False).log_prob(not_unit).item() == pytest.approx(
        d.log_prob(eye).item() + 5 * math.log(2)
    )


def test_uniform_density_at_the_identity_is_one_over_the_volume_of_the_factors(lib):
    # eta = 1, against Lebesgue measure on the entries below the diagonal: the density is
    # proportional to prod_i L_ii^(dim - i) (i from 1), so at L = I it is one over the
    # integral of that product over all factors. dim 2: r in (-1, 1), volume 2. dim 3:
    # L_21 in (-1, 1) weighted by sqrt(1 - L_21^2) (integral pi / 2) times the unit disc
    # (L_31, L_32) (area pi): pi^2 / 2.
    m, LKJ = lib
    x64 = m.float64
    assert LKJ(2, m.tensor(1.0, dtype=x64)).log_prob(m.eye(2, dtype=x64)).item() == (
        pytest.approx(-math.log(2), rel=1e-12)
    )
    assert LKJ(3, m.tensor(1.0, dtype=x64)).log_prob(m.eye(3, dtype=x64)).item() == (
        pytest.approx(math.log(2) - 2 * math.log(math.pi), rel=1e-12)
    )


# leafgrad's draws (its own generator): statistics, not PyTorch's values

N = 20_000


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
def test_draws_are_cholesky_factors_of_correlation_matrices(dtype):
    lg.manual_seed(0)
    d = LKJCholesky(5, lg.tensor([0.05, 1.0, 30.0], dtype=dtype))
    draw = d.sample((400,))
    assert tuple(draw.shape) == (400, 3, 5, 5) and draw.dtype == dtype
    assert not draw.requires_grad
    assert bool(d.support.check(draw).all())
    x = draw.numpy()
    np.testing.assert_array_equal(x, np.tril(x))
    assert (np.diagonal(x, axis1=-2, axis2=-1) > 0).all()
    tol = 10 * 5 * np.finfo(x.dtype).eps
    np.testing.assert_allclose(np.linalg.norm(x, axis=-1), 1.0, atol=tol)
    np.testing.assert_array_equal(x[..., 0, :], np.eye(5)[0].astype(x.dtype) + 0 * x[..., 0, :])


def test_draws_are_reproducible_under_a_seed():
    d = LKJCholesky(4, lg.tensor([0.5, 3.0]))
    lg.manual_seed(7)
    first = d.sample((3,)).numpy()
    lg.manual_seed(7)
    np.testing.assert_array_equal(d.sample((3,)).numpy(), first)


def _row_beta(dim, concentration):
    """PyTorch's Beta parameters for the squared off-diagonal norm y_i of row i (from 0):
    Beta(i - 1/2, eta + (dim - 1 - i) / 2) for i >= 1 (row 0's draw is unused)."""
    i = np.arange(1, dim)
    return i - 0.5, np.asarray(concentration)[..., None] + (dim - 1 - i) / 2


def test_rows_have_pytorchs_beta_norms():
    lg.manual_seed(2)
    eta = np.array([0.7, 4.0])
    dim = 5
    L = LKJCholesky(dim, lg.tensor(eta, dtype=lg.float64)).sample((N,)).numpy()
    y = 1 - np.diagonal(L, axis1=-2, axis2=-1)[..., 1:] ** 2
    a, b = _row_beta(dim, eta)
    mean = a / (a + b)
    std = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    assert (np.abs(y.mean(0) - mean) < 5 * std / math.sqrt(N)).all()
    np.testing.assert_allclose(y.std(0), std, rtol=0.05)


@pytest.mark.parametrize(("dim", "concentration"), [(2, 0.5), (3, 1.0), (4, 2.5), (6, 0.8)])
def test_correlations_have_the_second_moments_of_pytorchs_draws(lib, dim, concentration):
    # Row i of the factor is sqrt(y_i) times a uniform unit vector in its first i
    # coordinates, independent of the rows above, so every correlation r_ij (j < i) has
    # E[r_ij^2] = E[y_i] / i and E[r_ij] = 0. For row 1 this is the LKJ marginal moment
    # 1 / (2 eta + dim - 1); PyTorch 2.13's rows i >= 2 draw y_i ~ Beta(i - 1/2, ...)
    # where the onion method has Beta(i / 2, ...), so for dim >= 3 their moments (and
    # leafgrad's, which follow PyTorch's draws) exceed the LKJ ones: checked with both.
    m, LKJ = lib
    m.manual_seed(1)
    L = LKJ(dim, m.tensor(concentration, dtype=m.float64)).sample((N,)).numpy()
    corr = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, atol=1e-12)
    rows, cols = np.tril_indices(dim, -1)
    r = corr[:, rows, cols]
    a, b = _row_beta(dim, concentration)
    second = (a / (a + b) / np.arange(1, dim))[rows - 1]
    assert second[0] == pytest.approx(1 / (2 * concentration + dim - 1))
    assert (np.abs(r.mean(0)) < 5 * np.sqrt(second / N)).all()
    np.testing.assert_allclose((r**2).mean(0), second, rtol=0.05)
