"""Pools whose windows tile the input (stride = kernel, no padding or dilation, no partial
window): the windows as axes of a reshape, where ``_pooling_ops`` gathers every window
element by its flat position. The common ``max_pool2d(x, 2)`` and ``avg_pool2d(x, 2)``.

The values are PyTorch's CPU kernels' to the bit: an average sums its window in order
(``((x00 + x01) + x10) + x11``) and divides once; a maximum is the first largest element or
the last NaN, element by element in window order; the backwards add each gradient into zeros once
(a -0.0 gradient lands as +0.0, as there), as windows do not overlap.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def tiles(sizes, kernel_size, stride, padding, dilation, ceil_mode) -> tuple | None:
    """The output sizes where the windows tile the input's first ``out * kernel`` elements
    of each dim (a remainder smaller than the kernel is dropped, as PyTorch drops it); None
    where they do not."""
    if (stride and tuple(stride) != tuple(kernel_size)) or any(padding):
        return None
    if dilation is not None and any(d != 1 for d in dilation):
        return None
    outs = []
    for n, k in zip(sizes, kernel_size):
        if n < k or (ceil_mode and n % k):  # ceil mode's last window would be partial
            return None
        outs.append(n // k)
    return tuple(outs)


def _windows(x, outs, kernel_size):
    """``x`` (leading dims flattened to one) as ``(L, o1, k1, o2, k2, ...)``, its trailing
    dims cropped to whole windows (a view where nothing is cropped)."""
    crop = tuple(slice(0, o * k) for o, k in zip(outs, kernel_size))
    return x[(Ellipsis, *crop)].reshape(-1, *itertools.chain.from_iterable(zip(outs, kernel_size)))


def _offsets(kernel_size):
    """Each window element's index into ``_windows``' axes, in the window's row-major order."""
    for offset in itertools.product(*(range(k) for k in kernel_size)):
        yield (slice(None), *itertools.chain.from_iterable((slice(None), i) for i in offset))


def average(x, outs, kernel_size, divisor) -> np.ndarray:
    """Each window's sum in order, over ``divisor``: ``(*lead, *outs)``."""
    w = _windows(x, outs, kernel_size)
    offsets = _offsets(kernel_size)
    total = w[next(offsets)].copy()
    for index in offsets:
        total += w[index]
    if total.dtype.kind == "f":
        total /= np.asarray(divisor, x.dtype)
    else:  # int64: PyTorch's integer division, truncating (as the gathering path's cast)
        total = (total / divisor).astype(x.dtype)
    return total.reshape(*x.shape[: x.ndim - len(outs)], *outs)


def average_backward(grad, x_shape, outs, kernel_size, divisor) -> np.ndarray:
    """``grad / divisor`` added into zeros at every element of its window: ``x_shape``."""
    g = grad / np.asarray(divisor, grad.dtype)
    g = g.reshape(-1, *(itertools.chain.from_iterable((o, 1) for o in outs)))
    return _into_zeros(g, x_shape, outs, kernel_size, grad.dtype)


def maximum(x, outs, kernel_size) -> tuple:
    """``(values, flat input positions)`` of each window's maximum, taken as PyTorch's kernel
    takes it: the first largest element, or the last NaN."""
    nd = len(outs)
    w = _windows(x, outs, kernel_size)
    # The window elements first, each contiguous: (K, L, *outs), a copy. (Masked copies of
    # the elements that win cost 10x the arithmetic below on random masks.)
    order = (*range(2, 2 * nd + 1, 2), 0, *range(1, 2 * nd + 1, 2))
    elements = np.ascontiguousarray(w.transpose(order)).reshape(-1, w.shape[0], *outs)
    count = elements.shape[0]
    values = elements[0].copy()  # (L, *outs)
    # The window element taken, row-major; int8 where it fits (the passes below are
    # arithmetic on it: selects, np.where, cost 5x more on random masks)
    small = count <= 127  # (np.iinfo costs 5 us)
    taken = np.zeros(values.shape, np.int8 if small else np.intp)
    floating = values.dtype.kind in "fc"
    for k in range(1, count):
        element = elements[k]
        wins = np.greater(element, values)
        if floating:
            wins |= np.isnan(element)
        # k exceeds every earlier element's number
        np.maximum(taken, wins.view(np.int8) * np.int8(k) if small else wins * k, out=taken)
        # The running maximum, for the comparisons (NaN kept); of two equal zeros NumPy's
        # maximum may keep either, so the values are read at ``taken`` below.
        np.maximum(values, element, out=values)
    # Read as one flat take (take_along_axis costs 8x more)
    size = values.size
    at = np.multiply(taken, size, dtype=np.intp)
    at += np.arange(size).reshape(values.shape)
    values = np.take(elements.reshape(-1), at)
    # Input positions: each window's first element, plus the picked element's offset.
    sizes = x.shape[x.ndim - nd :]
    strides = [math.prod(sizes[j + 1 :]) for j in range(nd)]
    within = np.zeros((), np.int64)
    first = np.zeros((), np.int64)
    for j, (o, k) in enumerate(zip(outs, kernel_size)):
        within = np.add.outer(within, np.arange(k) * strides[j])
        first = np.add.outer(first, np.arange(o) * (k * strides[j]))
    position = np.take(within.reshape(-1), taken)
    position += first
    lead = x.shape[: x.ndim - nd]
    return values.reshape(*lead, *outs), position.reshape(*lead, *outs)


def maximum_backward(grad, x_shape, indices, outs, kernel_size) -> np.ndarray:
    """``grad`` added into zeros at ``indices`` (one per window, so none twice): as one flat
    assignment of ``grad + 0`` (``0 + g``: a -0.0 lands as +0.0), where an added scatter
    reads and writes through fancy indices (3x slower)."""
    nd = len(outs)
    size = math.prod(x_shape[len(x_shape) - nd :])
    rows = math.prod(grad.shape[: grad.ndim - nd])
    total = np.zeros(rows * size, grad.dtype)
    at = np.add(indices.reshape(rows, -1), np.arange(0, rows * size, size)[:, None])
    total[at.reshape(-1)] = grad.reshape(-1) + np.zeros((), grad.dtype)
    return total.reshape(x_shape)


def _into_zeros(g, x_shape, outs, kernel_size, dtype) -> np.ndarray:
    """``g`` (``(L, o1, 1, o2, 1, ...)``) added into the zeros of each window's elements."""
    nd = len(outs)
    tiled = itertools.chain.from_iterable(zip(outs, kernel_size))
    total = np.zeros((g.shape[0], *tiled), dtype)
    total += g
    whole = tuple(o * k for o, k in zip(outs, kernel_size))
    lead = tuple(x_shape[: len(x_shape) - nd])
    if whole == tuple(x_shape[len(x_shape) - nd :]):
        return total.reshape(x_shape)
    out = np.zeros(x_shape, dtype)
    out[(Ellipsis, *(slice(0, n) for n in whole))] = total.reshape(*lead, *whole)
    return out
