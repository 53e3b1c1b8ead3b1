"""``MultivariateNormal(loc, covariance_matrix=, precision_matrix=, scale_tril=)``: the
Gaussian over the last dim, kept as its Cholesky factor ``L`` (covariance ``L L^T``) and
reparameterized as ``loc + L eps``."""

from __future__ import annotations

import math
from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from .distribution import _NO_SHAPE, Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """``bmat @ bvec`` over broadcast batch dims: ``(..., n, n), (..., n) -> (..., n)``."""
    return _lg.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``|L^-1 x|^2`` for ``bL: (..., n, n)`` lower triangular, ``bx: (..., n)``; ``bx``'s batch
    shape must end in a shape ``bL``'s batch broadcasts to."""
    # PyTorch reshapes x so that each L is solved once for many right-hand sides; solving
    # against L broadcast to x's batch is the same maths, in fewer lines.
    n = bx.size(-1)
    batch = _lg.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    L = bL.expand(tuple(batch) + (n, n))
    x = bx.expand(tuple(batch) + (n,)).unsqueeze(-1)
    # PyTorch's solve_triangular solves in L's dtype (a float64 value against a float32
    # scale_tril gives float32); leafgrad's refuses mixed dtypes, so cast as it does
    x = x.to(L.dtype)
    return _lg.linalg.solve_triangular(L, x, upper=False).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P^-1``, through the flipped Cholesky factor of ``P``
    (no explicit inverse)."""
    Lf = _lg.linalg.cholesky(_lg.flip(P, (-2, -1)))
    L_inv = _lg.transpose(_lg.flip(Lf, (-2, -1)), -2, -1)
    Id = _lg.eye(P.shape[-1], dtype=P.dtype)
    return _lg.linalg.solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """Exactly one of ``covariance_matrix``, ``precision_matrix`` and ``scale_tril``
    (ValueError else); their batch dims broadcast with ``loc``'s."""

    arg_constraints: ClassVar[dict] = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        name, matrix = next(
            (n, m)
            for n, m in (
                ("scale_tril", scale_tril),
                ("covariance_matrix", covariance_matrix),
                ("precision_matrix", precision_matrix),
            )
            if m is not None
        )
        if matrix.dim() < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        batch_shape = Size(_lg.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _lg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return _lg.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return _lg.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        variance = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return variance.expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=_NO_SHAPE):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
