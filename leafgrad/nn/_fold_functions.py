"""``unfold`` (im2col) and ``fold`` (col2im) of ``nn.functional``, composed from leafgrad ops.

Both work on the padded input flattened to ``(N, C, Hp * Wp)``: ``unfold`` picks every
block element with one ``index_select``, ``fold`` sums them back with one ``scatter_add``,
so each is the other's adjoint and both differentiate to any order.
"""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ._activation_functions import _check_kernel_dtype

__all__ = ["fold", "unfold"]


def _pair(value, what: str) -> tuple[int, int]:
    values = (value, value) if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * 2
    if len(values) != 2:
        raise RuntimeError(f"fold/unfold: {what} must be an int or a pair of ints, got {value}")
    return values


def _params(kernel_size, dilation, padding, stride):
    kernel, dil = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    pad, step = _pair(padding, "padding"), _pair(stride, "stride")
    if min(kernel) <= 0 or min(dil) <= 0 or min(step) <= 0 or min(pad) < 0:
        raise RuntimeError(
            f"fold/unfold: kernel_size {kernel}, dilation {dil} and stride {step} must be "
            f"positive and padding {pad} non-negative"
        )
    return kernel, dil, pad, step


def _blocks(size, kernel, dil, pad, step) -> list[int]:
    return [
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, d, p, st in zip(size, kernel, dil, pad, step)
    ]


def _positions(padded, blocks, kernel, dil, step) -> np.ndarray:
    """Flat position in the padded ``(Hp, Wp)`` plane of block element ``(c, k, l)``:
    ``(K * L,)`` ordered kernel offset first, then block."""
    ky, kx = np.meshgrid(
        np.arange(kernel[0]) * dil[0], np.arange(kernel[1]) * dil[1], indexing="ij"
    )
    by, bx = np.meshgrid(
        np.arange(blocks[0]) * step[0], np.arange(blocks[1]) * step[1], indexing="ij"
    )
    rows = ky.reshape(-1, 1) + by.reshape(1, -1)
    cols = kx.reshape(-1, 1) + bx.reshape(1, -1)
    return (rows * padded[1] + cols).reshape(-1)


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding blocks of ``input`` ``(N, C, H, W)`` (or ``(C, H, W)``) as columns
    ``(N, C * kh * kw, L)``, ``L`` the number of block positions."""
    if isinstance(input, Tensor):
        _check_kernel_dtype("im2col", input, refused="iu")  # (bool is taken)
    if input.dim() not in (3, 4) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    kernel, dil, pad, step = _params(kernel_size, dilation, padding, stride)
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    blocks = _blocks((h, w), kernel, dil, pad, step)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, dilation={dil}, "
            f"padding={pad}, calculated shape of the array of sliding blocks as "
            f"({blocks[0]}, {blocks[1]}), but its components must be at least one."
        )
    if any(pad):
        x = _lg.nn.functional.pad(x, (pad[1], pad[1], pad[0], pad[0]))
    padded = (h + 2 * pad[0], w + 2 * pad[1])
    index = _lg.tensor(_positions(padded, blocks, kernel, dil, step), dtype=_lg.int64)
    taps, count = kernel[0] * kernel[1], blocks[0] * blocks[1]
    cols = x.reshape(n, c, padded[0] * padded[1]).index_select(2, index)
    cols = cols.reshape(n, c * taps, count)
    return cols.squeeze(0) if unbatched else cols


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns ``(N, C * kh * kw, L)`` (or ``(C * kh * kw, L)``) back into
    ``(N, C, *output_size)``: the adjoint of ``unfold``, overlaps added."""
    if isinstance(input, Tensor):
        _check_kernel_dtype("col2im", input, refused="iu")  # (bool is taken)
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    size = _pair(output_size, "output_size")
    kernel, dil, pad, step = _params(kernel_size, dilation, padding, stride)
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck, count = x.shape
    taps = kernel[0] * kernel[1]
    if ck % taps:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={ck} and kernel_size={kernel}."
        )
    blocks = _blocks(size, kernel, dil, pad, step)
    if blocks[0] * blocks[1] != count:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dil}, padding={pad}, "
            f"stride={step}, expected size of input's dimension 2 to match the calculated number "
            f"of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={count}."
        )
    c = ck // taps
    padded = (size[0] + 2 * pad[0], size[1] + 2 * pad[1])
    flat = _positions(padded, blocks, kernel, dil, step)
    index = _lg.tensor(np.broadcast_to(flat, (n, c, flat.size)).copy(), dtype=_lg.int64)
    plane = x.new_zeros((n, c, padded[0] * padded[1]))
    out = plane.scatter_add(2, index, x.reshape(n, c, taps * count))
    out = out.reshape(n, c, *padded)[:, :, pad[0] : pad[0] + size[0], pad[1] : pad[1] + size[1]]
    return out.squeeze(0) if unbatched else out
