"""Conv1d, Conv2d and Conv3d: learnt cross-correlations over 1, 2 or 3 spatial dims."""

from __future__ import annotations

import math
from collections.abc import Callable

from .. import Tensor, empty
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d"]

_PADDING_STRINGS = {"same", "valid"}
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value, n: int) -> tuple[int, ...]:
    return (value,) * n if isinstance(value, int) else tuple(value)


class _ConvNd(Module):
    """The shared body: ``weight`` ``(out, in / groups, *kernel_size)`` starts as
    ``kaiming_uniform_(a=sqrt(5))`` and ``bias`` as U(-1/sqrt(fan_in), 1/sqrt(fan_in)), like
    PyTorch's. A ``padding_mode`` other than ``zeros`` pads with ``F.pad`` first."""

    _dims: int  # spatial dims, and the functional convolution, set by each subclass
    _conv: Callable[..., Tensor]
    _transposed = False  # a transposed conv keeps its weight as (in, out / groups, *kernel)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        n = self._dims
        kernel_size, stride, dilation = (_ntuple(v, n) for v in (kernel_size, stride, dilation))
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = self._transposed
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._padding_for_pad()
        shape = (out_channels, in_channels // groups, *kernel_size)
        if self._transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _padding_for_pad(self) -> list[int]:
        """The padding in ``F.pad``'s order: last dim first, ``(left, right)`` each."""
        if self.padding == "valid":
            return [0, 0] * self._dims
        if self.padding == "same":
            amounts = []
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                amounts += [total // 2, total - total // 2]
            return amounts
        return [p for p in reversed(self.padding) for _ in range(2)]

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return self._conv(
            input, weight, bias, self.stride, self.padding, self.dilation, self.groups
        )

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        text = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    """1-D convolution: input ``(N, C_in, L)`` or ``(C_in, L)``, output ``(N, C_out, L_out)``."""

    _dims = 1
    _conv = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """2-D convolution: input ``(N, C_in, H, W)`` or ``(C_in, H, W)``."""

    _dims = 2
    _conv = staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    """3-D convolution: input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``."""

    _dims = 3
    _conv = staticmethod(F.conv3d)
