"""``VonMises(loc, concentration)``: the circular density ``exp(k cos(x - loc)) / (2 pi I0(k))``
for angles ``x`` taken modulo ``2 pi``; draws by Best and Fisher's rejection sampler."""

from __future__ import annotations

import math
from typing import ClassVar

import leafgrad as _lg

from .. import Size, Tensor
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz and Stegun 9.8.1-9.8.4: polynomials in (x / 3.75)^2 below 3.75 and in 3.75 / x
# above, the approximation of I0 and I1 that PyTorch evaluates (its values, not SciPy's).
_SMALL = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411),
)
_LARGE = (
    (
        0.39894228,
        0.01328592,
        0.00225319,
        -0.00157565,
        0.00916281,
        -0.02057706,
        0.02635537,
        -0.01647633,
        0.00392377,
    ),
    (
        0.39894228,
        -0.03988024,
        -0.00362018,
        0.00163801,
        -0.01031555,
        0.02282967,
        -0.02895312,
        0.01787654,
        -0.00420059,
    ),
)


def _horner(y: Tensor, coefficients) -> Tensor:
    """``sum_i coefficients[i] y^i``, innermost term first."""
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: Tensor, order: int = 0) -> Tensor:
    """``log I_order(x)`` for ``x > 0`` and ``order`` 0 or 1 (AssertionError otherwise)."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = x / 3.75
    small = _horner(y * y, _SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _horner(3.75 / x, _LARGE[order]).log()
    return _lg.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher (1979): propose ``f = (1 + r z) / (r + z)`` for ``z = cos(pi u1)``
    until every element accepts once; the angles come back wrapped into ``[-pi, pi)``."""
    done = _lg.zeros(x.shape, dtype=_lg.bool)
    while not bool(done.all()):
        u1, u2, u3 = _lg.rand((3, *x.shape), dtype=loc.dtype).unbind()
        z = _lg.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = _lg.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Von Mises distributions on the circle of mean angle ``loc`` and concentration ``k``."""

    arg_constraints: ClassVar[dict] = {
        "loc": constraints.real,
        "concentration": constraints.positive,
    }
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * _lg.cos(value - self.loc)
        return (
            log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)
        )

    @lazy_property
    def _loc(self):
        return self.loc.to(_lg.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(_lg.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        # below 1e-5 the closed form cancels: its expansion to second order in kappa
        return _lg.where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)

    def sample(self, sample_shape=_NO_SHAPE):
        """Draws in float64 whatever the parameters' dtype (float32 rejection can loop for
        ever at concentrations near 1e-4), returned in the parameters' dtype."""
        with _lg.no_grad():
            shape = self._extended_shape(sample_shape)
            x = _lg.empty(shape, dtype=self._loc.dtype)
            draws = _rejection_sample(self._loc, self._concentration, self._proposal_r, x)
            return draws.to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        try:
            return super().expand(batch_shape)
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self):
        """The circular mean: ``loc`` itself."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        log_ratio = _log_modified_bessel_fn(k, order=1) - _log_modified_bessel_fn(k, order=0)
        return 1 - log_ratio.exp()
