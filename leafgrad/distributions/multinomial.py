"""``Multinomial(total_count=1, probs=None, logits=None)``: counts per category over
``total_count`` independent Categorical draws (the event is the last dim)."""

from __future__ import annotations

from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import _NO_SHAPE, Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial distributions; ``total_count`` must be an int (NotImplementedError else);
    the parameters are Categorical's. ``log_prob`` does not need ``total_count``."""

    arg_constraints: ClassVar[dict] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    total_count: int

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape=_NO_SHAPE):
        sample_shape = Size(sample_shape)
        indices = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # the trials' dim goes last, where their indices are counted per category
        indices = indices.permute(*range(1, indices.dim()), 0)
        counts = _lg.zeros(self._extended_shape(sample_shape), dtype=indices.dtype)
        counts.scatter_add_(-1, indices, _lg.ones_like(indices))
        return counts.type_as(self.probs)

    def entropy(self):
        # H = -log n! - sum_i E[log p_i^x_i] + sum_i E[log x_i!], the last through each
        # count's Binomial(n, p_i) marginal
        n = _lg.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - _lg.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = _lg.exp(self._binomial.log_prob(support))
        weights = _lg.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = _lg.lgamma(value.sum(-1) + 1)
        log_factorial_xs = _lg.lgamma(value + 1).sum(-1)
        # a zero count of an impossible category contributes 0, not 0 * -inf
        logits = logits.masked_fill((value == 0) & (logits == -_lg.inf), 0)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
