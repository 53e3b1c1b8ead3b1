"""``StudentT(df, loc=0, scale=1)``: Student's t, drawn as ``loc + scale * z / sqrt(c / df)``
with ``z`` standard normal and ``c`` a Chi2(df) draw (so draws are differentiable in ``df``)."""

from __future__ import annotations

import math
from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from .chi2 import Chi2
from .distribution import _NO_SHAPE, Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distributions with ``df`` degrees of freedom, location and scale; the
    mean is NaN for ``df <= 1``, the variance inf for ``1 < df <= 2`` and NaN below."""

    arg_constraints: ClassVar[dict] = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return _lg.where(self.df <= 1, _lg.nan, self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        result = _lg.where(df > 2, finite, _lg.inf)
        return _lg.where(df <= 1, _lg.nan, result)

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        z = _standard_normal(shape, dtype=self.df.dtype)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (z * _lg.rsqrt(chi2 / self.df))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        normalizer = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + _lg.lgamma(0.5 * self.df)
            - _lg.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * _lg.log1p(y**2.0 / self.df) - normalizer

    def entropy(self):
        log_beta = _lg.lgamma(0.5 * self.df) + math.lgamma(0.5) - _lg.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (_lg.digamma(0.5 * (self.df + 1)) - _lg.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + log_beta
        )
