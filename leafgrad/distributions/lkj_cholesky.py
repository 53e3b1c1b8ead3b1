"""``LKJCholesky(dim, concentration)``: the LKJ distribution over lower Cholesky factors ``L``
of ``dim x dim`` correlation matrices, with density of ``M = L L^T`` proportional to
``det(M)^(concentration - 1)`` (uniform over correlation matrices at 1). Draws follow
PyTorch's version of the onion method of Lewandowski, Kurowicka and Joe (2009), Section 3.2,
from Beta draws (whose parameters for rows 2 and below differ from the paper's, as PyTorch's
do: see ``__init__``)."""

from __future__ import annotations

import math
from typing import ClassVar

import leafgrad as _lg

from .. import Size
from . import constraints
from .beta import Beta
from .distribution import _NO_SHAPE, Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Cholesky factors of ``dim x dim`` correlation matrices (``dim >= 2``, ValueError else)
    with LKJ ``concentration`` (eta, positive; its shape is the batch shape)."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None) -> None:
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # Row i of the factor (i >= 1) draws its squared off-diagonal norm y_i from
        # Beta(i - 1/2, eta + (dim - 1 - i) / 2); row 0 gets an unused Beta(1/2, eta +
        # (dim - 2) / 2) so all rows are drawn in one call. These are PyTorch 2.13's
        # parameters: the paper's onion method has Beta(i / 2, ...), the same for row 1 only,
        # so for dim >= 3 the rows below the second are drawn with larger norms than LKJ's.
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = _lg.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = _lg.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=_NO_SHAPE):
        # Onion method for the factor itself: row i is sqrt(y_i) times a uniform direction
        # in its first i coordinates, completed by the diagonal entry that makes its norm 1.
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = _standard_normal(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :] = 0.0  # row 0 has no off-diagonal entries (0 / 0 above)
        w = _lg.sqrt(y) * u_hypersphere
        # the diagonal, kept off zero for rows whose off-diagonal norm rounds to 1
        tiny = _lg.finfo(w.dtype).tiny
        diag_elems = _lg.clamp(1 - _lg.sum(w**2, dim=-1), min=tiny).sqrt()
        return w + _lg.diag_embed(diag_elems)

    def log_prob(self, value):
        # det(L L^T)^(eta - 1) = prod_i L_ii^(2 eta - 2), and the Jacobian of L -> L L^T on
        # correlation matrices is prod_i L_ii^(dim - i) (i counted from 1): so the density of
        # L is proportional to prod_{i >= 2} L_ii^(2 eta - 2 + dim - i).
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = _lg.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = _lg.sum(order * diag_elems.log(), dim=-1)
        # The normalizer of Lewandowski et al. (2009, p. 1999), in terms of the multivariate
        # log-gamma function, whose pi term (dim - 1)(dim - 2)/4 log(pi) falls short of the
        # paper's dim (dim - 1)/4 log(pi) by (dim - 1)/2 log(pi).
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = _lg.lgamma(alpha) * dm1
        numerator = _lg.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
