"""ConvTranspose1d, ConvTranspose2d and ConvTranspose3d: learnt transposed convolutions."""

from __future__ import annotations

from .. import Tensor
from . import _conv_transpose_functions as F
from .conv import _ConvNd, _ntuple

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvTransposeNd(_ConvNd):
    """The shared body: weight ``(in, out / groups, *kernel_size)``, initialised as PyTorch's;
    ``forward(input, output_size=None)`` picks the ``output_padding`` reaching ``output_size``."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:  # fmt: skip
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} does not take string padding {padding!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)  # fmt: skip
        self.output_padding = _ntuple(output_padding, self._dims)

    def _output_padding(self, input: Tensor, output_size) -> tuple[int, ...]:
        """The ``output_padding`` making the output's spatial size ``output_size``."""
        if output_size is None:
            return self.output_padding
        n = self._dims
        sizes = list(output_size)[-n:]
        if len(sizes) != n:
            raise ValueError(
                f"{type(self).__name__}: output_size must have {n} or {n + 2} elements, got "
                f"{len(list(output_size))}"
            )
        extra = []
        for j, want in enumerate(sizes):
            k, s, p, d = self.kernel_size[j], self.stride[j], self.padding[j], self.dilation[j]
            smallest = (input.shape[input.dim() - n + j] - 1) * s - 2 * p + d * (k - 1) + 1
            if not smallest <= want < smallest + s:
                raise ValueError(
                    f"requested an output size of {sizes}, but valid sizes along dim {j} range "
                    f"from {smallest} to {smallest + s - 1} (for an input of "
                    f"{list(input.shape[-n:])})"
                )
            extra.append(want - smallest)
        return tuple(extra)

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        extra = self._output_padding(input, output_size)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding, extra,
                          self.groups, self.dilation)  # fmt: skip


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution: ``(N, C_in, L)`` -> ``(N, C_out, L_out)``."""

    _dims = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution: ``(N, C_in, H, W)`` -> ``(N, C_out, H_out, W_out)``."""

    _dims = 2
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over ``(N, C_in, D, H, W)``."""

    _dims = 3
    _conv = staticmethod(F.conv_transpose3d)
