"""``Weibull(scale, concentration)``: density ``(k / s) (x / s)^(k-1) exp(-(x / s)^k)`` on
``x > 0``; as PyTorch's, ``scale * e^(1 / k)`` for ``e`` from ``Exponential(1)``."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Weibull distributions of scale ``scale`` and shape ``concentration``."""

    arg_constraints: ClassVar[dict] = {
        "scale": constraints.positive,
        "concentration": constraints.positive,
    }
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(_lg.ones_like(self.scale), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        transforms = [
            PowerTransform(exponent=new.concentration_reciprocal),
            AffineTransform(loc=0, scale=new.scale),
        ]
        super(Weibull, new).__init__(base_dist, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * _lg.exp(_lg.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        k_inv = self.concentration_reciprocal
        return self.scale.pow(2) * (
            _lg.exp(_lg.lgamma(1 + 2 * k_inv)) - _lg.exp(2 * _lg.lgamma(1 + k_inv))
        )

    def entropy(self):
        k_inv = self.concentration_reciprocal
        return euler_constant * (1 - k_inv) + _lg.log(self.scale * k_inv) + 1
