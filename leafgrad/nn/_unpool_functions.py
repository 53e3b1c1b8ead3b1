"""``max_unpool1d/2d/3d``: the partial inverse of max pooling, as PyTorch's functions: the
2-D and 3-D ops of their own (``_unpool_ops``: MaxUnpool2DBackward0, MaxUnpool3DBackward0),
1-D the 2-D op on a trailing dim of one (unsqueezed and squeezed back)."""

from __future__ import annotations

import leafgrad as _lg

from .. import Tensor
from .._dtype import scalar_type_name
from ._unpool_ops import max_unpool

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
    if not input.is_floating_point():
        op = "max_unpool3d" if nd == 3 else "max_unpool2d"
        raise NotImplementedError(
            f"\"{op}\" not implemented for '{scalar_type_name(input._data.dtype)}'"
        )
    sizes = _unpool_size(input, kernel, stride, padding, output_size)
    if nd == 1:  # PyTorch's max_unpool1d: max_unpool2d over a trailing dim of one
        out = max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), (*sizes, 1))
        return out.squeeze(-1)
    return max_unpool(input, indices, sizes)


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
