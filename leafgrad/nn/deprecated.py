"""Deprecated names PyTorch still exports: ``nn.Container`` and ``nn.NLLLoss2d``."""

from __future__ import annotations

import warnings

from .loss import NLLLoss
from .module import Module

__all__ = ["Container", "NLLLoss2d"]


class Container(Module):
    """A Module holding the keyword arguments as child modules (deprecated: use Module)."""

    def __init__(self, **kwargs) -> None:
        super().__init__()
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        for key, value in kwargs.items():
            self.add_module(key, value)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its old name for images (deprecated: use NLLLoss)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:  # fmt: skip
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
