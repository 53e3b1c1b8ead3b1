"""``RelaxedBernoulli(temperature, probs=None, logits=None)``: the binary Concrete (Gumbel-
softmax) relaxation on ``(0, 1)``; as PyTorch's, ``sigmoid`` of a ``LogitRelaxedBernoulli``
draw, which is ``(logits + logistic noise) / temperature``."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from ._rates import Rate
from .distribution import _NO_SHAPE, Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Rate, Distribution):
    """The logit of a RelaxedBernoulli draw; exactly one of ``probs`` and ``logits``
    (ValueError else); ``temperature`` is a tensor, not broadcast into the batch."""

    arg_constraints: ClassVar[dict] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        self.temperature = temperature
        self._set_rate(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_rate(LogitRelaxedBernoulli, batch_shape, _instance)
        new.temperature = self.temperature
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(_lg.rand(shape, dtype=probs.dtype))
        return (
            uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()
        ) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """Relaxed Bernoulli distributions on ``(0, 1)``; lower ``temperature`` is closer to a
    Bernoulli."""

    arg_constraints: ClassVar[dict] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
