"""One-pass elementwise kernels compiled by numba, where it is installed (``pip install
leafgrad[fast]``); NumPy's passes where it is not.

Why: a rule such as tanh's backward, ``g * (1 - y * y)``, is three NumPy passes over arrays
that a large PINN batch keeps out of cache, where PyTorch runs one fused loop: at (1e4, 20)
float64, in a nested Burgers step, 364 us a call against ~170 us for one pass. numba compiles
each loop below once per dtype (cached on disk) and runs it without the GIL. Each loop does
the NumPy code's operations in its order, on constants of the arrays' dtype, and numba does
not contract products and sums into FMAs unless asked (``fastmath``), so the results are
NumPy's bit for bit (``tests/ops/test_fused.py``). Only C-contiguous float32/float64 arrays
of one shape and at least ``MIN_SIZE`` elements take them: below that NumPy's passes stay in
cache and a compiled call saves nothing. ``LEAFGRAD_NUMBA=0`` turns them off.
"""

from __future__ import annotations

import os

import numpy as np

# Elements below which a compiled call (~0.8 us) saves little (measured on tanh's backward:
# 256 float32 elements 0.78 us against NumPy's 1.01, 3200 1.12 against 1.63, 65536 7.0
# against 19.6).
MIN_SIZE = 512

_numba = None  # the numba module once imported; False: missing or turned off
_kernels: dict = {}  # dtype char -> that dtype's compiled kernels


def _load():
    """numba, or False where it is missing or turned off."""
    global _numba
    if _numba is None:
        _numba = False
        if os.environ.get("LEAFGRAD_NUMBA", "1") != "0":
            try:
                # why: optional, and ~0.3 s to import: only once a large array needs a kernel
                import numba
            except ImportError:
                pass
            else:
                _numba = numba
    return _numba


def available() -> bool:
    """Whether the compiled kernels are in use (numba installed and not turned off)."""
    return bool(_load())


def fusable(*arrays) -> bool:
    """Whether ``arrays`` take a compiled kernel: ndarrays of one shape and float dtype,
    C-contiguous, at least ``MIN_SIZE`` elements, and numba there."""
    first = arrays[0]
    if type(first) is not np.ndarray or first.size < MIN_SIZE or first.dtype.char not in "fd":
        return False
    for a in arrays:
        if (
            type(a) is not np.ndarray
            or a.shape != first.shape
            or a.dtype != first.dtype
            or not a.flags.c_contiguous
        ):
            return False
    return bool(_numba if _numba is not None else _load())


def _for(array):
    """The compiled kernels for ``array``'s dtype (compiled on first use)."""
    kernels = _kernels.get(array.dtype.char)
    if kernels is None:
        kernels = _kernels[array.dtype.char] = _compile(_numba, array.dtype.type)
    return kernels


def tanh_backward(g, y) -> np.ndarray:
    """``g * (1 - y * y)``."""
    return _for(g).tanh_backward(g, y)


def tanh_output_grad(grad, g, y) -> np.ndarray:
    """``grad * (y * g) * -2`` (tanh_backward's VJP in ``y``, as ``_tanh_output_grad``)."""
    return _for(g).tanh_output_grad(grad, g, y)


def sigmoid_backward(g, y) -> np.ndarray:
    """``g * (1 - y) * y``."""
    return _for(g).sigmoid_backward(g, y)


def sigmoid_output_grad(grad, g, y) -> np.ndarray:
    """``grad * g * (y * -2 + 1)`` (sigmoid_backward's VJP in ``y``)."""
    return _for(g).sigmoid_output_grad(grad, g, y)


class _Kernels:
    """One dtype's compiled loops (attributes set by ``_compile``)."""


def _compile(numba, dtype) -> _Kernels:
    """The loops for ``dtype``, its constants frozen in (numba compiles each per number of
    dims on first call; ``cache``: once per machine). Each takes C-contiguous arrays of one
    shape and returns a fresh one."""
    jit = numba.njit(cache=True, nogil=True)
    one, minus_two = dtype(1), dtype(-2)

    @jit
    def tanh_backward(g, y):
        out = np.empty_like(g)
        n = out.size
        o, g, y = out.reshape(n), g.reshape(n), y.reshape(n)
        for i in range(o.size):
            o[i] = g[i] * (one - y[i] * y[i])
        return out

    @jit
    def tanh_output_grad(grad, g, y):
        out = np.empty_like(g)
        n = out.size
        o, grad, g, y = out.reshape(n), grad.reshape(n), g.reshape(n), y.reshape(n)
        for i in range(o.size):
            o[i] = grad[i] * (y[i] * g[i]) * minus_two
        return out

    @jit
    def sigmoid_backward(g, y):
        out = np.empty_like(g)
        n = out.size
        o, g, y = out.reshape(n), g.reshape(n), y.reshape(n)
        for i in range(o.size):
            o[i] = g[i] * (one - y[i]) * y[i]
        return out

    @jit
    def sigmoid_output_grad(grad, g, y):
        out = np.empty_like(g)
        n = out.size
        o, grad, g, y = out.reshape(n), grad.reshape(n), g.reshape(n), y.reshape(n)
        for i in range(o.size):
            o[i] = grad[i] * g[i] * (y[i] * minus_two + one)
        return out

    kernels = _Kernels()
    kernels.tanh_backward, kernels.tanh_output_grad = tanh_backward, tanh_output_grad
    kernels.sigmoid_backward, kernels.sigmoid_output_grad = sigmoid_backward, sigmoid_output_grad
    return kernels


__all__: list = []
