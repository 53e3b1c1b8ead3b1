"""Running sums and products (cumsum, cumprod) accumulated as PyTorch's CPU kernels do.

PyTorch's ``cumsum``/``cumprod`` carry float32 in double and float16 in float (its
``acc_type``), rounding each running value once to the result's dtype; NumPy's accumulate in
the result's own dtype, which for float32 drifts by up to ~1e-4 over a thousand terms and for
float16 by whole units. Here the wider accumulation is NumPy's on a widened copy, or one
compiled pass (``_fused.running``) where numba is installed.
"""

from __future__ import annotations

import numpy as np

from . import _fused

# The accumulator PyTorch's CPU kernels use for each narrow floating result dtype.
WIDER = {np.dtype(np.float32): np.dtype(np.float64), np.dtype(np.float16): np.dtype(np.float32)}


def running(product: bool, x: np.ndarray, dim: int, dtype=None, reverse: bool = False):
    """``cumprod`` (``product``) or ``cumsum`` of ``x`` along ``dim`` in ``dtype`` (default
    ``x``'s), from the last element backwards with ``reverse``; ``x`` at least 1-d. The
    result is row-major whatever ``x``'s layout, as PyTorch's."""
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    target = np.dtype(dtype) if dtype is not None else x.dtype
    wide = WIDER.get(target)
    ufunc = np.multiply if product else np.add
    if wide is None:
        if reverse:
            x = np.flip(x, dim)
        out = ufunc.accumulate(x, axis=dim, dtype=target)
        return np.flip(out, dim) if reverse else out
    x = x.astype(target, copy=False)
    if x.size >= _fused.MIN_SIZE and target.char == "f" and _fused.available():
        return _fused.running(x, dim % x.ndim, product, reverse)
    t = np.flip(x, dim).astype(wide) if reverse else x.astype(wide)
    ufunc.accumulate(t, axis=dim, out=t)
    out = t.astype(target)
    return np.flip(out, dim) if reverse else out


__all__: list = []
