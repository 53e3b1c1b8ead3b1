"""``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))``: density
``C(p) p^x (1 - p)^(1-x)`` on ``[0, 1]`` (Loaiza-Ganem and Cunningham, 2019), with
``C(p) = 2 atanh(1 - 2p) / (1 - 2p)``.

Near ``p = 1/2`` the closed forms are 0/0: inside ``lims`` the normalizer, moments and the
cdf use Taylor expansions about 1/2, and the closed forms are fed a probability cut to
``lims[0]``, so neither their values nor their gradients turn NaN there (as PyTorch's).
"""

from __future__ import annotations

import math
from numbers import Number
from typing import ClassVar

import leafgrad as _lg
import leafgrad.nn.functional as F

from .. import Size
from . import constraints
from .distribution import _NO_SHAPE
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli distributions; exactly one of ``probs`` and ``logits``
    (ValueError else); ``probs`` are clamped into ``[eps, 1 - eps]``."""

    arg_constraints: ClassVar[dict] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            # checked before clamping, which would hide values outside [0, 1]
            if validate_args is not None and not bool(
                self.arg_constraints["probs"].check(self.probs).all()
            ):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return _lg.where(
            self._outside_unstable_region(),
            self.probs,
            self._lims[0] * _lg.ones_like(self.probs),
        )

    def _cont_bern_log_norm(self):
        """``log C(p)``."""
        cut_probs = self._cut_probs()
        below_half = _lg.where(cut_probs <= 0.5, cut_probs, _lg.zeros_like(cut_probs))
        above_half = _lg.where(cut_probs >= 0.5, cut_probs, _lg.ones_like(cut_probs))
        log_norm = _lg.log(_lg.abs(_lg.log1p(-cut_probs) - _lg.log(cut_probs))) - _lg.where(
            cut_probs <= 0.5, _lg.log1p(-2.0 * below_half), _lg.log(2.0 * above_half - 1.0)
        )
        x = _lg.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _lg.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (
            _lg.log1p(-cut_probs) - _lg.log(cut_probs)
        )
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * _lg.pow(x, 2)) * x
        return _lg.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return _lg.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        variances = cut_probs * (cut_probs - 1.0) / _lg.pow(1.0 - 2.0 * cut_probs, 2) + 1.0 / (
            _lg.pow(_lg.log1p(-cut_probs) - _lg.log(cut_probs), 2)
        )
        x = _lg.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _lg.where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=_NO_SHAPE):
        u = _lg.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with _lg.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=_NO_SHAPE):
        u = _lg.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = F.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (
            _lg.pow(cut_probs, value) * _lg.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0
        ) / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = _lg.where(self._outside_unstable_region(), cdfs, value)
        return _lg.where(
            value <= 0.0,
            _lg.zeros_like(value),
            _lg.where(value >= 1.0, _lg.ones_like(value), unbounded_cdfs),
        )

    def icdf(self, value):
        cut_probs = self._cut_probs()
        inverted = (
            _lg.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - _lg.log1p(-cut_probs)
        ) / (_lg.log(cut_probs) - _lg.log1p(-cut_probs))
        return _lg.where(self._outside_unstable_region(), inverted, value)

    def entropy(self):
        log_probs0 = _lg.log1p(-self.probs)
        log_probs1 = _lg.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x):
        """``log((e^x - 1) / x)`` in the natural parameter, Taylor-expanded near 0."""
        out_unst_reg = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut_nat_params = _lg.where(out_unst_reg, x, (self._lims[0] - 0.5) * _lg.ones_like(x))
        log_norm = _lg.log(_lg.abs(_lg.special.expm1(cut_nat_params))) - _lg.log(
            _lg.abs(cut_nat_params)
        )
        taylor = 0.5 * x + _lg.pow(x, 2) / 24.0 - _lg.pow(x, 4) / 2880.0
        return _lg.where(out_unst_reg, log_norm, taylor)
