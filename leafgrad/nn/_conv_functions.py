"""Convolutions of ``nn.functional`` (``conv1d``, ``conv2d``, ``conv3d``), composed from
leafgrad ops so they differentiate to any order.

Each is an im2col: the kernel's ``K`` offsets become ``K`` strided slices of the padded input,
stacked into columns ``(N * L, C * K)`` (``L`` output positions) and multiplied by the weight
as one ``(C * K, O)`` matrix, so the work lands in a single BLAS matrix product.
"""

from __future__ import annotations

from .. import Tensor
from . import _convolution_op
from ._activation_functions import _check_kernel_dtype
from ._layer_functions import pad as _pad

__all__ = ["conv1d", "conv2d", "conv3d"]


def _ntuple(value, n: int, name: str) -> tuple[int, ...]:
    """``value`` as an ``n``-tuple of ints: one int repeated, or a sequence of ``n``."""
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise RuntimeError(f"expected {name} to be a single int or a sequence of {n} ints")
    return values


def _same_padding(kernel: tuple[int, ...], dilation: tuple[int, ...]) -> list[tuple[int, int]]:
    """``(left, right)`` per spatial dim keeping the size at stride 1; an odd total puts the
    extra element on the right, as PyTorch does."""
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [(total // 2, total - total // 2) for total in totals]


def _check_shapes(name: str, nd: int, input: Tensor, weight: Tensor, bias, groups: int) -> None:
    if weight.dim() != nd + 2:
        raise RuntimeError(
            f"{name}: expected a {nd + 2}-D weight (out_channels, in_channels / groups, "
            f"*kernel), got size {list(weight.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(f"{name}: non-positive groups is not supported, got {groups}")
    out_channels, channels = weight.shape[0], weight.shape[1] * groups
    if input.shape[1] != channels:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {channels} channels, but got "
            f"{input.shape[1]} channels instead"
        )
    if out_channels % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size {list(weight.shape)} instead"
        )
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional "
            f"with {out_channels} elements, but got bias of size {list(bias.shape)} instead"
        )
    if input.dtype != weight.dtype or (bias is not None and bias.dtype != weight.dtype):
        raise RuntimeError(
            f"{name}: input ({input.dtype}), weight ({weight.dtype}) and bias should have the "
            "same dtype"
        )


def _padding_pairs(name, padding, nd, kernel, stride, dilation) -> list[tuple[int, int]]:
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * nd
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        return _same_padding(kernel, dilation)
    amounts = _ntuple(padding, nd, "padding")
    if any(p < 0 for p in amounts):
        raise RuntimeError("negative padding is not supported")
    return [(p, p) for p in amounts]


def _conv(name, nd, input, weight, bias, stride, padding, dilation, groups) -> Tensor:
    """Cross-correlation of ``(N, C, *spatial)`` (or unbatched ``(C, *spatial)``) input with
    ``weight`` ``(O, C / groups, *kernel)``: ``(N, O, *out)``."""
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
            f"input of size: {list(input.shape)}"
        )
    _check_kernel_dtype(name, input, refused="b")  # PyTorch's slow_conv2d: no bool loop
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    _check_shapes(name, nd, input, weight, bias, groups)
    kernel = tuple(weight.shape[2:])
    stride = _ntuple(stride, nd, "stride")
    dilation = _ntuple(dilation, nd, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    pairs = _padding_pairs(name, padding, nd, kernel, stride, dilation)
    if any(left != right for left, right in pairs):
        # 'same' with an odd total: PyTorch pads the extra element on the right first.
        extra = [(0, right - left) for left, right in pairs]
        input = _pad(input, [amount for pair in reversed(extra) for amount in pair])
    symmetric = tuple(left for left, _ in pairs)
    spatial = tuple(s + 2 * p for s, p in zip(input.shape[2:], symmetric))
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(size < r for size, r in zip(spatial, reach)):
        raise RuntimeError(
            f"{name}: calculated padded input size per channel: {spatial}; dilated kernel size: "
            f"{tuple(reach)}. The kernel can't be greater than the padded input"
        )
    out = _convolution_op.convolution(input, weight, bias, stride, symmetric, dilation, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """1-D cross-correlation: input ``(N, C, L)`` or ``(C, L)``, weight ``(O, C / groups, k)``;
    ``padding`` an int, a 1-tuple, ``'valid'`` or ``'same'``."""
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """2-D cross-correlation: input ``(N, C, H, W)`` or ``(C, H, W)``, weight
    ``(O, C / groups, kh, kw)``; ``padding`` an int, a pair, ``'valid'`` or ``'same'``."""
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    """3-D cross-correlation: input ``(N, C, D, H, W)`` or ``(C, D, H, W)``, weight
    ``(O, C / groups, kd, kh, kw)``."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)
