"""Standard-gamma draws with implicit reparameterization gradients: the base of Gamma, Chi2,
Beta, Dirichlet and StudentT samples.

A draw ``x ~ Gamma(alpha, 1)`` is ``F^-1(u; alpha)`` for the regularized incomplete gamma
``F = P(alpha, .)``. Holding ``u`` fixed, the implicit function theorem gives
``dx/dalpha = -(dF/dalpha)(alpha, x) / f(x; alpha)`` with ``f`` the density, which is the
gradient PyTorch's ``_standard_gamma`` carries (it approximates the same quantity).
"""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ..autograd import Function
from ..autograd.function import once_differentiable

__all__ = ["_standard_gamma", "_standard_gamma_grad"]


def _draw(fill, n: int) -> np.ndarray:
    """``n`` float64 draws from leafgrad's generator, so ``manual_seed`` governs them."""
    return fill(n, dtype=_lg.float64).numpy()


def _standard_gamma_draws(alpha: np.ndarray) -> np.ndarray:
    """Gamma(alpha, 1) draws (float64, alpha's shape) by Marsaglia and Tsang's squeeze;
    ``alpha < 1`` draws Gamma(alpha + 1) and scales by ``u ** (1 / alpha)``."""
    a = np.asarray(alpha, dtype=np.float64).ravel()
    boost = a < 1
    d = np.where(boost, a + 1, a) - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.empty_like(a)
    pending = np.arange(a.size)
    while pending.size:
        z, u = _draw(_lg.randn, pending.size), _draw(_lg.rand, pending.size)
        dp = d[pending]
        v = (1.0 + c[pending] * z) ** 3
        safe_v = np.where(v > 0, v, 1.0)  # log v only where v > 0: the rest is rejected
        accept = (v > 0) & (np.log(u) < 0.5 * z * z + dp - dp * safe_v + dp * np.log(safe_v))
        out[pending[accept]] = dp[accept] * v[accept]
        pending = pending[~accept]
    if boost.any():
        u = _draw(_lg.rand, int(boost.sum()))
        out[boost] *= u ** (1.0 / a[boost])
    return out.reshape(np.shape(alpha))


def _regularized_gamma(a: np.ndarray, x: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """``P(a, x)``, or ``-Q(a, x)`` where ``upper`` (same derivative in ``a``, but keeps
    its relative precision in the right tail)."""
    at, xt = _lg.tensor(a), _lg.tensor(x)
    return np.where(upper, -_lg.igammac(at, xt).numpy(), _lg.igamma(at, xt).numpy())


def _standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/dalpha`` of a standard-gamma draw ``x`` (float64 arrays, broadcast): the implicit
    gradient, with ``dF/dalpha`` by a fourth-order central difference of the incomplete gamma
    function (steps relative to ``alpha``; truncation and round-off both near 1e-10)."""
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    with _lg.no_grad():
        upper = _lg.igamma(_lg.tensor(a), _lg.tensor(x)).numpy() > 0.5
        h = 1e-3 * a
        f = [_regularized_gamma(a + k * h, x, upper) for k in (-2, -1, 1, 2)]
    dF = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_density = (a - 1) * np.log(x) - x - _lg.lgamma(_lg.tensor(a)).numpy()
        grad = -dF * np.exp(-log_density)
    return np.where(np.isfinite(grad), grad, 0.0)


class _StandardGamma(Function):
    """Draws of ``Gamma(concentration, 1)`` whose gradient is the implicit one."""

    @staticmethod
    def forward(ctx, concentration):
        draws = _standard_gamma_draws(concentration.numpy())
        dtype = concentration.numpy().dtype
        # draws that underflow (tiny concentrations) become the smallest normal number, so
        # their logs and Dirichlet's normalization stay finite
        draws = np.maximum(draws.astype(dtype), np.finfo(dtype).tiny)
        result = _lg.tensor(draws, dtype=concentration.dtype)
        ctx.save_for_backward(concentration, result)
        return result

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        concentration, result = ctx.saved_tensors
        dx = _standard_gamma_grad(concentration.numpy(), result.numpy())
        return grad * _lg.tensor(dx, dtype=grad.dtype)


def _standard_gamma(concentration: Tensor) -> Tensor:
    """Gamma(concentration, 1) draws, differentiable in ``concentration`` (first order, as
    PyTorch's: a second derivative raises)."""
    return _StandardGamma.apply(concentration)
