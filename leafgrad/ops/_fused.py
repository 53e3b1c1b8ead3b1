"""One-pass elementwise kernels compiled by numba, where it is installed (``pip install
leafgrad[fast]``); NumPy's passes where it is not.

Why: a rule such as tanh's backward, ``g * (1 - y * y)``, is three NumPy passes over arrays
that a large PINN batch keeps out of cache, where PyTorch runs one fused loop: at (1e4, 20)
float64, in a nested Burgers step, 364 us a call against ~170 us for one pass. numba
compiles each loop (``_fused_kernels``) once per dtype (cached on disk) and runs it without
the GIL. Each loop does the NumPy code's operations in its order, on constants of the arrays'
dtype, and numba does not contract products and sums into FMAs unless asked (``fastmath``),
so the results are NumPy's bit for bit (``tests/ops/test_fused.py``), but for float32 loops
that compute an ``exp`` themselves (``_exp32``: silu, sigmoid, GELU's and softplus'
backwards), within round-off of NumPy's (``tests/ops/test_exp32.py``). Only float32/float64
arrays of one shape and at least ``MIN_SIZE`` elements take them, each C-contiguous or one
value broadcast (the gradient of a ``sum()``); below that size a compiled call saves little.
``LEAFGRAD_NUMBA=0`` turns them off. This module is compiled by Cython (``_compiled``): its
functions run for every large elementwise rule.
"""

from __future__ import annotations

import functools
import os
import threading

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
            except Exception:  # missing, or broken (e.g. built for another NumPy): NumPy's
                pass
            else:
                _numba = numba
    return _numba


def available() -> bool:
    """Whether the compiled kernels are in use (numba installed and not turned off)."""
    return bool(_load())


def float32_at_any_size(x) -> bool:
    """Whether ``x`` takes a compiled float32 pass whatever its size (where NumPy's passes cost
    more than a compiled call even on a few elements: softmax rows, GELU): a non-empty
    C-contiguous float32 ndarray of at least one dim, and numba there."""
    return (
        type(x) is np.ndarray
        and x.dtype.char == "f"
        and x.ndim > 0
        and x.size > 0
        and x.flags.c_contiguous
        and available()
    )


def fusable(first, *others) -> bool:
    """Whether these arrays take a compiled kernel: ndarrays of one shape and float dtype,
    ``first`` (the kernels' shape) C-contiguous and each other C-contiguous or one broadcast
    value, at least ``MIN_SIZE`` elements, and numba there."""
    if (
        type(first) is not np.ndarray
        or first.size < MIN_SIZE
        or first.dtype.char not in "fd"
        or not first.flags.c_contiguous
    ):
        return False
    for a in others:
        if (
            type(a) is not np.ndarray
            or a.shape != first.shape
            or a.dtype != first.dtype
            or not (a.flags.c_contiguous or not any(a.strides))
        ):
            return False
    return bool(_numba if _numba is not None else _load())


def _kernels_for(array):
    """The compiled kernels of ``array``'s dtype (``_fused_kernels._Kernels``)."""
    kernels = _kernels.get(array.dtype.char)
    if kernels is None:
        with _compiling:  # one thread defines them (and numba's overloads) once
            kernels = _kernels.get(array.dtype.char)
            if kernels is None:
                from . import _fused_kernels  # why: it imports jit from here

                kernels = _fused_kernels.compile_for(_numba, array.dtype.type)
                _kernels[array.dtype.char] = kernels
    return kernels


_compiling = threading.Lock()


def jit(fn, signature=None, contract=False):
    """``fn`` compiled by numba (where ``available()``), without the GIL, cached on disk
    where anywhere is writable (uncached in a read-only install). NumPy's error model: a
    division by zero gives inf or NaN as in NumPy, where numba's default checks every
    division and raises, which also keeps LLVM from vectorising a loop that divides (GELU's
    forward: 7x slower). With a ``signature``: compiled now, for those types only. With
    ``contract``: LLVM may fuse ``a * b + c`` into one FMA, rounded once (results differ
    from NumPy's by round-off; only for loops that promise no NumPy bits)."""
    options = {"nogil": True, "error_model": "numpy"}
    if contract:
        options["fastmath"] = {"contract"}
    decorate = _numba.njit if signature is None else functools.partial(_numba.njit, signature)
    try:
        return decorate(cache=True, **options)(fn)
    except RuntimeError:
        return decorate(**options)(fn)


def _operand(a):
    """A C-contiguous array as it is; a broadcast one as its one value."""
    return a if a.flags.c_contiguous else a.flat[0]


# Each takes arrays that ``fusable`` accepted, the first of them as listed there: C-contiguous,
# so ``np.empty(x.shape, x.dtype)`` is ``empty_like``'s array (whose NumPy dispatcher calls a
# Python function first, ~0.2 us a call).
def tanh_backward(g, y) -> np.ndarray:
    """``g * (1 - y * y)`` (``fusable(y, g)``)."""
    out = np.empty(y.shape, y.dtype)
    _kernels_for(y).tanh_backward(out, y, _operand(g))
    return out


def tanh_output_grad(grad, g, y) -> np.ndarray:
    """``grad * (y * g) * -2``, tanh_backward's VJP in ``y`` (``fusable(y, grad, g)``)."""
    out = np.empty(y.shape, y.dtype)
    _kernels_for(y).tanh_output_grad(out, y, _operand(grad), _operand(g))
    return out


def sigmoid_backward(g, y) -> np.ndarray:
    """``g * (1 - y) * y`` (``fusable(y, g)``)."""
    out = np.empty(y.shape, y.dtype)
    _kernels_for(y).sigmoid_backward(out, y, _operand(g))
    return out


def sigmoid_output_grad(grad, g, y) -> np.ndarray:
    """``grad * g * (y * -2 + 1)``, sigmoid_backward's VJP in ``y`` (``fusable(y, grad,
    g)``)."""
    out = np.empty(y.shape, y.dtype)
    _kernels_for(y).sigmoid_output_grad(out, y, _operand(grad), _operand(g))
    return out


def threshold_backward(grad, x) -> np.ndarray:
    """``0 where x <= 0 else grad``, relu's backward: a NaN ``x`` passes ``grad``
    (``fusable(x, grad)``)."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).threshold_backward(out, x, _operand(grad))
    return out


def leaky_relu_backward(grad, x, negative_slope) -> np.ndarray:
    """``grad where x > 0 else grad * slope``, the slope rounded to the dtype first, as a
    Python number meeting an array in NumPy (``fusable(x, grad)``)."""
    slope = x.dtype.type(negative_slope)
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).leaky_relu_backward(out, x, _operand(grad), slope)
    return out


def leaky_relu(x, negative_slope) -> np.ndarray:
    """``x where x > 0 else x * slope``, PyTorch's formula, the slope rounded to the dtype
    first (``fusable(x)``)."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).leaky_relu(out, x, x.dtype.type(negative_slope))
    return out


# The kernels below finish a pass NumPy began (its vectorised exp, which numba would call
# scalar from libm, ~7x slower, with other roundings): they take that pass's fresh array
# ``e`` and write the result into it, so the op makes one buffer where NumPy's passes make
# it and its intermediate values in two or three.
def silu(x, e) -> np.ndarray:
    """``x / (e + 1)`` from ``e = exp(-x)`` (``_silu_forward``'s order), into ``e``
    (``fusable(x, e)``)."""
    _kernels_for(x).silu(x, e)
    return e


def silu_backward(grad, x, e) -> np.ndarray:
    """``(grad s) (1 + x (1 - s))`` with ``s = 1 / (e + 1)`` from ``e = exp(-x)``, in
    ``_silu_vjp``'s order, into ``e`` (``fusable(x, grad, e)``)."""
    _kernels_for(x).silu_backward(x, _operand(grad), e)
    return e


def silu32(x) -> np.ndarray:
    """``x / (exp(-x) + 1)`` in one pass, ``exp`` inlined (``_exp32``; float32 ``fusable(x)``)."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).silu32(out, x)
    return out


def sigmoid32(x) -> np.ndarray:
    """``1 / (exp(-x) + 1)`` in one pass, ``exp`` inlined (``_exp32``; float32 ``fusable(x)``)."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).sigmoid32(out, x)
    return out


def silu_derivatives32(x, third: bool) -> tuple:
    """SiLU's derivatives ``(d1, d2)`` (``third``: ``(d1, d2, d3)``) at ``x`` in one pass,
    ``exp`` inlined (``_exp32``): ``jet_activations._silu``'s operations on ``sigmoid32``'s
    values, so its bits (float32 ``fusable(x)``)."""
    out = _derivative_arrays(x)
    _kernels_for(x).silu_derivatives32(x, *out, third)
    return _derivatives(out, third)


def softplus_derivatives32(x, third: bool, beta, threshold) -> tuple:
    """softplus' derivatives as ``silu_derivatives32`` gives SiLU's; ``beta``, ``beta^2``
    and ``threshold`` rounded to float32 as the formula's Python numbers meeting arrays."""
    out = _derivative_arrays(x)
    c = np.float32
    kernel = _kernels_for(x).softplus_derivatives32
    kernel(x, *out, third, c(beta), c(beta * beta), c(threshold))
    return _derivatives(out, third)


def silu32_backward(grad, x) -> np.ndarray:
    """``silu_backward``'s formula in one pass, ``exp`` inlined (``_exp32``; float32
    ``fusable(x, grad)``)."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).silu32_backward(out, x, _operand(grad))
    return out


def softplus(x, soft, beta, threshold) -> np.ndarray:
    """``x where x beta > threshold else soft / beta`` from ``soft = log1p(exp(x beta))``
    (``_softplus_forward``'s select), into ``soft``; ``beta`` and ``threshold`` rounded to
    the dtype as NumPy rounds a Python number meeting an array (``fusable(x, soft)``)."""
    c = x.dtype.type
    _kernels_for(x).softplus(x, soft, c(beta), c(threshold))
    return soft


def softplus_backward(grad, x, z, beta, threshold) -> np.ndarray:
    """``grad where x beta > threshold else grad z / (z + 1)`` from ``z = exp(x beta)``
    (PyTorch's CPU softplus_backward), into ``z`` (``fusable(x, grad, z)``)."""
    c = x.dtype.type
    _kernels_for(x).softplus_backward(x, _operand(grad), z, c(beta), c(threshold))
    return z


def softplus_backward32(grad, x, beta, threshold) -> np.ndarray:
    """``softplus_backward`` with ``z = exp(x beta)`` computed in the pass (``_exp32``'s exp;
    float32 ``fusable(x, grad)``)."""
    c = x.dtype.type
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).softplus_backward32(out, x, _operand(grad), c(beta), c(threshold))
    return out


def exp_minus_abs(z) -> tuple:
    """``(e, 1 + e)`` with ``e = exp(-|z|)``, in one pass (``_exp32``'s exp; float32
    ``fusable(z)``)."""
    e, u = np.empty(z.shape, z.dtype), np.empty(z.shape, z.dtype)
    _kernels_for(z).exp_minus_abs(z, e, u)
    return e, u


def log1p_exp_finish(z, e, out) -> np.ndarray:
    """``max(z, 0) + log1p(e)`` into ``out`` from ``e = exp(-|z|)`` and ``out = log(1 + e)``:
    Goldberg's ``log1p(e) = log(u) e / (u - 1)`` with ``u = 1 + e`` (``e`` where ``u - 1``
    is 0), each step rounded as ``activations._log1p_exp_goldberg``'s NumPy passes round it
    (``fusable(z, e, out)``)."""
    _kernels_for(z).log1p_exp_finish(z, e, out)
    return out


def erf32(x) -> np.ndarray:
    """``_erf32.erf32(x)`` in one pass, its operations on each value (float32
    ``float32_at_any_size(x)``)."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).erf32(out, x)
    return out


def _derivative_arrays(x) -> tuple:
    """``(d1, d2, d3)`` to fill: three arrays, ``d3`` unwritten (and untouched) without
    ``third``. (``d2`` standing in for it left the loops scalar: LLVM's overlap check on the
    two fails, 4x slower.)"""
    return np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)


def _derivatives(arrays: tuple, third: bool) -> tuple:
    return arrays if third else arrays[:2]


def silu_derivatives(x, e, third: bool) -> tuple:
    """SiLU's derivatives ``(d1, d2)`` (``third``: ``(d1, d2, d3)``) given ``e = exp(-x)``,
    in one pass: ``jet_activations._silu``'s operations on the sigmoid ``1 / (e + 1)``
    (``sigmoid_any``'s; ``fusable(x, e)``)."""
    out = _derivative_arrays(x)
    _kernels_for(x).silu_derivatives(x, e, *out, third)
    return _derivatives(out, third)


def softplus_derivatives(bx, e, third: bool, beta, threshold) -> tuple:
    """softplus' derivatives given ``bx = x beta`` and ``e = exp(-bx)``, as
    ``silu_derivatives``; ``beta``, ``beta^2`` and ``threshold`` rounded to the dtype as the
    formula's Python numbers meeting arrays (``fusable(bx, e)``)."""
    out = _derivative_arrays(bx)
    c = bx.dtype.type
    kernel = _kernels_for(bx).softplus_derivatives
    kernel(bx, e, *out, third, c(beta), c(beta * beta), c(threshold))
    return _derivatives(out, third)


def gelu_derivatives_given(x, e, r, third: bool) -> tuple:
    """GELU's derivatives given ``e = exp(x x -0.5)`` and ``r = erf(x / sqrt(2))``, in one
    pass: ``jet_activations._gelu``'s operations (``fusable(x, e, r)``)."""
    out = _derivative_arrays(x)
    _kernels_for(x).gelu_derivatives_given(x, e, r, *out, third)
    return _derivatives(out, third)


def gelu_derivatives32(x, e, third: bool) -> tuple:
    """GELU's derivatives ``(d1, d2)`` (``third``: ``(d1, d2, d3)``) at float32 ``x`` given
    ``e = exp(x x -0.5)``, in one pass: ``jet_activations._gelu``'s operations, erf by
    ``erf32`` (``fusable(x, e)``)."""
    out = _derivative_arrays(x)
    _kernels_for(x).gelu_derivatives(x, e, *out, third)
    return _derivatives(out, third)


def gelu_erf(x) -> np.ndarray:
    """``(1 + erf32(x * M_SQRT1_2)) * x * 0.5``, the exact GELU in ``_gelu_forward``'s order
    (``_erf32``'s rational function; float32 ``fusable(x)``)."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).gelu_erf(out, x)
    return out


def gelu_erf_backward(grad, x) -> np.ndarray:
    """``(cdf + e * INV_SQRT_2PI * x) * grad`` with ``cdf = (1 + erf32(x M_SQRT1_2)) * 0.5``
    and ``e = exp(x x -0.5)``, in ``_gelu_backward_forward``'s order, in one pass (float32
    ``float32_at_any_size(x)``, ``grad`` of its shape, C-contiguous or one broadcast value):
    ``_exp32``'s exp, where NumPy's took three passes of their own."""
    out = np.empty(x.shape, x.dtype)
    _kernels_for(x).gelu_erf_backward(out, x, _operand(grad))
    return out


def row_fusable(x, b) -> bool:
    """Whether ``x + b`` adds a row ``b`` (1-D, ``x``'s last size, at least 2) to every row
    of ``x`` in one compiled pass: both C-contiguous, of one float dtype, ``x`` at least 2-D
    with ``MIN_SIZE`` elements, and numba there. Why: NumPy's broadcast loop runs along one
    row at a time (copying both operands through its buffers for short rows), 2-3x slower
    than one pass: measured on one core, (1e4, 20) + (20,) float32 110 -> 34 us, float64 240
    -> 124; (1e3, 20) 16 -> 8 and 28 -> 8 (a layer's bias, in every PINN step); rows of 2 to
    8 alike. A row of one NumPy adds as one number, faster (1e4 rows: 2.4 against 17 us)."""
    return (
        type(x) is np.ndarray
        and type(b) is np.ndarray
        and b.ndim == 1
        and x.ndim > 1
        and x.shape[-1] == b.shape[0] > 1
        and x.size >= MIN_SIZE
        and x.dtype == b.dtype
        and x.dtype.char in "fd"
        and x.flags.c_contiguous
        and b.flags.c_contiguous
        and bool(_numba if _numba is not None else _load())
    )


def row_add(x, b, into: bool = False) -> np.ndarray:
    """``x + b`` for ``row_fusable(x, b)``, each entry one IEEE sum as in NumPy; ``into``:
    written into ``x`` (a fresh product's buffer), else a fresh array."""
    kernels = _kernels_for(x)
    if into:
        kernels.row_add_into(x, b)
        return x
    out = np.empty(x.shape, x.dtype)
    kernels.row_add(out, x, b)
    return out


def running(x, dim: int, product: bool, reverse: bool) -> np.ndarray:
    """The running sum (or ``product``) of float32 ``x`` along ``dim`` (non-negative),
    accumulated in double and rounded once per value, from the end with ``reverse``
    (``_running``'s compiled pass; ``fusable(x)``)."""
    n = x.shape[dim]
    before = int(np.prod(x.shape[:dim]))
    out = np.empty_like(x)
    shape = (before, n, x.size // (before * n))
    _kernels_for(x).running(x.reshape(shape), out.reshape(shape), product, reverse)
    return out


__all__: list = []
