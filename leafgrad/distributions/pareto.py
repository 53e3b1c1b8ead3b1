"""``Pareto(scale, alpha)``: density ``alpha scale^alpha / x^(alpha+1)`` on ``x >= scale``;
as PyTorch's, ``scale * exp(e)`` for ``e`` from ``Exponential(alpha)``."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


def _clamp_min(x, bound):
    """``x.clamp(min=bound)`` whose gradient below ``bound`` is 0 even when the gradient
    arriving is inf or NaN, as PyTorch's clamp (leafgrad's clamp multiplies by its mask)."""
    return _lg.where(x >= bound, x, bound)


class Pareto(TransformedDistribution):
    """Pareto distributions of minimum ``scale`` and tail index ``alpha``; the mean is
    ``inf`` for ``alpha <= 1``, the variance for ``alpha <= 2``."""

    arg_constraints: ClassVar[dict] = {
        "alpha": constraints.positive,
        "scale": constraints.positive,
    }

    def __init__(self, scale, alpha, validate_args=None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        a = _clamp_min(self.alpha, 1)  # a = 1 divides by zero: inf, as PyTorch's
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = _clamp_min(self.alpha, 2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
