"""Transposed convolutions of ``nn.functional`` (``conv_transpose1d/2d/3d``): their checks,
then one op (``_conv_transpose_op``), as PyTorch's ``convolution`` with ``transposed=True``."""

from __future__ import annotations

from .. import Tensor
from ._conv_functions import _ntuple
from ._conv_transpose_op import output_size, transposed_convolution

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _conv_transpose(name, nd, input, weight, bias, stride, padding, output_padding, groups,
                    dilation) -> Tensor:  # fmt: skip
    """Input ``(N, C_in, *spatial)`` (or unbatched), weight ``(C_in, C_out / groups, *k)``."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{name}(): 'input' and 'weight' must be Tensors")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {list(input.shape)}"
        )
    if weight.dim() != nd + 2:
        raise RuntimeError(
            f"{name}: expected a {nd + 2}-D weight (in_channels, out_channels / groups, "
            f"*kernel), got size {list(weight.shape)}"
        )
    if groups <= 0 or weight.shape[0] % groups:
        raise RuntimeError(
            f"{name}: groups={groups} must be positive and divide the weight's first dimension "
            f"(in_channels) of size {list(weight.shape)}"
        )
    channels = input.shape[-nd - 1]
    if channels != weight.shape[0]:
        raise RuntimeError(
            f"{name}: given weight of size {list(weight.shape)}, expected input "
            f"{list(input.shape)} to have {weight.shape[0]} channels, but got {channels}"
        )
    stride = _ntuple(stride, nd, "stride")
    pads = _ntuple(padding, nd, "padding")
    extra = _ntuple(output_padding, nd, "output_padding")
    dilation = _ntuple(dilation, nd, "dilation")
    if any(s <= 0 for s in stride) or any(d <= 0 for d in dilation) or any(p < 0 for p in pads):
        raise RuntimeError(
            f"{name}: stride and dilation must be positive and padding non-negative, got "
            f"stride={stride}, dilation={dilation}, padding={pads}"
        )
    if any(op >= s and op >= d for op, s, d in zip(extra, stride, dilation)):
        raise RuntimeError(
            f"{name}: output padding must be smaller than either stride or dilation, but got "
            f"output_padding={extra}, stride={stride}, dilation={dilation}"
        )
    kernel = tuple(weight.shape[2:])
    spatial = tuple(input.shape[-nd:])
    size = output_size(spatial, kernel, stride, pads, dilation, extra)
    if any(s <= 0 for s in size):
        raise RuntimeError(
            f"{name}: given input size per channel {list(spatial)}, the calculated output size "
            f"per channel is {list(size)}, which is too small: lower the padding or raise the "
            "stride, dilation or output_padding"
        )
    batched = input if input.dim() == nd + 2 else input.unsqueeze(0)
    out = transposed_convolution(batched, weight, bias, stride, pads, extra, dilation, groups)
    return out if input.dim() == nd + 2 else out.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:  # fmt: skip
    """1-D transposed convolution: input ``(N, C_in, L)``, weight ``(C_in, C_out / groups, k)``;
    output length ``(L - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1``."""
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)  # fmt: skip


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:  # fmt: skip
    """2-D transposed convolution: input ``(N, C_in, H, W)``, weight
    ``(C_in, C_out / groups, kh, kw)``."""
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)  # fmt: skip


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Tensor:  # fmt: skip
    """3-D transposed convolution: input ``(N, C_in, D, H, W)``, weight
    ``(C_in, C_out / groups, kd, kh, kw)``."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)  # fmt: skip
