"""``NegativeBinomial(total_count, probs=None, logits=None)``: failures before
``total_count`` successes, each trial failing with probability ``probs``; draws are Poisson
draws of a gamma rate (its mixture form)."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg
import leafgrad.nn.functional as F

from .. import Size
from . import constraints
from ._rates import Rate
from .distribution import _NO_SHAPE, Distribution
from .gamma import Gamma
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Rate, Distribution):
    """Negative binomial distributions; exactly one of ``probs`` and ``logits`` (ValueError
    else); ``total_count`` (real, >= 0) is broadcast with it and takes its dtype."""

    arg_constraints: ClassVar[dict] = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None) -> None:
        self._set_rate(probs, logits, validate_args, total_count)

    def expand(self, batch_shape, _instance=None):
        return self._expand_rate(NegativeBinomial, batch_shape, _instance)

    @property
    def mean(self):
        return self.total_count * _lg.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / _lg.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(self.total_count, _lg.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=_NO_SHAPE):
        with _lg.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return _lg.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(-self.logits) + value * (
            F.logsigmoid(self.logits)
        )
        log_normalization = (
            -_lg.lgamma(self.total_count + value)
            + _lg.lgamma(1.0 + value)
            + _lg.lgamma(self.total_count)
        )
        # total_count = 0 puts all mass on 0, where the log-gammas would be inf - inf
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
