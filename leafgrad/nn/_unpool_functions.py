"""``max_unpool1d/2d/3d``: the partial inverse of max pooling, composed from ``scatter``."""

from __future__ import annotations

import math

import leafgrad as _lg

from .. import Tensor

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _tuple(value, nd: int) -> tuple[int, ...]:
    return (value,) * nd if isinstance(value, int) else tuple(value)


def _unpool_size(input, kernel, stride, padding, output_size) -> list[int]:
    """PyTorch's ``_unpool_output_size``: the pooled input's size unless ``output_size``
    (within one stride of it) says otherwise."""
    nd = len(kernel)
    default = [
        (input.shape[-nd + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(nd)
    ]
    if output_size is None:
        return default
    sizes = list(output_size)
    if len(sizes) == nd + 2:
        sizes = sizes[2:]
    if len(sizes) != nd:
        raise ValueError(
            f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has "
            f"a length of '{len(sizes)}'"
        )
    for d in range(nd):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < sizes[d] < high:
            raise ValueError(
                f'invalid output_size "{sizes}" (dim {d} must be between {low} and {high})'
            )
    return [int(s) for s in sizes]


def _max_unpool(name, nd, input, indices, kernel_size, stride, padding, output_size) -> Tensor:
    kernel = _tuple(kernel_size, nd)
    stride = kernel if stride is None else _tuple(stride, nd)
    padding = _tuple(padding, nd)
    if input.dim() not in (nd + 1, nd + 2) or tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"{name}: expected a {nd + 1}D or {nd + 2}D input and indices of the same shape, "
            f"got input {list(input.shape)} and indices {list(indices.shape)}"
        )
    if indices.dtype != _lg.int64:
        raise RuntimeError(f"{name}: expected indices of dtype int64, got {indices.dtype}")
    sizes = _unpool_size(input, kernel, stride, padding, output_size)
    lead = tuple(input.shape[:-nd])
    flat_in = input.reshape(*lead, -1)
    flat_idx = indices.reshape(*lead, -1)
    total = math.prod(sizes)
    if flat_idx.numel() and (int(flat_idx.min()) < 0 or int(flat_idx.max()) >= total):
        raise RuntimeError(
            f"{name}: found an index outside the output's {total} positions per channel "
            f"(output size {sizes}); indices must come from the matching max pool"
        )
    out = _lg.zeros(*lead, total, dtype=input.dtype).scatter(-1, flat_idx, flat_in)
    return out.reshape(*lead, *sizes)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place ``(N, C, L)`` values at ``max_pool1d``'s ``indices``; zeros elsewhere."""
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding,
                       output_size)  # fmt: skip


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place ``(N, C, H, W)`` values at ``max_pool2d``'s ``indices``; zeros elsewhere."""
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding,
                       output_size)  # fmt: skip


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place ``(N, C, D, H, W)`` values at ``max_pool3d``'s ``indices``; zeros elsewhere."""
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding,
                       output_size)  # fmt: skip
