"""``Kumaraswamy(concentration1, concentration0)``: density ``a b x^(a-1) (1 - x^a)^(b-1)`` on
``[0, 1]`` (``a``, ``b`` the two concentrations); as PyTorch's,
``(1 - u^(1/b))^(1/a)`` for ``u`` uniform."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """``E[x^n] = b B(1 + n / a, b)``, through log-gammas."""
    arg1 = 1 + n / a
    log_value = _lg.lgamma(arg1) + _lg.lgamma(b) - _lg.lgamma(arg1 + b)
    return b * _lg.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distributions of concentrations ``a = concentration1`` and
    ``b = concentration0``."""

    arg_constraints: ClassVar[dict] = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            _lg.full_like(self.concentration0, 0),
            _lg.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # PyTorch's log-space form, kept so that the values (NaN included) are its own:
        # log(1 - b) / b - log(1 - a b), NaN where either concentration is below one
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return log_mode.masked_fill((b < 1) | (a < 1), _lg.nan).exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = _lg.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * H0 - _lg.log(self.concentration1) - _lg.log(self.concentration0)
