"""Tests of the Cole-Hopf reference solution of the Burgers benchmark."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import roots_hermite

from leafgrad.pinn.problems._burgers_reference import (
    NU,
    _log_hermite_weights,
    burgers_reference,
    burgers_reference_derivatives,
    burgers_reference_grid,
    default_nodes,
)


def _trapezoid_reference(x: float, t: float, nu: float = NU, points: int = 40001) -> float:
    """The same integral by a trapezoidal rule directly in eta, stabilised by log-sum-exp."""
    # f gains at most exp(1 / (pi nu)) on the kernel's centre, so past this width the kernel's
    # exp(-eta^2 / (4 nu t)) leaves less than exp(-60) of the integrand.
    width = np.sqrt(4 * nu * t * (1 / (np.pi * nu) + 60))
    eta = np.linspace(-width, width, points)
    y = x - eta
    log_p = -(eta**2) / (4 * nu * t) - np.cos(np.pi * y) / (2 * np.pi * nu)
    p = np.exp(log_p - log_p.max())
    return -np.sum(p * np.sin(np.pi * y)) / np.sum(p)


def _residual(x: np.ndarray, t: np.ndarray, hx: float, ht: float):
    """Residual u_t + u u_x - nu u_xx by central differences, and the size of its terms."""
    u = burgers_reference(x, t)
    u_t = (burgers_reference(x, t + ht) - burgers_reference(x, t - ht)) / (2 * ht)
    right, left = burgers_reference(x + hx, t), burgers_reference(x - hx, t)
    u_x = (right - left) / (2 * hx)
    u_xx = (right - 2 * u + left) / hx**2
    terms = np.abs(u_t) + np.abs(u * u_x) + np.abs(NU * u_xx)
    return u_t + u * u_x - NU * u_xx, terms


def test_initial_condition():
    x = np.linspace(-1, 1, 101)
    np.testing.assert_array_equal(burgers_reference(x, 0.0), -np.sin(np.pi * x))
    # At t = 1e-4 the solution is the initial one plus t u_t(0, x), u_t = nu u_xx - u u_x.
    t = 1e-4
    s, c = np.sin(np.pi * x), np.cos(np.pi * x)
    first_order = -s + t * (NU * np.pi**2 * s - np.pi * s * c)
    np.testing.assert_allclose(burgers_reference(x, t), first_order, rtol=0, atol=1e-7)
    assert np.abs(burgers_reference(x, t) + s).max() < 2e-4


def test_boundary_conditions():
    t = np.concatenate([[1e-8, 1e-4], np.linspace(0.01, 1, 100)])
    assert np.abs(burgers_reference(1.0, t)).max() < 1e-10
    assert np.abs(burgers_reference(-1.0, t)).max() < 1e-10


def test_antisymmetry():
    rng = np.random.default_rng(0)
    x, t = rng.uniform(-1, 1, 2000), rng.uniform(0, 1, 2000)
    np.testing.assert_allclose(burgers_reference(-x, t), -burgers_reference(x, t), atol=1e-14)


def test_pde_residual_away_from_shock():
    x = np.linspace(-1, 1, 201)
    x = x[np.abs(x) >= 0.05]
    t = np.linspace(0.05, 1, 40)
    # Second-order differences: h^2 truncation dominates; with these steps the rounding in
    # u_xx is nu * eps / hx^2 ~ 3e-10 relative, far below.
    residual, terms = _residual(x[None, :], t[:, None], hx=5e-5, ht=1e-5)
    assert np.abs(residual).max() / terms.max() < 1e-6


def test_pde_residual_across_shock():
    x = np.linspace(-0.05, 0.05, 41)
    t = np.linspace(0.05, 1, 40)
    residual, terms = _residual(x[None, :], t[:, None], hx=1e-5, ht=1e-6)
    assert terms.max() > 100  # the shock's terms are large here
    assert np.abs(residual).max() / terms.max() < 1e-5


def test_quadrature_converged():
    x = np.concatenate([np.linspace(-1, 1, 256), np.linspace(-0.02, 0.02, 41)])
    t = np.linspace(0.01, 1, 100)
    assert default_nodes(NU) == 128
    u = burgers_reference_grid(x, t)
    np.testing.assert_allclose(u, burgers_reference_grid(x, t, nodes=256), rtol=0, atol=1e-13)


def test_log_weights_match_scipy():
    for nodes in (1, 2, 7, 128, 400):
        z, w = roots_hermite(nodes)
        log_w = _log_hermite_weights(z)
        assert np.isfinite(log_w).all()
        normal = w > 1e-300  # scipy's weights underflow further out; ours stay finite
        np.testing.assert_allclose(log_w[normal], np.log(w[normal]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("nu", [1e-4, 1e-3, 0.1, 1.0])
def test_quadrature_converged_other_viscosities(nu):
    x = np.concatenate([np.linspace(-1, 1, 64), np.linspace(-0.01, 0.01, 21)])
    t = np.linspace(0.01, 1, 20)
    nodes = default_nodes(nu)
    u = burgers_reference_grid(x, t, nu)
    np.testing.assert_allclose(
        u, burgers_reference_grid(x, t, nu, nodes=2 * nodes), rtol=0, atol=1e-13
    )


@pytest.mark.parametrize(
    "x, t",
    [(0.5, 0.25), (-0.5, 0.25), (0.5, 0.75), (-0.5, 0.75), (0.0, 1.0), (1e-3, 1.0),
     (-0.01, 0.4), (0.9, 0.9), (0.2, 1e-3)],
)  # fmt: skip
def test_matches_independent_trapezoidal_rule(x, t):
    assert burgers_reference(x, t) == pytest.approx(_trapezoid_reference(x, t), abs=1e-13)


def test_small_viscosity_matches_trapezoidal_rule():
    # At nu = 1e-4, f spans exp(+-1592), past float64, and the mass near the shock sits at
    # |z| ~ 56, where the Gauss-Hermite weights exp(-z^2) underflow.
    nu = 1e-4
    x = [0.0, 1e-4, -3e-4, 0.01, 0.5]
    t = [1.0, 1.0, 0.6, 0.3, 0.5]
    u = burgers_reference(x, t, nu)
    expected = [_trapezoid_reference(a, b, nu, points=400001) for a, b in zip(x, t)]
    np.testing.assert_allclose(u, expected, rtol=0, atol=1e-13)
    assert np.abs(u[1]) > 0.2  # a point inside the shock, not a trivial zero


def test_known_values():
    # Computed here and cross-checked by the trapezoidal rule above; they pin the shape of
    # the solution: near -sin at t = 0.25, a steep front near x = 0 at t = 1.
    u = burgers_reference([0.5, -0.5, 0.5, 1e-3], [0.25, 0.25, 0.75, 1.0])
    np.testing.assert_allclose(u, [-0.80319842, 0.80319842, -0.4614133, -0.08359155], atol=1e-8)


def test_maximum_slope_matches_basdevant():
    # Basdevant et al. (1986): max |u_x| = 152.00516 at t = 1.6037 / pi, on the shock x = 0.
    found = minimize_scalar(
        lambda t: burgers_reference_derivatives(0.0, t).u_x,
        bounds=(0.4, 0.6),
        method="bounded",
        options={"xatol": 1e-10},
    )
    assert -found.fun == pytest.approx(152.00516, abs=5e-6)
    assert found.x * np.pi == pytest.approx(1.6037, abs=5e-5)
    # The same slope by a central difference of u itself, not the derivative formula.
    h = 1e-6
    slope = (burgers_reference(h, found.x) - burgers_reference(-h, found.x)) / (2 * h)
    assert slope == pytest.approx(-152.00516, rel=1e-6)


def test_slope_at_final_time():
    # After t ~ 0.51 dissipation flattens the front: u_x(1, 0) = -83.9647, the slope of a
    # viscous shock -U tanh(U x / (2 nu)) with half-jump U ~ 0.73.
    h = 1e-6
    slope = (burgers_reference(h, 1.0) - burgers_reference(-h, 1.0)) / (2 * h)
    assert slope == pytest.approx(-83.96468, abs=1e-4)
    assert burgers_reference_derivatives(0.0, 1.0).u_x == pytest.approx(slope, rel=1e-7)


def test_derivatives_match_finite_differences():
    rng = np.random.default_rng(1)
    x, t = rng.uniform(-1, 1, 500), rng.uniform(0.05, 1, 500)
    x = x[np.abs(x) > 0.05]
    t = t[: x.size]
    fields = burgers_reference_derivatives(x, t)
    np.testing.assert_allclose(fields.u, burgers_reference(x, t), rtol=0, atol=1e-15)
    h = 1e-5
    u_x = (burgers_reference(x + h, t) - burgers_reference(x - h, t)) / (2 * h)
    u_t = (burgers_reference(x, t + h) - burgers_reference(x, t - h)) / (2 * h)
    h = 5e-5
    u_xx = (burgers_reference(x + h, t) - 2 * fields.u + burgers_reference(x - h, t)) / h**2
    np.testing.assert_allclose(fields.u_x, u_x, rtol=0, atol=1e-6 * np.abs(u_x).max())
    np.testing.assert_allclose(fields.u_t, u_t, rtol=0, atol=1e-7 * np.abs(u_t).max())
    np.testing.assert_allclose(fields.u_xx, u_xx, rtol=0, atol=1e-6 * np.abs(u_xx).max())


def test_derivatives_at_initial_time():
    x = np.linspace(-1, 1, 11)
    s, c = np.sin(np.pi * x), np.cos(np.pi * x)
    fields = burgers_reference_derivatives(x, 0.0)
    np.testing.assert_array_equal(fields.u, -s)
    np.testing.assert_allclose(fields.u_x, -np.pi * c)
    np.testing.assert_allclose(fields.u_xx, np.pi**2 * s)
    np.testing.assert_allclose(fields.u_t, NU * np.pi**2 * s - np.pi * s * c, atol=1e-15)


def test_broadcasting_and_grid():
    x = np.linspace(-1, 1, 7)
    t = np.linspace(0, 1, 5)
    grid = burgers_reference_grid(x, t)
    assert grid.shape == (5, 7) and grid.dtype == np.float64
    np.testing.assert_allclose(grid, burgers_reference(x[None, :], t[:, None]), atol=1e-15)
    np.testing.assert_allclose(grid[3], burgers_reference(x, t[3]), rtol=0, atol=1e-15)
    assert burgers_reference(0.5, 0.5).shape == ()
    assert burgers_reference_derivatives(x[:, None], t).u_xx.shape == (7, 5)


def test_many_points_in_chunks():
    rng = np.random.default_rng(2)
    x, t = rng.uniform(-1, 1, 20000), rng.uniform(0, 1, 20000)
    u = burgers_reference(x, t)
    # More points than one chunk holds; each must equal its own evaluation.
    for i in rng.choice(x.size, 10, replace=False):
        assert u[i] == pytest.approx(burgers_reference(x[i], t[i]), abs=1e-15)


def test_nan_propagates():
    u = burgers_reference([0.5, np.nan, 0.5], [np.nan, 0.5, 0.0])
    assert np.isnan(u[:2]).all() and u[2] == -1.0
    assert np.isnan(burgers_reference_derivatives(0.5, np.nan)).all()


def test_invalid_arguments():
    with pytest.raises(ValueError, match="t must be >= 0"):
        burgers_reference(0.0, -0.1)
    with pytest.raises(ValueError, match="1-D"):
        burgers_reference_grid(np.zeros((2, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="nu must be positive"):
        burgers_reference(0.0, 0.5, nu=0.0)
    with pytest.raises(ValueError, match="nodes"):
        burgers_reference(0.0, 0.5, nodes=0)
