"""What Binomial and NegativeBinomial share: a trial count and a success rate given as
``probs`` or ``logits`` (the other made on first read), broadcast together."""

from __future__ import annotations

from .. import Size
from .utils import broadcast_all


class CountAndRate:
    """Mixin for a distribution of ``total_count`` trials at a rate (``probs``/``logits``)."""

    def _set_count_and_rate(self, total_count, probs, logits, validate_args) -> None:
        """``total_count`` broadcast with the rate given, in its dtype; then the base's init."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        rate_name = "probs" if probs is not None else "logits"
        count, rate = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.type_as(rate)
        setattr(self, rate_name, rate)
        self._param = rate
        super().__init__(rate.size(), validate_args=validate_args)

    def _expand_count_and_rate(self, cls, batch_shape, _instance):
        """``expand``: the count and whichever rates exist, expanded (not copied)."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
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
