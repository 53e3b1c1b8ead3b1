"""Module forms of ``fold``/``unfold``, local response normalisation (and the legacy
``CrossMapLRN2d``) and ``channel_shuffle``."""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from .. import Tensor
from . import _fold_functions, _misc_functions
from .module import Module

__all__ = ["ChannelShuffle", "CrossMapLRN2d", "Fold", "LocalResponseNorm", "Unfold"]


class Fold(Module):
    """``functional.fold``: columns ``(N, C * prod(kernel_size), L)`` summed into
    ``(N, C, *output_size)``."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return _fold_functions.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """``functional.unfold``: sliding blocks of ``(N, C, H, W)`` as columns."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return _fold_functions.unfold(
            input, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class LocalResponseNorm(Module):
    """``functional.local_response_norm`` across ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return _misc_functions.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _cross_map_windows(channels: int, size: int) -> np.ndarray:
    """``(C, C)`` 0/1 matrix: which squared channels each channel's scale sums, following
    the legacy running-sum recurrence (its window is not centred, and that is kept)."""
    pre_pad = int((size - 1) / 2 + 1)
    windows = np.zeros((channels, channels))
    windows[0, : min(pre_pad, channels)] = 1
    for c in range(1, channels):
        windows[c] = windows[c - 1]
        if c < channels - pre_pad + 1:
            windows[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            windows[c, c - pre_pad] -= 1
    return windows


class CrossMapLRN2d(Module):
    """The legacy (Lua Torch) cross-channel LRN of 4-D input:
    ``x * (k + alpha / size * window sum of x^2)^-beta``."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        windows = _lg.tensor(_cross_map_windows(input.shape[1], self.size), dtype=input.dtype)
        sums = _lg.einsum("cj,njhw->nchw", windows, input * input)
        return input * (sums * (self.alpha / self.size) + self.k) ** -self.beta

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class ChannelShuffle(Module):
    """``functional.channel_shuffle``: interleave ``groups`` groups of channels."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return _misc_functions.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
