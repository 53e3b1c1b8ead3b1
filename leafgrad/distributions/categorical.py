"""``Categorical(probs=None, logits=None)``: index ``i`` with probability ``probs[..., i]``
(normalized over the last dim) or ``softmax(logits)[..., i]``."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_tensors, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical distributions over the last dim of ``probs`` or ``logits`` (the batch is
    the dims before it); exactly one of the two (ValueError else)."""

    arg_constraints: ClassVar[dict] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = batch_shape + Size((self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self):
        return _lg.full(self._extended_shape(), _lg.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return _lg.full(self._extended_shape(), _lg.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=_NO_SHAPE):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = _lg.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        # clamped so that a zero probability (logit -inf) contributes 0 * finite, not NaN
        min_real = _lg.finfo(self.logits.dtype).min
        logits = _lg.clamp(self.logits, min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True):
        values = _lg.arange(self._num_events, dtype=_lg.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
