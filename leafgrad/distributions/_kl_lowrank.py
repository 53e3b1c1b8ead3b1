"""KL pairs of LowRankMultivariateNormal with itself and MultivariateNormal, as PyTorch
registers them: ``(log det Sq - log det Sp + tr(Sq^-1 Sp) + |x|^2_Sq - n) / 2`` with each
term through Cholesky or capacitance factors. Importing this module registers them."""

from __future__ import annotations

import leafgrad as _lg

from .kl import register_kl
from .lowrank_multivariate_normal import (
    LowRankMultivariateNormal,
    _batch_lowrank_logdet,
    _batch_lowrank_mahalanobis,
)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis

__all__: list = []


def _batch_trace_XXT(bmat):
    """``tr(X X^T)``, the sum of squares over the last two dims."""
    return bmat.pow(2).sum((-2, -1))


def _check_event_shapes(p, q) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event "
            f"shapes cannot be computed: {p.event_shape} vs {q.event_shape}"
        )


def _lowrank_terms(q, p_loc):
    """``log det Sq``, the Mahalanobis term and ``A = L^-1 W^T D^-1`` of a low-rank ``q``
    (Woodbury: ``Sq^-1 = D^-1 - A^T A``)."""
    W, D = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    log_det = _batch_lowrank_logdet(W, D, q._capacitance_tril)
    mahalanobis = _batch_lowrank_mahalanobis(W, D, q.loc - p_loc, q._capacitance_tril)
    A = _lg.linalg.solve_triangular(q._capacitance_tril, W.mT / D.unsqueeze(-2), upper=False)
    return log_det, mahalanobis, A


def _solve_lower(L, B):
    """``L^-1 B`` with the batch dims of both broadcast."""
    batch = tuple(_lg.broadcast_shapes(tuple(L.shape[:-2]), tuple(B.shape[:-2])))
    L = L.expand(batch + tuple(L.shape[-2:]))
    B = B.expand(batch + tuple(B.shape[-2:]))
    return _lg.linalg.solve_triangular(L, B, upper=False)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q)
    q_log_det, term3, A = _lowrank_terms(q, p.loc)
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = q_log_det - _batch_lowrank_logdet(pW, pD, p._capacitance_tril)
    # tr(Sq^-1 Sp) with Sp = pW pW^T + pD
    qD = q._unbroadcasted_cov_diag
    term21 = (pD / qD).sum(-1)
    term22 = _batch_trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * pD.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A.matmul(pW))
    term2 = term21 + term22 - term23 - term24
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q)
    q_log_det, term3, A = _lowrank_terms(q, p.loc)
    pL = p._unbroadcasted_scale_tril
    term1 = q_log_det - 2 * pL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    qD = q._unbroadcasted_cov_diag
    term21 = _batch_trace_XXT(pL * qD.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A.matmul(pL))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _check_event_shapes(p, q)
    qL = q._unbroadcasted_scale_tril
    pW, pD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    term1 = 2 * qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _batch_lowrank_logdet(
        pW, pD, p._capacitance_tril
    )
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    term21 = _batch_trace_XXT(_solve_lower(qL, pW))
    term22 = _batch_trace_XXT(_solve_lower(qL, _lg.diag_embed(pD.sqrt())))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])
