"""``Bernoulli(probs=None, logits=None)``: 1 with probability ``probs`` (or
``sigmoid(logits)``), else 0; the parameter not given is derived when first read."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg
import leafgrad.nn.functional as F

from .. import Size
from .._dtype import scalar_type_name
from . import constraints
from ._rates import Rate
from .distribution import _NO_SHAPE
from .exp_family import ExponentialFamily
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


def _check_castable(logits, value) -> None:
    """PyTorch's RuntimeError for an integer ``value``: its loss is written in the target's
    dtype, which cannot hold a float result."""
    # leafgrad's binary_cross_entropy_with_logits truncates the loss into the integer dtype
    # instead, which would give wrong log-probabilities silently
    if value.dtype != _lg.bool and not value.is_floating_point():
        raise RuntimeError(
            f"result type {scalar_type_name(logits.dtype.np)} can't be cast to the "
            f"desired output type {scalar_type_name(value.dtype.np)}"
        )


class Bernoulli(Rate, ExponentialFamily):
    """Bernoulli distributions; exactly one of ``probs`` and ``logits`` (ValueError else)."""

    arg_constraints: ClassVar[dict] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        self._set_rate(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_rate(Bernoulli, batch_shape, _instance)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, _lg.nan)  # a tie has no mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

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
            return _lg.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        _check_castable(logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True):
        values = _lg.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self) -> tuple:
        return (_lg.logit(self.probs),)

    def _log_normalizer(self, x):
        return _lg.log1p(_lg.exp(x))
