"""Pooling of ``nn.functional`` (max, average, adaptive and power-average pools over 1-3
spatial dims), differentiable to any order.

Max, average and adaptive pools are ops of their own (``_pooling_ops``), as PyTorch records
them (1-D pools as 2-D ones on an unsqueezed dim; an adaptive average to ones a mean); the
adaptive windows' positions are computed in NumPy.
"""

from __future__ import annotations

import math

import numpy as np

import leafgrad as _lg

from .. import Tensor
from . import _pooling_ops
from ._activation_functions import _check_kernel_dtype

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "lp_pool1d",
    "lp_pool2d", "lp_pool3d", "max_pool1d", "max_pool1d_with_indices", "max_pool2d",
    "max_pool2d_with_indices", "max_pool3d", "max_pool3d_with_indices",
]  # fmt: skip


def _tuple(name: str, value, nd: int, what: str) -> tuple[int, ...]:
    values = (value,) * nd if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * nd
    if len(values) != nd:
        raise RuntimeError(f"{name}: {what} must either be a single int, or a tuple of {nd} ints")
    return values


def _batched(name: str, input: Tensor, nd: int) -> tuple[Tensor, bool]:
    """``input`` as ``(N, C, *spatial)`` and whether it came unbatched ``(C, *spatial)``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, not {type(input).__name__}")
    if input.dim() not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[-nd:]):
        raise RuntimeError(
            f"{name}: expected a {nd + 1}D (unbatched) or {nd + 2}D (batched) input with non-zero "
            f"spatial sizes, but got input of size {list(input.shape)}"
        )
    if input.dim() == nd + 1:
        return input.unsqueeze(0), True
    return input, False


def _flat_positions(index: list[np.ndarray], sizes, offsets) -> np.ndarray:
    """The flat input position ``(*out, K)`` of every window element (``offsets`` are the left
    paddings that ``index`` counts in)."""
    flat = np.zeros((), dtype=np.int64)
    for j, (idx, off) in enumerate(zip(index, offsets)):
        step = math.prod(sizes[j + 1 :])
        shape = [1] * (2 * len(index))
        shape[2 * j], shape[2 * j + 1] = idx.shape
        flat = flat + ((idx - off) * step).reshape(shape)
    nd = len(index)
    flat = flat.transpose(*range(0, 2 * nd, 2), *range(1, 2 * nd, 2))
    return flat.reshape(*flat.shape[:nd], -1)


def _out_size(name, size, k, s, p, d, ceil_mode) -> int:
    """PyTorch's pooling output length (a ceil-mode window must start inside the input)."""
    span = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = span // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    if out < 1:
        raise RuntimeError(
            f"{name}: given input size {size}, kernel {k}, stride {s}, padding {p} and dilation "
            f"{d}, the output size {out} is too small; use a smaller kernel or more padding"
        )
    return out


def _window_params(name, input, nd, kernel_size, stride, padding, dilation, ceil_mode):
    """``(kernel, stride, padding, dilation)`` checked as PyTorch checks them (``stride``
    ``()`` for the kernel's, as PyTorch passes it on)."""
    kernel = _tuple(name, kernel_size, nd, "kernel_size")
    stride = () if stride is None or stride == [] else _tuple(name, stride, nd, "stride")
    pads = _tuple(name, padding, nd, "padding")
    dilation = _tuple(name, dilation, nd, "dilation")
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride):
        raise RuntimeError(f"{name}: kernel_size and stride must be greater than zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"{name}: dilation must be greater than zero")
    if any(p < 0 or p > k // 2 for p, k in zip(pads, kernel)):
        raise RuntimeError(
            f"{name}: padding {pads} should be non-negative and at most half of the kernel size "
            f"{kernel}"
        )
    for a in zip(input.shape[2:], kernel, stride or kernel, pads, dilation):
        _out_size(name, *a, ceil_mode)
    return kernel, stride, pads, dilation


def _as_2d(nd, kernel, stride, pads, dilation):
    """A 1-D pool's parameters for the 2-D pool PyTorch runs it as (on an unsqueezed dim)."""
    if nd != 1:
        return kernel, stride, pads, dilation
    return (1, *kernel), (1, *(stride or kernel)), (0, *pads), (1, *dilation)


def _max_pool(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode):
    batched, _ = _batched(name, input, nd)
    _check_kernel_dtype(name, input, refused="b")
    params = _window_params(name, batched, nd, kernel_size, stride, padding, dilation, ceil_mode)
    if nd == 1:  # as PyTorch: a 2-D pool over (..., 1, L)
        values, indices = _pooling_ops.max_pool_with_indices(
            input.unsqueeze(-2), *_as_2d(nd, *params), ceil_mode
        )
        return values.squeeze(-2), indices.squeeze(-2)
    return _pooling_ops.max_pool_with_indices(input, *params, ceil_mode)


def _max_pool_api(nd):
    name = f"max_pool{nd}d"

    def with_indices(
        input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
        return_indices=False,
    ):  # fmt: skip
        return _max_pool(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode)

    def pool(
        input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
        return_indices=False,
    ):  # fmt: skip
        if nd == 1 and not return_indices and isinstance(input, Tensor):
            # PyTorch's index-free 1-D kernel has no integer loops
            _check_kernel_dtype("max_pool1d_impl", input, refused="iu")
        out = _max_pool(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode)
        return out if return_indices else out[0]

    with_indices.__name__ = with_indices.__qualname__ = f"{name}_with_indices"
    pool.__name__ = pool.__qualname__ = name
    with_indices.__doc__ = f"{nd}-D max pooling returning ``(values, flat input indices)``."
    pool.__doc__ = f"{nd}-D max pooling over ``(N, C, *{nd} dims)``; indices too if asked."
    return with_indices, pool


max_pool1d_with_indices, max_pool1d = _max_pool_api(1)
max_pool2d_with_indices, max_pool2d = _max_pool_api(2)
max_pool3d_with_indices, max_pool3d = _max_pool_api(3)


def _avg_pool(name, nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):  # fmt: skip
    batched, _ = _batched(name, input, nd)
    _check_kernel_dtype(name, input, refused="biu", kept=("int64",))
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{name}: divisor_override must be non-zero")
    kernel, stride, pads, _ = _window_params(
        name, batched, nd, kernel_size, stride, padding, 1, ceil_mode
    )
    kernel, stride, pads, _ = _as_2d(nd, kernel, stride, pads, (1,) * nd)
    x = input.unsqueeze(-2) if nd == 1 else input
    out = _pooling_ops.avg_pool(
        x, kernel, stride, pads, ceil_mode, count_include_pad, divisor_override
    )
    return out.squeeze(-2) if nd == 1 else out


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True) -> Tensor:  # fmt: skip
    """1-D average pooling over ``(N, C, L)`` or ``(C, L)``."""
    return _avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, None)  # fmt: skip


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None) -> Tensor:  # fmt: skip
    """2-D average pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)  # fmt: skip


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None) -> Tensor:  # fmt: skip
    """3-D average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)  # fmt: skip


def _adaptive_bounds(name, input, nd, output_size):
    """Per spatial dim the adaptive windows' ``(start, end)`` arrays (PyTorch's floor/ceil)."""
    sizes = input.shape[2:]
    outs = (output_size,) * nd if isinstance(output_size, int) else tuple(output_size)
    if len(outs) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd} (an int or a tuple of {nd} ints)")
    outs = [size if o is None else o for o, size in zip(outs, sizes)]
    if any(o < 0 for o in outs):
        raise RuntimeError(f"{name}: output_size {tuple(outs)} must be non-negative")
    bounds = []
    for o, size in zip(outs, sizes):
        i = np.arange(o)
        bounds.append(((i * size) // o, -((-(i + 1) * size) // o)))
    return bounds


def _adaptive_avg_pool(name, nd, input, output_size) -> Tensor:
    """PyTorch's: the mean of the spatial dims (MeanBackward1, kept) for an output of ones,
    else one ``_adaptive_avg_pool2d`` (3d) on the input as it is (the op takes any leading
    dims); 1-D pools are 2-D ones on an unsqueezed dim, as in PyTorch."""
    batched, _ = _batched(name, input, nd)  # (for its checks)
    outs = tuple(len(start) for start, _ in _adaptive_bounds(name, batched, nd, output_size))
    x = input.unsqueeze(-2) if nd == 1 else input
    outs = (1, *outs) if nd == 1 else outs
    if all(o == 1 for o in outs):
        out = x.mean(tuple(range(-1, -len(outs) - 1, -1)), keepdim=True)
    else:
        _check_kernel_dtype(f"adaptive_avg_pool{len(outs)}d", input, refused="biu")
        out = _pooling_ops.adaptive_avg_pool(x, outs)
    return out.squeeze(-2) if nd == 1 else out


def adaptive_avg_pool1d(input, output_size) -> Tensor:
    """Average pooling of ``(N, C, L)`` to ``output_size`` positions."""
    return _adaptive_avg_pool("adaptive_avg_pool1d", 1, input, output_size)


def adaptive_avg_pool2d(input, output_size) -> Tensor:
    """Average pooling of ``(N, C, H, W)`` to ``output_size`` (``None`` keeps a size)."""
    return _adaptive_avg_pool("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input, output_size) -> Tensor:
    """Average pooling of ``(N, C, D, H, W)`` to ``output_size`` (``None`` keeps a size)."""
    return _adaptive_avg_pool("adaptive_avg_pool3d", 3, input, output_size)


def _adaptive_max_pool(name, nd, input, output_size):
    """PyTorch's op: one AdaptiveMaxPool2DBackward0 (3D) on the input as it is (the op takes
    any leading dims); the 1-D pool is the 2-D one on an unsqueezed dim, as in PyTorch."""
    batched, _ = _batched(name, input, nd)  # (for its checks)
    _check_kernel_dtype(name, input, refused="biu")
    bounds = _adaptive_bounds(name, batched, nd, output_size)
    if nd == 1:
        values, indices = _adaptive_max_pool(name, 2, input.unsqueeze(-2), (1, len(bounds[0][0])))
        return values.squeeze(-2), indices.squeeze(-2)
    index = []
    for start, end in bounds:
        # Windows differ in length: the short ones repeat their last element, which leaves
        # the maximum and its index unchanged.
        width = int((end - start).max()) if len(start) else 1
        index.append(np.minimum(start[:, None] + np.arange(width), end[:, None] - 1))
    windows = _flat_positions(index, tuple(input.shape[-nd:]), (0,) * nd)
    return _pooling_ops.adaptive_max_pool(input, windows)


def _adaptive_max_api(nd):
    name = f"adaptive_max_pool{nd}d"

    def with_indices(input, output_size, return_indices=False):
        return _adaptive_max_pool(name, nd, input, output_size)

    def pool(input, output_size, return_indices=False):
        out = _adaptive_max_pool(name, nd, input, output_size)
        return out if return_indices else out[0]

    with_indices.__name__ = with_indices.__qualname__ = f"{name}_with_indices"
    pool.__name__ = pool.__qualname__ = name
    with_indices.__doc__ = f"{nd}-D adaptive max pooling returning ``(values, indices)``."
    pool.__doc__ = f"{nd}-D adaptive max pooling to ``output_size``; indices too if asked."
    return with_indices, pool


adaptive_max_pool1d_with_indices, adaptive_max_pool1d = _adaptive_max_api(1)
adaptive_max_pool2d_with_indices, adaptive_max_pool2d = _adaptive_max_api(2)
adaptive_max_pool3d_with_indices, adaptive_max_pool3d = _adaptive_max_api(3)


def _lp_pool(nd, avg, input, norm_type, kernel_size, stride, ceil_mode) -> Tensor:
    # PyTorch's own composition: a scaled average of |x|^p, with the sign kept for odd p.
    kernel = _tuple(f"lp_pool{nd}d", kernel_size, nd, "kernel_size")
    out = avg(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    out = (_lg.sign(out) * _lg.relu(_lg.abs(out))).mul(math.prod(kernel))
    return out.pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """1-D power-average pooling: ``(sum over the window of x^p)^(1/p)``."""
    return _lp_pool(1, avg_pool1d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """2-D power-average pooling: ``(sum over the window of x^p)^(1/p)``."""
    return _lp_pool(2, avg_pool2d, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """3-D power-average pooling: ``(sum over the window of x^p)^(1/p)``."""
    return _lp_pool(3, avg_pool3d, input, norm_type, kernel_size, stride, ceil_mode)
