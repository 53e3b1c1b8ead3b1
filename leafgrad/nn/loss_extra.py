"""``MultiLabelMarginLoss``, ``TripletMarginWithDistanceLoss`` and ``CTCLoss``."""

from __future__ import annotations

from collections.abc import Callable

from .. import Tensor
from . import _loss_functions_extra as F
from ._ctc_functions import ctc_loss
from .distance import PairwiseDistance
from .loss import _Loss

__all__ = ["CTCLoss", "MultiLabelMarginLoss", "TripletMarginWithDistanceLoss"]


class MultiLabelMarginLoss(_Loss):
    """``functional.multilabel_margin_loss``: hinge between each target class and each
    other class."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``functional.triplet_margin_with_distance_loss`` with a chosen ``distance_function``
    (default ``PairwiseDistance()``)."""

    def __init__(
        self,
        *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(
                "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                f"{margin} instead"
            )
        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class CTCLoss(_Loss):
    """``functional.ctc_loss``: the negative log-likelihood of the targets summed over every
    alignment with the inputs."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths, target_lengths) -> Tensor:
        return ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
