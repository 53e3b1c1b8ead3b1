"""Max pooling's forward and backward as PyTorch's CPU loops, compiled by numba where it is
installed (``_fused.jit``); ``_pooling_ops`` keeps its NumPy paths for everything else.

Why: NumPy takes a window's maximum and its index in ~10 passes (compare, NaN test, select,
per window element), and the backward scatters through fancy indexing: ``max_pool2d(x, 2)``
of ``(8, 3, 32, 32)`` float32, forward + backward, 252 us against PyTorch's 97. One loop per
output visits its window once, in PyTorch's order and with its test (``val > max or
isnan(val)``, from ``-inf`` and the window's first element inside the input), so the values
and indices are PyTorch's: the first largest element, or the last NaN. The backward adds each
gradient at its index in the outputs' order, the additions of ``np.add.at``'s flat scatter.

A 2-D pool runs as a 3-D one of depth 1. Only float32 and float64 C-contiguous inputs of at
least ``_fused.MIN_SIZE`` elements take the loops (integer pools keep their NumPy path).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ..ops import _fused

_compiled: dict = {}
_compiling = threading.Lock()


def forward_loop(x, values, indices, kernel, stride, padding, dilation):
    """``x`` ``(L, D, H, W)`` pooled into ``values`` and ``indices`` ``(L, oD, oH, oW)``,
    each window's valid elements in PyTorch's order. (Selects rather than branches: a
    random input's comparisons are a coin toss for the branch predictor.)"""
    rows, depth, height, width = x.shape
    kd, kh, kw = kernel
    sd, sh, sw = stride
    pd, ph, pw = padding
    dd, dh, dw = dilation
    od, oh, ow = values.shape[1], values.shape[2], values.shape[3]
    for r in range(rows):
        for i in range(od):
            d0 = i * sd - pd
            d1 = min(d0 + (kd - 1) * dd + 1, depth)
            while d0 < 0:
                d0 += dd
            for j in range(oh):
                h0 = j * sh - ph
                h1 = min(h0 + (kh - 1) * dh + 1, height)
                while h0 < 0:
                    h0 += dh
                for k in range(ow):
                    w0 = k * sw - pw
                    w1 = min(w0 + (kw - 1) * dw + 1, width)
                    while w0 < 0:
                        w0 += dw
                    best = -np.inf
                    at = (d0 * height + h0) * width + w0
                    a = d0
                    while a < d1:
                        b = h0
                        while b < h1:
                            line = (a * height + b) * width
                            c = w0
                            while c < w1:
                                value = x[r, a, b, c]
                                better = (value > best) | (value != value)
                                best = value if better else best
                                at = line + c if better else at
                                c += dw
                            b += dh
                        a += dd
                    values[r, i, j, k] = best
                    indices[r, i, j, k] = at


def forward_loop_2x2(x, values, indices):
    """``forward_loop`` of a 2 x 2 kernel of stride 2 on ``x`` ``(L, H, W)`` (the windows
    tile it, a last odd row or column left out): the window as a tournament of pairs,
    ``((x00, x01), (x10, x11))``, which takes the same element as the loop in order (its
    step keeps the first largest, or the later NaN, of two runs in order)."""
    width = x.shape[2]
    for r in range(x.shape[0]):
        for j in range(values.shape[1]):
            top = x[r, 2 * j]
            bottom = x[r, 2 * j + 1]
            out = values[r, j]
            where = indices[r, j]
            corner = 2 * j * width
            for k in range(values.shape[2]):
                c = 2 * k
                a0, a1, b0, b1 = top[c], top[c + 1], bottom[c], bottom[c + 1]
                ta = (a1 > a0) | (a1 != a1)
                va = a1 if ta else a0
                tb = (b1 > b0) | (b1 != b1)
                vb = b1 if tb else b0
                t = (vb > va) | (vb != vb)
                out[k] = vb if t else va
                where[k] = corner + c + ((width + tb) if t else ta)


def backward_loop(grad, indices, total):
    """``grad`` ``(L, O)`` added into the zeros ``total`` ``(L, S)`` at ``indices`` ``(L, O)``,
    output by output; False, at the first index outside a row, for NumPy's path to answer."""
    size = total.shape[1]
    for r in range(grad.shape[0]):
        for o in range(grad.shape[1]):
            at = indices[r, o]
            if at < 0 or at >= size:
                return False
            total[r, at] += grad[r, o]
    return True


def _kernels():
    """The compiled loops, or None where numba is not available."""
    if not _fused.available():
        return None
    with _compiling:
        if not _compiled:
            _compiled.update(
                forward=_fused.jit(forward_loop),
                forward_2x2=_fused.jit(forward_loop_2x2),
                backward=_fused.jit(backward_loop),
            )
    return _compiled


def takes(x: np.ndarray) -> bool:
    """Whether ``x`` (the pool's input, or its gradient) runs in the compiled loops."""
    return (
        type(x) is np.ndarray
        and x.dtype.char in "fd"
        and x.size >= _fused.MIN_SIZE
        and _fused.available()
    )


def _as_3d(params, nd):
    """The window parameters of a pool over ``nd`` (2 or 3) dims as a 3-D pool's."""
    stride = params["stride"] or params["kernel_size"]
    front = 3 - nd
    return (
        (1,) * front + tuple(params["kernel_size"]),
        (1,) * front + tuple(stride),
        (0,) * front + tuple(params["padding"]),
        (1,) * front + tuple(params["dilation"]),
    )


def maximum(x: np.ndarray, outs: tuple, params: dict) -> tuple:
    """``(values, flat input positions)`` of every window of ``x`` (``takes(x)``)."""
    nd = len(outs)
    lead = x.shape[: x.ndim - nd]
    if (
        params["kernel_size"] == (2, 2)
        and params["stride"] in ((), (2, 2))
        and params["padding"] == (0, 0)
        and params["dilation"] == (1, 1)
        and outs == (x.shape[-2] // 2, x.shape[-1] // 2)
    ):
        rows = np.ascontiguousarray(x).reshape(-1, *x.shape[x.ndim - 2 :])
        values = np.empty((rows.shape[0], *outs), x.dtype)
        indices = np.empty(values.shape, np.int64)
        if values.size:
            _kernels()["forward_2x2"](rows, values, indices)
        return values.reshape(*lead, *outs), indices.reshape(*lead, *outs)
    sizes = (1,) * (3 - nd) + x.shape[x.ndim - nd :]
    rows = np.ascontiguousarray(x).reshape(-1, *sizes)
    shape = (rows.shape[0], *((1,) * (3 - nd)), *outs)
    values = np.empty(shape, x.dtype)
    indices = np.empty(shape, np.int64)
    if rows.shape[0] and values.size:
        _kernels()["forward"](rows, values, indices, *_as_3d(params, nd))
    return values.reshape(*lead, *outs), indices.reshape(*lead, *outs)


def maximum_backward(grad: np.ndarray, x_shape: tuple, indices: np.ndarray, nd: int):
    """``grad`` added into zeros of ``x_shape`` at ``indices`` (both of the pool's output
    shape, ``takes(grad)``), or None where an index is outside the input."""
    count = math.prod(grad.shape[: grad.ndim - nd])  # (np.prod of a tuple: 10 us)
    size = math.prod(x_shape[len(x_shape) - nd :])
    total = np.zeros((count, size), grad.dtype)
    if total.size and grad.size:
        g = np.ascontiguousarray(grad).reshape(count, -1)
        idx = np.ascontiguousarray(indices, np.int64).reshape(count, -1)
        if not _kernels()["backward"](g, idx, total):
            return None
    return total.reshape(x_shape)
