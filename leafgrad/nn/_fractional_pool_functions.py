"""Fractional max pooling (``fractional_max_pool2d``/``3d``): max over pseudo-random,
overlapping windows, composed from leafgrad ops (one ``gather``, one ``max``).

Each plane draws a sample ``u`` in ``[0, 1)`` per spatial dim (or takes it from
``_random_samples``); window ``i`` along a dim of input size ``n`` and pool ``k`` starts at
``int((i + u) * a) - int(u * a)``, ``a = (n - k) / (out - 1)``, and the last one at ``n - k``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

import leafgrad as _lg

from ._activation_functions import _recorded

__all__ = [
    "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]  # fmt: skip

_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _tuple(value, nd: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * nd


def _starts(samples: np.ndarray, size: int, out: int, pool: int, dtype) -> np.ndarray:
    """Window starts ``(P, out)`` for the ``P`` samples, in the input's float precision."""
    samples = samples.astype(dtype)
    if out == 1:
        return np.full((samples.shape[0], 1), size - pool, dtype=np.int64)
    alpha = dtype.type(size - pool) / dtype.type(out - 1)
    steps = np.arange(out - 1, dtype=dtype)
    seq = ((steps[None, :] + samples[:, None]) * alpha).astype(np.int64)
    seq = seq - (samples * alpha).astype(np.int64)[:, None]
    return np.concatenate([seq, np.full((samples.shape[0], 1), size - pool)], 1)


def _fractional(nd, input, kernel_size, output_size, output_ratio, _random_samples):
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}"
        )
    unbatched = input.dim() == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    n, c, sizes = x.shape[0], x.shape[1], tuple(x.shape[2:])
    pools = _tuple(kernel_size, nd)
    if output_size is None:
        ratios = _tuple(output_ratio, nd)
        outs = tuple(int(s * r) for s, r in zip(sizes, ratios))
    else:
        outs = _tuple(output_size, nd)
    for dim, size, out, pool in zip(_DIM_NAMES[nd], sizes, outs, pools):
        fits = out + pool - 1 <= size if nd == 2 else out + pool - 1 < size
        if not fits:
            raise RuntimeError(
                f"{name}(): pool {dim} {pool} too large relative to input {dim} {size}"
            )
    if _random_samples is None:
        _random_samples = _lg.rand(n, c, nd, dtype=input.dtype)
    samples = _random_samples.detach().numpy()
    if samples.ndim != 3 or samples.shape[0] != n:
        raise RuntimeError(
            f"{name}(): expected _random_samples of shape ({n}, {c}, {nd}), got "
            f"{list(samples.shape)}"
        )
    if samples.shape[1] != c:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(
            f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}."
        )
    planes = samples.reshape(n * c, nd)
    # 2-D kernels read the samples as (width, height); 3-D ones as (time, height, width).
    order = [1, 0] if nd == 2 else [0, 1, 2]
    dtype = np.dtype(samples.dtype)
    starts = [_starts(planes[:, order[j]], sizes[j], outs[j], pools[j], dtype) for j in range(nd)]
    flat = np.zeros((n * c, *outs, math.prod(pools)), dtype=np.int64)
    for k, offset in enumerate(itertools.product(*(range(p) for p in pools))):
        position = np.zeros((n * c, *outs), dtype=np.int64)
        for j in range(nd):
            shape = [n * c] + [1] * nd
            shape[1 + j] = outs[j]
            step = math.prod(sizes[j + 1 :])
            position = position + ((starts[j] + offset[j]) * step).reshape(shape)
        flat[..., k] = position
    index = _lg.tensor(flat.reshape(n, c, -1), dtype=_lg.int64)
    # _recorded: PyTorch's backward depends on the input, so its gradient is differentiable.
    windows = _recorded(x).reshape(n, c, -1).gather(2, index).reshape(n, c, *outs, -1)
    values, taken = windows.max(-1)
    where = np.take_along_axis(flat.reshape(n, c, *outs, -1), taken.numpy()[..., None], -1)
    indices = _lg.tensor(where[..., 0], dtype=_lg.int64)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def fractional_max_pool2d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None,
):  # fmt: skip
    """``(values, flat indices)`` of 2-D fractional max pooling of ``(N, C, H, W)``."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None,
):  # fmt: skip
    """``(values, flat indices)`` of 3-D fractional max pooling of ``(N, C, T, H, W)``."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None,
):  # fmt: skip
    """2-D fractional max pooling; ``output_size`` or ``output_ratio`` sets the output."""
    values, indices = _fractional(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool3d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None,
):  # fmt: skip
    """3-D fractional max pooling; ``output_size`` or ``output_ratio`` sets the output."""
    values, indices = _fractional(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return (values, indices) if return_indices else values
