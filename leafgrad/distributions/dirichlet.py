"""``Dirichlet(concentration)``: distributions on the probability simplex over the last dim,
drawn as independent standard-gamma draws normalized to sum to one."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from ._gamma_sampling import _standard_gamma
from .distribution import _NO_SHAPE
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """``concentration``: at least one dim (ValueError else); its last dim is the event."""

    arg_constraints: ClassVar[dict] = {
        "concentration": constraints.independent(constraints.positive, 1)
    }
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=_NO_SHAPE):
        # Normalized gamma draws carry the gamma draws' implicit gradients: an unbiased
        # pathwise gradient, though not per draw the one PyTorch's _dirichlet_grad gives.
        shape = self._extended_shape(sample_shape)
        gammas = _standard_gamma(self.concentration.expand(shape))
        return gammas / gammas.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (
            _lg.xlogy(self.concentration - 1.0, value).sum(-1)
            + _lg.lgamma(self.concentration.sum(-1))
            - _lg.lgamma(self.concentration).sum(-1)
        )

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        # every concentration below 1: the density peaks at the corner of the largest
        corner = _lg.nn.functional.one_hot(shifted.argmax(-1), shifted.shape[-1]).to(mode)
        return _lg.where((self.concentration < 1).all(-1, keepdim=True), corner, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        total = self.concentration.sum(-1)
        return (
            _lg.lgamma(self.concentration).sum(-1)
            - _lg.lgamma(total)
            - (k - total) * _lg.digamma(total)
            - ((self.concentration - 1.0) * _lg.digamma(self.concentration)).sum(-1)
        )

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - _lg.lgamma(x.sum(-1))
