"""Transforms onto the simplex and onto (correlation) Cholesky factors and positive definite
matrices: ``SoftmaxTransform``, ``StickBreakingTransform``, ``LowerCholeskyTransform``,
``PositiveDefiniteTransform``, ``CorrCholeskyTransform``. Re-exported by ``transforms``."""

from __future__ import annotations

import math

import leafgrad as _lg
import leafgrad.nn.functional as F

from . import constraints
from .transform import Transform
from .utils import tril_matrix_to_vec, vec_to_tril_matrix

__all__ = [
    "CorrCholeskyTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "SoftmaxTransform",
    "StickBreakingTransform",
]


def _clipped_sigmoid(x):
    finfo = _lg.finfo(x.dtype)
    return _lg.clamp(_lg.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


def _at_least_one_dim(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim: not bijective (adding a constant to ``x`` leaves
    ``y`` alone); ``inv`` gives ``log y``, one preimage. No Jacobian determinant."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _at_least_one_dim(shape)
        return shape

    def inverse_shape(self, shape):
        _at_least_one_dim(shape)
        return shape


class StickBreakingTransform(Transform):
    """``R^(K-1)`` onto the ``K``-simplex by stick breaking: ``z_k = sigmoid(x_k - log(K - k))``
    takes that share of what is left; the offset maps ``x = 0`` to the uniform vector."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset(x, size: int):
        """``log(size - k)`` for ``k = 0 .. size - 1``."""
        return (size - x.new_ones(size).cumsum(-1) + 1).log()

    def _call(self, x):
        z = _clipped_sigmoid(x - self._offset(x, x.shape[-1]))
        z_cumprod = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = (y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)).log()
        sf = _lg.clamp(1 - y_crop.cumsum(-1), min=_lg.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset

    def log_abs_det_jacobian(self, x, y):
        x = x - self._offset(x, x.shape[-1])
        # |det J| = prod_k z_k (1 - z_k) (what is left before step k) = prod_k y_k (1 - z_k)
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _at_least_one_dim(shape)
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _at_least_one_dim(shape)
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Any square matrix onto a lower Cholesky factor: the strict lower triangle kept, the
    diagonal exponentiated, the upper triangle dropped (so not bijective)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Any square matrix onto a positive definite one, ``L L^T`` for ``L`` its
    LowerCholeskyTransform; ``inv`` goes back through the Cholesky factor."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(_lg.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """``R^(D(D-1)/2)`` onto Cholesky factors of ``D x D`` correlation matrices: ``tanh`` makes
    partial correlations in (-1, 1), which fill the strict lower triangle row by row, each
    row scaled by stick breaking so that it has unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = _lg.tanh(x)
        eps = _lg.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # what is left of each row's unit norm before each column: sqrt(prod (1 - r^2))
        z1m_cumprod_sqrt = (1 - r**2).sqrt().cumprod(-1)
        r = r + _lg.eye(r.shape[-1], dtype=r.dtype)
        return r * F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - _lg.cumsum(y * y, dim=-1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # stick breaking: 1/2 sum of log(1 - cumulative squared row entries) below the
        # first subdiagonal; tanh: log(1 - tanh(x)^2) in a form finite for large |x|
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        _at_least_one_dim(shape)
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return tuple(shape[:-2]) + (D * (D - 1) // 2,)
