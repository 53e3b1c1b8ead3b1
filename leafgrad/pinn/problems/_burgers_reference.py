"""Reference solution of the viscous Burgers benchmark (Raissi et al. 2019) by Cole-Hopf.

u_t + u u_x = nu u_xx on x in [-1, 1], t in [0, 1], u(0, x) = -sin(pi x), u(t, +-1) = 0,
nu = 0.01 / pi by default. The Cole-Hopf transform turns the equation into the heat equation,
whose whole-line solution for this periodic initial data gives (Basdevant et al. 1986)

    u(t, x) = -E[sin(pi y)],   y = x - eta,

an average over eta with weight f(x - eta) exp(-eta^2 / (4 nu t)), f(y) = exp(-cos(pi y) /
(2 pi nu)). The boundary values hold by symmetry. With eta = sqrt(4 nu t) z the weight becomes
Gauss-Hermite's exp(-z^2), so the average is a ratio of two Gauss-Hermite sums. Both are
formed from log-weights with the per-point maximum subtracted: f spans exp(+-1 / (2 pi nu)),
exp(+-50) at the benchmark's nu and beyond float64 below nu ~ 2e-4, and for small nu the
integrand's mass sits at nodes whose weights exp(-z^2) underflow.

Accuracy at nu = 0.01 / pi with the default 128 nodes, over a 100 x 256 grid of t in
[0.01, 1] plus the shock |x| <= 0.02: u agrees with 1600 nodes to 2e-14 and with an
independent trapezoidal rule in eta to 1e-15; u_x agrees with 1600 nodes to 5e-15 of its
maximum. The maximum slope, |u_x(t, 0)| = 152.005162 at t = 1.603688 / pi, matches
Basdevant et al.'s 152.00516 at t = 1.6037 / pi.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import roots_hermite

NU = 0.01 / np.pi

# Quadrature rows are processed in chunks of about this many (point, node) pairs, so memory
# stays at a few arrays of 8 MB whatever the number of points.
_CHUNK_ELEMENTS = 1 << 20


class BurgersFields(NamedTuple):
    """The reference solution and the derivatives a residual needs, all of one shape."""

    u: np.ndarray
    u_t: np.ndarray
    u_x: np.ndarray
    u_xx: np.ndarray


def default_nodes(nu: float) -> int:
    """Gauss-Hermite node count that converges u to ~1e-14 for 1e-4 <= nu <= 1.

    Small nu moves the integrand's mass out to z^2 ~ 1 / (pi nu), where f's gain pays for
    exp(-z^2), and the nodes reach only |z| < sqrt(2 n); large nu makes f oscillate in z,
    which needs ~nu nodes to resolve. Checked by doubling the count on a grid of t in
    [0.01, 1] and x in [-1, 1] plus the shock.
    """
    return max(128, int(np.ceil(0.4 / nu)), int(np.ceil(1000 * nu)))


def _log_hermite_weights(z: np.ndarray) -> np.ndarray:
    """Log of the Gauss-Hermite weights at the nodes z, finite however far out a node lies.

    w = 1 / (n p_{n-1}(z)^2) with p_k the orthonormal Hermite polynomials, run by their
    three-term recurrence; p_k grows like exp(z^2 / 2), so it is rescaled as it goes and the
    scale kept as a log. (scipy's weights carry exp(-z^2) and underflow to 0 past |z| ~ 27,
    where for nu below ~5e-4 the integrand still has its mass.)
    """
    n = z.size
    p_prev, p = np.zeros_like(z), np.full_like(z, np.pi**-0.25)
    log_scale = np.zeros_like(z)
    for k in range(1, n):
        p_prev, p = p, np.sqrt(2 / k) * z * p - np.sqrt((k - 1) / k) * p_prev
        scale = np.abs(p)
        if scale.max() > 1e100:
            scale = np.where(scale > 1e100, scale, 1.0)
            p, p_prev = p / scale, p_prev / scale
            log_scale += np.log(scale)
    return -np.log(n) - 2 * (np.log(np.abs(p)) + log_scale)


@lru_cache(maxsize=8)
def _hermite_rule(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and their log-weights, read-only."""
    z, _ = roots_hermite(nodes)
    log_w = _log_hermite_weights(z)
    z.setflags(write=False)
    log_w.setflags(write=False)
    return z, log_w


def _check(nu: float, nodes: int | None) -> int:
    if not nu > 0:
        raise ValueError(f"burgers_reference: the viscosity nu must be positive, got {nu}")
    nodes = default_nodes(nu) if nodes is None else int(nodes)
    if nodes < 1:
        raise ValueError(f"burgers_reference: nodes must be a positive integer, got {nodes}")
    return nodes


def _broadcast(x: ArrayLike, t: ArrayLike) -> tuple[tuple[int, ...], np.ndarray, np.ndarray]:
    """The broadcast shape, and x and t flattened to it as float64; raises for t < 0."""
    x, t = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(t, dtype=np.float64))
    if np.any(t < 0):
        raise ValueError("burgers_reference: t must be >= 0 (the solution starts at t = 0)")
    return x.shape, x.ravel(), t.ravel()


def _initial(x: np.ndarray, t: np.ndarray, value: np.ndarray) -> np.ndarray:
    """value where t == 0, NaN elsewhere until the quadrature fills t > 0 (NaN t stays NaN)."""
    return np.where(t == 0, value, np.nan)


def _chunks(x: np.ndarray, t: np.ndarray, nu: float, nodes: int):
    """Yield (index, p, y): for the points with t > 0, normalised weights p and points y.

    p and y are (chunk, nodes); E[g] = (p * g(y)).sum(1) is the Cole-Hopf average.
    """
    z, log_w = _hermite_rule(nodes)
    (positive,) = np.nonzero(t > 0)
    step = max(1, _CHUNK_ELEMENTS // z.size)
    for start in range(0, positive.size, step):
        index = positive[start : start + step]
        y = x[index, None] - np.sqrt(4 * nu * t[index, None]) * z
        log_p = log_w - np.cos(np.pi * y) / (2 * np.pi * nu)
        log_p -= log_p.max(axis=1, keepdims=True)
        p = np.exp(log_p)
        p /= p.sum(axis=1, keepdims=True)
        yield index, p, y


def burgers_reference(
    x: ArrayLike, t: ArrayLike, nu: float = NU, *, nodes: int | None = None
) -> np.ndarray:
    """u(t, x) of the Burgers benchmark; x and t broadcast together, t >= 0.

    Returns float64 of the broadcast shape. At t = 0 it is -sin(pi x) exactly. x may lie
    outside [-1, 1]: the solution is the 2-periodic whole-line one.
    """
    nodes = _check(nu, nodes)
    shape, x, t = _broadcast(x, t)
    u = _initial(x, t, -np.sin(np.pi * x))
    for index, p, y in _chunks(x, t, nu, nodes):
        u[index] = -np.einsum("ij,ij->i", p, np.sin(np.pi * y))
    return u.reshape(shape)


def burgers_reference_grid(
    x: ArrayLike, t: ArrayLike, nu: float = NU, *, nodes: int | None = None
) -> np.ndarray:
    """u on a grid: x: (nx,), t: (nt,) -> (nt, nx) with u[i, j] = u(t[i], x[j])."""
    x, t = np.asarray(x, dtype=np.float64), np.asarray(t, dtype=np.float64)
    if x.ndim != 1 or t.ndim != 1:
        raise ValueError(
            f"burgers_reference_grid: x and t must be 1-D, got shapes {x.shape} and {t.shape}"
        )
    return burgers_reference(x[None, :], t[:, None], nu, nodes=nodes)


def burgers_reference_derivatives(
    x: ArrayLike, t: ArrayLike, nu: float = NU, *, nodes: int | None = None
) -> BurgersFields:
    """u, u_t, u_x and u_xx at (t, x); x and t broadcast together, t >= 0.

    u_x and u_xx differentiate the average under the integral: with s = sin(pi y),
    c = cos(pi y), m = E[s] and d = s - m, d/dx E[g] = E[g'] + E[(g - E[g]) s] / (2 nu), so
    u_x = -pi E[c] - E[d^2] / (2 nu) and u_xx = pi^2 m - 3 pi E[d c] / (2 nu) - E[d^3] / (4 nu^2),
    the moments taken about the mean so nothing cancels. u_t is nu u_xx - u u_x: the transform
    satisfies the equation exactly, so this is the time derivative, not a residual.
    """
    nodes = _check(nu, nodes)
    shape, x, t = _broadcast(x, t)
    s, c = np.sin(np.pi * x), np.cos(np.pi * x)
    u, u_x, u_xx = (_initial(x, t, v) for v in (-s, -np.pi * c, np.pi**2 * s))
    for index, p, y in _chunks(x, t, nu, nodes):
        s, c = np.sin(np.pi * y), np.cos(np.pi * y)
        m = np.einsum("ij,ij->i", p, s)
        d = s - m[:, None]
        pd = p * d
        u[index] = -m
        u_x[index] = -np.pi * np.einsum("ij,ij->i", p, c) - np.einsum("ij,ij->i", pd, d) / (2 * nu)
        u_xx[index] = (
            np.pi**2 * m
            - 3 * np.pi * np.einsum("ij,ij->i", pd, c) / (2 * nu)
            - np.einsum("ij,ij->i", pd, d * d) / (4 * nu**2)
        )
    u_t = nu * u_xx - u * u_x
    return BurgersFields(*(a.reshape(shape) for a in (u, u_t, u_x, u_xx)))
