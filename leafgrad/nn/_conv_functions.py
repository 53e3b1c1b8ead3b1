"""Convolutions of ``nn.functional`` (``conv1d``, ``conv2d``, ``conv3d``), composed from
leafgrad ops so they differentiate to any order.

Each is an im2col: the kernel's ``K`` offsets become ``K`` strided slices of the padded input,
stacked into columns ``(N * L, C * K)`` (``L`` output positions) and multiplied by the weight
as one ``(C * K, O)`` matrix, so the work lands in a single BLAS matrix product.
"""

from __future__ import annotations

import itertools
import math

import leafgrad as _lg

from .. import Tensor
from ._activation_functions import _recorded
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
    if not weight.requires_grad:
        # PyTorch's convolution backward depends on the input, so its input gradient is
        # differentiable (with zero derivative) even when the weight is constant.
        input = _recorded(input)
    if any(left or right for left, right in pairs):
        input = _pad(input, [amount for pair in reversed(pairs) for amount in pair])
    spatial = tuple(input.shape[2:])
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(size < r for size, r in zip(spatial, reach)):
        raise RuntimeError(
            f"{name}: calculated padded input size per channel: {spatial}; dilated kernel size: "
            f"{tuple(reach)}. The kernel can't be greater than the padded input"
        )
    out_shape = [(size - r) // s + 1 for size, r, s in zip(spatial, reach, stride)]
    batch, channels, out_channels = input.shape[0], input.shape[1], weight.shape[0]
    positions, taps = batch * math.prod(out_shape), math.prod(kernel)
    # One strided slice of the input per kernel offset: each is (N, C, *out).
    pieces = []
    for offset in itertools.product(*(range(k) for k in kernel)):
        window = tuple(
            slice(o * d, o * d + s * (n - 1) + 1, s)
            for o, d, s, n in zip(offset, dilation, stride, out_shape)
        )
        pieces.append(input[(slice(None), slice(None), *window)])
    cols = _lg.stack(pieces, -1)  # (N, C, *out, K)
    cols = cols.permute(0, *range(2, nd + 2), 1, nd + 2).reshape(positions, channels * taps)
    if groups == 1:
        flat_weight = weight.reshape(out_channels, channels * taps).t()
        out = cols.matmul(flat_weight) if bias is None else _lg.addmm(bias, cols, flat_weight)
    else:
        per_group = (channels // groups) * taps
        cols = cols.reshape(positions, groups, per_group)
        grouped_weight = weight.reshape(groups, out_channels // groups, per_group)
        out = _lg.einsum("lgk,gok->lgo", cols, grouped_weight).reshape(positions, out_channels)
        if bias is not None:
            out = out + bias
    # (N, *out, O) -> (N, O, *out), contiguous as PyTorch's output is (so .view works).
    out = out.reshape(batch, *out_shape, out_channels).permute(0, nd + 1, *range(1, nd + 1))
    out = out.contiguous()
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
