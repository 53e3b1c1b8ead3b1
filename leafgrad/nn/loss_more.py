"""More loss modules (KL divergence, Gaussian/Poisson NLL, margin and embedding losses)."""

from __future__ import annotations

from .. import Tensor
from . import _loss_functions_more as F
from .loss import _Loss, _WeightedLoss

__all__ = [
    "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "KLDivLoss",
    "MarginRankingLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss",
]  # fmt: skip


class KLDivLoss(_Loss):
    """KL divergence of ``target`` from ``exp(input)``; prefer ``reduction='batchmean'``."""

    def __init__(
        self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of ``target`` under N(``input``, ``var``)."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of ``target`` under Poisson(``exp(input)``) (or ``input``)."""

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average=None,
        eps: float = 1e-8,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
            reduction=self.reduction,
        )  # fmt: skip


class _MarginLoss(_Loss):
    default_margin = 0.0

    def __init__(
        self, margin: float | None = None, size_average=None, reduce=None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = self.default_margin if margin is None else margin


class MarginRankingLoss(_MarginLoss):
    """``max(0, -y (x1 - x2) + margin)``."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class HingeEmbeddingLoss(_MarginLoss):
    """``x`` where ``y == 1``, ``max(0, margin - x)`` where ``y == -1``."""

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """``1 - cos(x1, x2)`` where ``y == 1``, ``max(0, cos(x1, x2) - margin)`` where -1."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-y x))``."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss averaged over the classes."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self.weight, reduction=self.reduction
        )


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss ``sum_{j != y} max(0, margin - x_y + x_j)^p / C``."""

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(
                f"MultiMarginLoss: weight must be one-dimensional, got shape {list(weight.shape)}"
            )
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input, target, p=self.p, margin=self.margin, weight=self.weight,
            reduction=self.reduction,
        )  # fmt: skip


class TripletMarginLoss(_Loss):
    """``max(0, margin + d(a, pos) - d(a, neg))`` with the ``p``-norm distance."""

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average=None,
        reduce=None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead"
            )
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
            swap=self.swap, reduction=self.reduction,
        )  # fmt: skip
