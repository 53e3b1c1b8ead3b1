"""``Binomial(total_count=1, probs=None, logits=None)``: successes in ``total_count``
independent trials of success probability ``probs`` (or ``sigmoid(logits)``)."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from ._rates import Rate
from .distribution import _NO_SHAPE, Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    """``max(x, 0)`` whose gradient at 0 is 1/2, as PyTorch's."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Rate, Distribution):
    """Binomial distributions; exactly one of ``probs`` and ``logits`` (ValueError else);
    ``total_count`` is broadcast with it and takes its dtype."""

    arg_constraints: ClassVar[dict] = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None) -> None:
        self._set_rate(probs, logits, validate_args, total_count)

    def expand(self, batch_shape, _instance=None):
        return self._expand_rate(Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        with _lg.no_grad():
            return _lg.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = _lg.lgamma(self.total_count + 1)
        log_factorial_k = _lg.lgamma(value + 1)
        log_factorial_nmk = _lg.lgamma(self.total_count - value + 1)
        # n log(1 + exp(logits)), stable for logits of either sign
        normalize_term = (
            self.total_count * _clamp_by_zero(self.logits)
            + self.total_count * _lg.log1p(_lg.exp(-_lg.abs(self.logits)))
            - log_factorial_n
        )
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(_lg.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True):
        total_count = self._homogeneous_count("enumerate_support")
        values = _lg.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
