"""``GeneralizedPareto(loc, scale, concentration)``: survival ``(1 + c z)^(-1/c)`` of
``z = (x - loc) / scale`` (``exp(-z)`` at ``c = 0``); draws by the inverse CDF."""

from __future__ import annotations

from numbers import Number
from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto distributions of location, scale and shape ``concentration``."""

    arg_constraints: ClassVar[dict] = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, Number) for v in (loc, scale, concentration)):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _zero_and_safe_concentration(self):
        """Where ``|concentration| <= 1e-8`` (``isclose`` to 0), and the concentration with
        those entries set to 1 so the branch not taken stays finite. PyTorch compares with
        a default-dtype zero, which raises for float64 under a float32 default; the zero
        here has the concentration's dtype, the same test where PyTorch's runs."""
        c = self.concentration
        eq_zero = _lg.isclose(c, _lg.zeros_like(c))
        return eq_zero, _lg.where(eq_zero, _lg.ones_like(c), c)

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        u = _lg.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._zero_and_safe_concentration()
        # y = 0 (concentration -1, the uniform case) would give 0 * log(0): take 0
        y = 1 / safe_conc + _lg.ones_like(z)
        where_nonzero = _lg.where(y == 0, y, y * _lg.log1p(safe_conc * z))
        return -self.scale.log() - _lg.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._zero_and_safe_concentration()
        where_nonzero = -_lg.log1p(safe_conc * z) / safe_conc
        return _lg.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return _lg.log1p(-_lg.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return _lg.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._zero_and_safe_concentration()
        logu = _lg.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * _lg.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return _lg.where(eq_zero, where_zero, where_nonzero)

    @property
    def mean(self):
        """``loc + scale / (1 - c)``; NaN for ``c >= 1``."""
        valid = self.concentration < 1
        safe_conc = _lg.where(valid, self.concentration, 0.5)
        return _lg.where(valid, self.loc + self.scale / (1 - safe_conc), _lg.nan)

    @property
    def variance(self):
        """``scale^2 / ((1 - c)^2 (1 - 2c))``; NaN for ``c >= 1/2``."""
        valid = self.concentration < 0.5
        safe_conc = _lg.where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return _lg.where(valid, result, _lg.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return _lg.broadcast_to(_lg.log(self.scale) + self.concentration + 1, self._batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``[loc, inf]`` for ``c >= 0``, ``[loc, loc - scale / c]`` for ``c < 0``."""
        lower = self.loc
        upper = _lg.where(self.concentration < 0, lower - self.scale / self.concentration, _lg.inf)
        return constraints.interval(lower, upper)
