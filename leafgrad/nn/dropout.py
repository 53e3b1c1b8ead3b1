"""Dropout layers: random zeroing (of elements or whole channels, plain or alpha) while
training, the identity in eval()."""

from __future__ import annotations

from .. import Tensor
from . import _dropout_functions
from . import functional as F
from .module import Module

__all__ = [
    "AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout",
]  # fmt: skip


class Dropout(Module):
    """Zero each element with probability ``p`` in training mode, scaling the rest by
    ``1 / (1 - p)``; the identity after ``eval()``. Seeded by ``leafgrad.manual_seed``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _DropoutNd(Dropout):
    _fn = staticmethod(F.dropout)

    def forward(self, input: Tensor) -> Tensor:
        return self._fn(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` while training."""

    _fn = staticmethod(_dropout_functions.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` while training."""

    _fn = staticmethod(_dropout_functions.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` while training."""

    _fn = staticmethod(_dropout_functions.dropout3d)


class _NotInPlace(_DropoutNd):
    def forward(self, input: Tensor) -> Tensor:
        # PyTorch's alpha dropout layers keep ``inplace`` but never pass it on: a new tensor.
        return self._fn(input, self.p, self.training)


class AlphaDropout(_NotInPlace):
    """Alpha dropout for SELU networks while training; the identity after ``eval()``."""

    _fn = staticmethod(_dropout_functions.alpha_dropout)


class FeatureAlphaDropout(_NotInPlace):
    """Alpha dropout of whole channels while training; the identity after ``eval()``."""

    _fn = staticmethod(_dropout_functions.feature_alpha_dropout)
