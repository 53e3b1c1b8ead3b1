"""``Gamma(concentration, rate)``: density ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` on
``x >= 0``; draws are standard-gamma draws over ``rate``, with implicit gradients."""

from __future__ import annotations

from numbers import Number
from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from ._gamma_sampling import _standard_gamma
from .distribution import _NO_SHAPE
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distributions of shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints: ClassVar[dict] = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, Number) and isinstance(rate, Number):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # draws that underflow to 0 would give log_prob -inf: PyTorch lifts them to the
        # smallest normal number, leaving the gradient alone (detach shares the data)
        value.detach().clamp_(min=_lg.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        value = _lg.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            _lg.xlogy(self.concentration, self.rate)
            + _lg.xlogy(self.concentration - 1, value)
            - self.rate * value
            - _lg.lgamma(self.concentration)
        )

    def entropy(self):
        return (
            self.concentration
            - _lg.log(self.rate)
            + _lg.lgamma(self.concentration)
            + (1.0 - self.concentration) * _lg.digamma(self.concentration)
        )

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _lg.lgamma(x + 1) + (x + 1) * _lg.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _lg.special.gammainc(self.concentration, self.rate * value)
