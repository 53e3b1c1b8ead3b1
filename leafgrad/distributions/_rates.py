"""What Bernoulli, LogitRelaxedBernoulli, Binomial and NegativeBinomial share: a rate given as
``probs`` or ``logits`` (the other made on first read), broadcast with a trial count where
there is one."""

from __future__ import annotations

from .. import Size
from .utils import broadcast_all


class Rate:
    """Mixin for a distribution of a rate (``probs``/``logits``), with or without
    ``total_count`` trials."""

    def _set_rate(self, probs, logits, validate_args, total_count=None) -> None:
        """The rate given (and ``total_count``, broadcast with it in its dtype); then the
        base's init with the rate's shape (a number's: ``()``)."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, rate = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (rate,) = broadcast_all(rate)
        else:
            count, rate = broadcast_all(total_count, rate)
            self.total_count = count.type_as(rate)
        setattr(self, name, rate)
        self._param = rate
        super().__init__(rate.size(), validate_args=validate_args)

    def _expand_rate(self, cls, batch_shape, _instance):
        """``expand``: the count and whichever rates exist, expanded (not copied)."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        if "total_count" in self.__dict__:
            new.total_count = self.total_count.expand(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        super(cls, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)
