"""Dropout: random zeroing while training, the identity in eval()."""

from __future__ import annotations

from .. import Tensor
from . import functional as F
from .module import Module

__all__ = ["Dropout"]


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
