"""The softmax rows' loops (``_softmax_rows``), compiled by numba: imported only where numba
is there, and made at module level so that they call one another as globals, which lets
each load from numba's disk cache (made inside a function, each loop held the others as
closure variables, whose pickles differ between processes: every process compiled them all
again, ~1.5 s, and added their files to the cache)."""

from __future__ import annotations

import numpy as np

from . import _fused
from ._exp32 import as_float, exp32

jit = _fused.jit
LOW_BITS = np.int32(0x7FFFFFFF)


def _summing(fn):
    """``_fused.jit`` with LLVM free to reorder the float adds (``reassoc`` only: no FMAs, no
    assumptions about NaN or infinities), so a row's sum runs in vector lanes."""
    options = {"nogil": True, "error_model": "numpy", "fastmath": {"reassoc"}}
    try:
        return _fused._numba.njit(cache=True, **options)(fn)
    except RuntimeError:
        return _fused._numba.njit(**options)(fn)


@jit
def key(bits):
    """An int32 ordered as the floats whose bits these are (its own inverse)."""
    return bits ^ ((bits >> 31) & LOW_BITS)


@_summing
def exp_sum(row, m):
    total = 0.0
    for j in range(row.size):
        total += np.float64(exp32(row[j] - m))
    return total


@_summing
def row_sum(row):
    total = 0.0
    for j in range(row.size):
        total += np.float64(row[j])
    return total


@jit
def row_max(keys):
    """The largest float of a row, read off its bits (a NaN's key beats every number's)."""
    top = key(keys[0])
    for j in range(1, keys.size):
        k = key(keys[j])
        top = k if k > top else top
    return as_float(key(top))


@jit
def forward(x, out):
    rows, n = x.shape
    bits = x.view(np.int32)
    for i in range(rows):
        m = row_max(bits[i])
        row = x[i]
        lse = np.float32(np.log(exp_sum(row, m)))
        o = out[i]
        for j in range(n):
            o[j] = (row[j] - m) - lse


@jit
def backward(grad, output, out):
    rows, n = output.shape
    for i in range(rows):
        g, y, o = grad[i], output[i], out[i]
        total = np.float32(row_sum(g))
        for j in range(n):
            o[j] = g[j] - exp32(y[j]) * total


@jit
def backward_one(value, total, output, out):
    rows, n = output.shape
    for i in range(rows):
        y, o = output[i], out[i]
        for j in range(n):
            o[j] = value - exp32(y[j]) * total


@_summing
def exp_into(row, m, o):
    total = 0.0
    for j in range(row.size):
        e = exp32(row[j] - m)
        o[j] = e
        total += np.float64(e)
    return total


@_summing
def dot(a, b):
    total = 0.0
    for j in range(a.size):
        total += np.float64(a[j]) * np.float64(b[j])
    return total


@jit
def softmax_forward(x, out):
    rows, n = x.shape
    bits = x.view(np.int32)
    for i in range(rows):
        o = out[i]
        r = np.float32(1.0 / exp_into(x[i], row_max(bits[i]), o))
        for j in range(n):
            o[j] = o[j] * r


@jit
def softmax_backward(grad, output, out):
    rows, n = output.shape
    for i in range(rows):
        g, y, o = grad[i], output[i], out[i]
        total = np.float32(dot(g, y))
        for j in range(n):
            o[j] = (g[j] - total) * y[j]


@jit
def softmax_backward_one(value, output, out):
    rows, n = output.shape
    for i in range(rows):
        y, o = output[i], out[i]
        total = np.float32(np.float64(value) * row_sum(y))
        for j in range(n):
            o[j] = (value - total) * y[j]


@jit
def exp_all(x, out):
    for i in range(x.size):
        out[i] = exp32(x[i])


__all__: list = []
