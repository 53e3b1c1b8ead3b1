"""``Wishart(df, covariance_matrix=, precision_matrix=, scale_tril=)``: the distribution of
``sum_k x_k x_k^T`` over ``df`` draws ``x_k ~ N(0, Sigma)`` (real ``df > p - 1`` for ``p x p``
matrices), kept as the Cholesky factor ``L`` of ``Sigma``; reparameterized draws by the
Bartlett decomposition ``(L A)(L A)^T`` with ``A`` lower triangular, chi draws on its
diagonal and standard normal ones below."""

from __future__ import annotations

import math
import warnings

import leafgrad as _lg

from .. import Size, Tensor
from . import constraints
from .chi2 import Chi2
from .distribution import _NO_SHAPE
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import _standard_normal, lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma ``sum_{i < p} digamma(x - i / 2)``, the derivative of
    ``mvlgamma(x, p)``; AssertionError unless every ``x > (p - 1) / 2``."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = _lg.arange(p, dtype=x.dtype).div(2).expand(tuple(x.shape) + (-1,))
    return _lg.digamma(x.unsqueeze(-1) - halves).sum(-1)


def _clamp_above_eps(x: Tensor) -> Tensor:
    """``x`` (nonnegative) lifted to at least its dtype's machine epsilon."""
    return x.clamp(min=_lg.finfo(x.dtype).eps)


def _bartlett_chi2(df: Tensor, scale_tril: Tensor, batch_shape: Size) -> Chi2:
    """The squares of the Bartlett factor's diagonal entries: ``Chi2(df - i)``, ``i < p``."""
    steps = _lg.arange(scale_tril.shape[-1], dtype=scale_tril.dtype)
    return Chi2(df=df.unsqueeze(-1) - steps.expand(batch_shape + (-1,)))


class Wishart(ExponentialFamily):
    """Exactly one of ``covariance_matrix``, ``precision_matrix`` and ``scale_tril``
    (AssertionError else, as PyTorch); ``df`` broadcasts with their batch dims."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict:
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ) -> None:
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = next(m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None)
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, (bool, int, float)):
            batch_shape = Size(param.shape[:-2])
            self.df = _lg.tensor(df, dtype=param.dtype)
        else:
            batch_shape = Size(_lg.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if self.df.le(p - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if self.df.lt(p).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _lg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = _bartlett_chi2(self.df, self._unbroadcasted_scale_tril, batch_shape)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        new._dist_chi2 = _bartlett_chi2(new.df, new._unbroadcasted_scale_tril, batch_shape)
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        identity = _lg.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        inverse = _lg.cholesky_solve(identity, self._unbroadcasted_scale_tril)
        return inverse.expand(self._matrix_shape())

    def _df_matrix(self) -> Tensor:
        """``df`` shaped to scale the batch of matrices."""
        return self.df.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        # (df - p - 1) Sigma where df > p + 1; PyTorch leaves NaN (no warning) elsewhere
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + _lg.einsum("...i,...j->...ij", diag_V, diag_V))

    def _bartlett_sampling(self, sample_shape=_NO_SHAPE) -> Tensor:
        p = self._event_shape[-1]
        chi = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt())
        rows, cols = _lg.tril_indices(p, p, offset=-1)
        below = _lg.zeros(tuple(chi.shape) + (p,), dtype=chi.dtype)
        below[..., rows, cols] = _standard_normal(
            Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,), dtype=chi.dtype
        )
        chol = self._unbroadcasted_scale_tril @ (_lg.diag_embed(chi) + below)
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=_NO_SHAPE, max_try_correction=None):
        """Draws by the Bartlett decomposition, redrawn up to ``max_try_correction`` times
        (default 10) where the check below flags them.

        As PyTorch 2.13's, the first check flags the draws that ARE positive definite (any
        batch member) and warns "Singular sample detected." for them, so a call with valid
        draws warns and redraws them once; later checks flag the draws that are not positive
        definite. Singular draws can remain (their ``log_prob`` is ``-inf``) when ``df`` is
        close to ``p - 1``. The draws are differentiable in ``df`` (through the chi-squared
        draws' implicit gradients, first order) and in the scale matrix.
        """
        if max_try_correction is None:
            max_try_correction = 10  # PyTorch's default outside a JIT trace (never here)
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # PyTorch's flag, kept as is: True where the draw passes the support check
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(is_singular[is_singular].shape)
                # a copy as the key: the mask changes in place below, and the backward of
                # this assignment must see the one it was made with (PyTorch 2.13 keeps the
                # mask itself and so fails, modified in place, on backward through draws of
                # a nonempty sample_shape; leafgrad carries the gradient instead)
                sample[is_singular.clone()] = sample_new
                is_singular_new = ~self.support.check(sample_new)
                if self._batch_shape:
                    is_singular_new = is_singular_new.amax(self._batch_dims)
                is_singular[is_singular.clone()] = is_singular_new
                if not is_singular.any():
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace_term = _lg.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (
            -nu * (p * _LOG_2 / 2 + half_log_det)
            - _lg.mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * _lg.linalg.slogdet(value).logabsdet
            - trace_term / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) * (p * _LOG_2 / 2 + half_log_det)
            + _lg.mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self) -> tuple:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        half_df = y + (p + 1) / 2
        return half_df * (-_lg.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + _lg.mvlgamma(
            half_df, p=p
        )
