"""One-pass elementwise kernels compiled by numba, where it is installed (``pip install
leafgrad[fast]``); NumPy's passes where it is not.

Why: a rule such as tanh's backward, ``g * (1 - y * y)``, is three NumPy passes over arrays
that a large PINN batch keeps out of cache, where PyTorch runs one fused loop: at (1e4, 20)
float64, in a nested Burgers step, 364 us a call against ~170 us for one pass. numba compiles
each loop below once per dtype (cached on disk) and runs it without the GIL. Each loop does
the NumPy code's operations in its order, on constants of the arrays' dtype, and numba does
not contract products and sums into FMAs unless asked (``fastmath``), so the results are
NumPy's bit for bit (``tests/ops/test_fused.py``), but for float32 loops that compute an
``exp`` themselves (``_exp32``: silu, sigmoid, GELU's and softplus' backwards), within round-off
of NumPy's (``tests/ops/test_exp32.py``). Only float32/float64 arrays of one shape
and at least ``MIN_SIZE`` elements take them, each C-contiguous or one value broadcast (the
gradient of a ``sum()``); below that size a compiled call saves little.
``LEAFGRAD_NUMBA=0`` turns them off.
"""

from __future__ import annotations

import functools
import math
import os
import threading

import numpy as np

from . import _erf32

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


def _kernels_for(array) -> _Kernels:
    """The compiled kernels of ``array``'s dtype."""
    kernels = _kernels.get(array.dtype.char)
    if kernels is None:
        with _compiling:  # one thread defines them (and numba's overloads) once
            kernels = _kernels.get(array.dtype.char)
            if kernels is None:
                kernels = _kernels[array.dtype.char] = _compile(_numba, array.dtype.type)
    return kernels


_compiling = threading.Lock()


def jit(fn, signature=None):
    """``fn`` compiled by numba (where ``available()``), without the GIL, cached on disk
    where anywhere is writable (uncached in a read-only install). NumPy's error model: a
    division by zero gives inf or NaN as in NumPy, where numba's default checks every
    division and raises, which also keeps LLVM from vectorising a loop that divides (GELU's
    forward: 7x slower). With a ``signature``: compiled now, for those types only."""
    options = {"nogil": True, "error_model": "numpy"}
    decorate = _numba.njit if signature is None else functools.partial(_numba.njit, signature)
    try:
        return decorate(cache=True, **options)(fn)
    except RuntimeError:
        return decorate(**options)(fn)


def _operand(a):
    """A C-contiguous array as it is; a broadcast one as its one value."""
    return a if a.flags.c_contiguous else a.flat[0]


# Each takes arrays that ``fusable`` accepted, the first of them as listed there.
def tanh_backward(g, y) -> np.ndarray:
    """``g * (1 - y * y)`` (``fusable(y, g)``)."""
    return _kernels_for(y).tanh_backward(np.empty_like(y), y, _operand(g))


def tanh_output_grad(grad, g, y) -> np.ndarray:
    """``grad * (y * g) * -2``, tanh_backward's VJP in ``y`` (``fusable(y, grad, g)``)."""
    return _kernels_for(y).tanh_output_grad(np.empty_like(y), y, _operand(grad), _operand(g))


def sigmoid_backward(g, y) -> np.ndarray:
    """``g * (1 - y) * y`` (``fusable(y, g)``)."""
    return _kernels_for(y).sigmoid_backward(np.empty_like(y), y, _operand(g))


def sigmoid_output_grad(grad, g, y) -> np.ndarray:
    """``grad * g * (y * -2 + 1)``, sigmoid_backward's VJP in ``y`` (``fusable(y, grad,
    g)``)."""
    return _kernels_for(y).sigmoid_output_grad(np.empty_like(y), y, _operand(grad), _operand(g))


def threshold_backward(grad, x) -> np.ndarray:
    """``0 where x <= 0 else grad``, relu's backward: a NaN ``x`` passes ``grad``
    (``fusable(x, grad)``)."""
    return _kernels_for(x).threshold_backward(np.empty_like(x), x, _operand(grad))


def leaky_relu_backward(grad, x, negative_slope) -> np.ndarray:
    """``grad where x > 0 else grad * slope``, the slope rounded to the dtype first, as a
    Python number meeting an array in NumPy (``fusable(x, grad)``)."""
    slope = x.dtype.type(negative_slope)
    return _kernels_for(x).leaky_relu_backward(np.empty_like(x), x, _operand(grad), slope)


def leaky_relu(x, negative_slope) -> np.ndarray:
    """``x where x > 0 else x * slope``, PyTorch's formula, the slope rounded to the dtype
    first (``fusable(x)``)."""
    return _kernels_for(x).leaky_relu(np.empty_like(x), x, x.dtype.type(negative_slope))


# The kernels below finish a pass NumPy began (its vectorised exp, which numba would call
# scalar from libm, ~7x slower, with other roundings): they take that pass's fresh array
# ``e`` and write the result into it, so the op makes one buffer where NumPy's passes make
# it and its intermediate values in two or three.
def silu(x, e) -> np.ndarray:
    """``x / (e + 1)`` from ``e = exp(-x)`` (``_silu_forward``'s order), into ``e``
    (``fusable(x, e)``)."""
    return _kernels_for(x).silu(x, e)


def silu_backward(grad, x, e) -> np.ndarray:
    """``(grad s) (1 + x (1 - s))`` with ``s = 1 / (e + 1)`` from ``e = exp(-x)``, in
    ``_silu_vjp``'s order, into ``e`` (``fusable(x, grad, e)``)."""
    return _kernels_for(x).silu_backward(x, _operand(grad), e)


def silu32(x) -> np.ndarray:
    """``x / (exp(-x) + 1)`` in one pass, ``exp`` inlined (``_exp32``; float32 ``fusable(x)``)."""
    return _kernels_for(x).silu32(np.empty_like(x), x)


def sigmoid32(x) -> np.ndarray:
    """``1 / (exp(-x) + 1)`` in one pass, ``exp`` inlined (``_exp32``; float32 ``fusable(x)``)."""
    return _kernels_for(x).sigmoid32(np.empty_like(x), x)


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
    return _kernels_for(x).silu32_backward(np.empty_like(x), x, _operand(grad))


def softplus(x, soft, beta, threshold) -> np.ndarray:
    """``x where x beta > threshold else soft / beta`` from ``soft = log1p(exp(x beta))``
    (``_softplus_forward``'s select), into ``soft``; ``beta`` and ``threshold`` rounded to
    the dtype as NumPy rounds a Python number meeting an array (``fusable(x, soft)``)."""
    c = x.dtype.type
    return _kernels_for(x).softplus(x, soft, c(beta), c(threshold))


def softplus_backward(grad, x, z, beta, threshold) -> np.ndarray:
    """``grad where x beta > threshold else grad z / (z + 1)`` from ``z = exp(x beta)``
    (PyTorch's CPU softplus_backward), into ``z`` (``fusable(x, grad, z)``)."""
    c = x.dtype.type
    return _kernels_for(x).softplus_backward(x, _operand(grad), z, c(beta), c(threshold))


def softplus_backward32(grad, x, beta, threshold) -> np.ndarray:
    """``softplus_backward`` with ``z = exp(x beta)`` computed in the pass (``_exp32``'s exp;
    float32 ``fusable(x, grad)``)."""
    c = x.dtype.type
    return _kernels_for(x).softplus_backward32(
        np.empty_like(x), x, _operand(grad), c(beta), c(threshold)
    )


def exp_minus_abs(z) -> tuple:
    """``(e, 1 + e)`` with ``e = exp(-|z|)``, in one pass (``_exp32``'s exp; float32
    ``fusable(z)``)."""
    e, u = np.empty_like(z), np.empty_like(z)
    _kernels_for(z).exp_minus_abs(z, e, u)
    return e, u


def log1p_exp_finish(z, e, out) -> np.ndarray:
    """``max(z, 0) + log1p(e)`` into ``out`` from ``e = exp(-|z|)`` and ``out = log(1 + e)``:
    Goldberg's ``log1p(e) = log(u) e / (u - 1)`` with ``u = 1 + e`` (``e`` where ``u - 1``
    is 0), each step rounded as ``activations._log1p_exp_goldberg``'s NumPy passes round it
    (``fusable(z, e, out)``)."""
    return _kernels_for(z).log1p_exp_finish(z, e, out)


def erf32(x) -> np.ndarray:
    """``_erf32.erf32(x)`` in one pass, its operations on each value (float32
    ``float32_at_any_size(x)``)."""
    return _kernels_for(x).erf32(np.empty_like(x), x)


def _derivative_arrays(x) -> tuple:
    """``(d1, d2, d3)`` to fill: three arrays, ``d3`` unwritten (and untouched) without
    ``third``. (``d2`` standing in for it left the loops scalar: LLVM's overlap check on the
    two fails, 4x slower.)"""
    return np.empty_like(x), np.empty_like(x), np.empty_like(x)


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
    return _kernels_for(x).gelu_erf(np.empty_like(x), x)


def gelu_erf_backward(grad, x) -> np.ndarray:
    """``(cdf + e * INV_SQRT_2PI * x) * grad`` with ``cdf = (1 + erf32(x M_SQRT1_2)) * 0.5``
    and ``e = exp(x x -0.5)``, in ``_gelu_backward_forward``'s order, in one pass (float32
    ``float32_at_any_size(x)``, ``grad`` of its shape, C-contiguous or one broadcast value):
    ``_exp32``'s exp, where NumPy's took three passes of their own."""
    return _kernels_for(x).gelu_erf_backward(np.empty_like(x), x, _operand(grad))


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
    return kernels.row_add_into(x, b) if into else kernels.row_add(np.empty_like(x), x, b)


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


class _Kernels:
    """One dtype's compiled loops (attributes set by ``_compile``)."""


def _flat(a, n):
    """A C-contiguous array as a flat view of its ``n`` elements; a number as it is."""
    return a.reshape(n) if isinstance(a, np.ndarray) else a


def _element(a, i):
    """``a[i]`` of a flat array; ``a`` itself of a number (a broadcast operand)."""
    return a[i] if isinstance(a, np.ndarray) else a


_overloaded = []


def _compile(numba, dtype) -> _Kernels:
    """The loops for ``dtype``, its constants frozen in (numba compiles each per operand
    kinds, array or number, on first call; ``cache``: once per machine). Each writes into
    an array it is given and returns it: a fresh ``np.empty_like`` of its first operand (the
    result's shape), or the NumPy pass's buffer (silu's and softplus'). Why not allocate
    inside: an array numba makes carries a dtype object of its own, equal to NumPy's but not
    the same object, and it spreads to every result computed from it, failing the cheap
    ``dtype is`` tests of leafgrad's fast paths (the flat Adam step ran per parameter)."""
    from numba.extending import overload, register_jitable  # why: optional, loaded by _load

    if not _overloaded:  # _flat and _element for numba, chosen by the operand's type

        @overload(_flat)
        def _flat_compiled(a, n):
            if isinstance(a, numba.types.Array):
                return lambda a, n: a.reshape(n)
            return lambda a, n: a

        @overload(_element)
        def _element_compiled(a, i):
            if isinstance(a, numba.types.Array):
                return lambda a, i: a[i]
            return lambda a, i: a

        _overloaded.extend((_flat_compiled, _element_compiled))

    at, flat = _element, _flat
    zero, one, minus_two = dtype(0), dtype(1), dtype(-2)

    @jit
    def tanh_backward(out, y, g):
        n = out.size
        o, y, g = out.reshape(n), y.reshape(n), flat(g, n)
        for i in range(n):
            o[i] = at(g, i) * (one - y[i] * y[i])
        return out

    @jit
    def tanh_output_grad(out, y, grad, g):
        n = out.size
        o, y, grad, g = out.reshape(n), y.reshape(n), flat(grad, n), flat(g, n)
        for i in range(n):
            o[i] = at(grad, i) * (y[i] * at(g, i)) * minus_two
        return out

    @jit
    def sigmoid_backward(out, y, g):
        n = out.size
        o, y, g = out.reshape(n), y.reshape(n), flat(g, n)
        for i in range(n):
            o[i] = at(g, i) * (one - y[i]) * y[i]
        return out

    @jit
    def sigmoid_output_grad(out, y, grad, g):
        n = out.size
        o, y, grad, g = out.reshape(n), y.reshape(n), flat(grad, n), flat(g, n)
        for i in range(n):
            o[i] = at(grad, i) * at(g, i) * (y[i] * minus_two + one)
        return out

    @jit
    def threshold_backward(out, x, grad):
        n = out.size
        o, x, grad = out.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            o[i] = zero if x[i] <= zero else at(grad, i)
        return out

    @jit
    def leaky_relu_backward(out, x, grad, slope):
        n = out.size
        o, x, grad = out.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            o[i] = at(grad, i) if x[i] > zero else at(grad, i) * slope
        return out

    @jit
    def leaky_relu(out, x, slope):
        n = out.size
        o, x = out.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = x[i] if x[i] > zero else x[i] * slope
        return out

    @jit
    def silu(x, e):
        n = e.size
        o, x = e.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = x[i] / (o[i] + one)
        return e

    @jit
    def silu_backward(x, grad, e):
        n = e.size
        o, x, grad = e.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            s = one / (o[i] + one)
            o[i] = (at(grad, i) * s) * ((one - s) * x[i] + one)
        return e

    @jit
    def log1p_exp_finish(z, e, out):
        n = out.size
        o, z, e = out.reshape(n), z.reshape(n), e.reshape(n)
        for i in range(n):
            d = (one + e[i]) - one  # what was added to 1, exactly
            r = e[i] if d == zero else o[i] * e[i] / d
            o[i] = r + (z[i] if z[i] > zero else zero)  # (a NaN z: e and r are NaN)
        return out

    @jit
    def softplus(x, soft, beta, threshold):
        n = soft.size
        o, x = soft.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = x[i] if x[i] * beta > threshold else o[i] / beta
        return soft

    @jit
    def softplus_backward(x, grad, z, beta, threshold):
        n = z.size
        o, x, grad = z.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            g = at(grad, i)
            o[i] = g if x[i] * beta > threshold else g * o[i] / (o[i] + one)
        return z

    sqrt1_2, inv_sqrt_2pi, half = (
        dtype(math.sqrt(0.5)),
        dtype(1 / math.sqrt(2 * math.pi)),
        dtype(0.5),
    )

    p0, p1, p2, p3, p4, p5, p6 = _erf32.P  # Horner's steps written out below, in
    q0, q1, q2, q3, q4, q5 = _erf32.Q  # _erf32._horner's order
    limit = dtype(_erf32.LIMIT)

    @register_jitable
    def erf_value(t):
        """``erf32(t)``: ``_erf32._block``'s operations on one value."""
        t = limit if t > limit else (-limit if t < -limit else t)  # the clip (NaN passes)
        s = t * t
        num = (((((s * p0 + p1) * s + p2) * s + p3) * s + p4) * s + p5) * s + p6
        den = ((((s * q0 + q1) * s + q2) * s + q3) * s + q4) * s + q5
        r = (num * t) / den
        return one if r > one else (-one if r < -one else r)

    @register_jitable
    def erf_term(x):
        """``1 + erf32(x M_SQRT1_2)``."""
        return erf_value(x * sqrt1_2) + one

    @jit
    def erf32(out, x):
        n = out.size
        o, x = out.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = erf_value(x[i])
        return out

    two, three, four, minus_six = dtype(2), dtype(3), dtype(4), dtype(-6)
    root_half = dtype(1 / math.sqrt(2))  # (jet_activations._gelu's constant)

    # The Taylor path's derivative formulas (``jet_activations``' operations, in their order)
    # at one value: (D1, D2, D3), D3 dropped by LLVM where a loop does not store it. Numbers
    # in and out: an array handed to a helper inside a loop costs reference counting there,
    # which kept the loops scalar (3x slower).
    @register_jitable
    def gelu_at(v, e, r):
        """GELU's at ``v`` from ``e = exp(v v -0.5)`` and ``r = erf(v / sqrt(2))``."""
        phi = e * inv_sqrt_2pi
        x2 = v * v
        return (one + r) * half + v * phi, phi * (two - x2), phi * (v * (x2 - four))

    @register_jitable
    def silu_at(v, s):
        """SiLU's at ``v`` from its sigmoid ``s``."""
        q = s * (one - s)
        s2 = q * (one + s * minus_two)
        return v * q + s, v * s2 + two * q, v * (q * (one + q * minus_six)) + three * s2

    @register_jitable
    def softplus_at(bx, s, beta, beta2, threshold):
        """softplus' at ``bx = x beta`` from the sigmoid ``s`` of ``bx``."""
        if bx > threshold:
            return one, zero, zero
        q = s * (one - s)
        return s, beta * q, beta2 * (q * (one + s * minus_two))

    @jit
    def gelu_derivatives_given(x, e, r, d1, d2, d3, third):
        n = x.size
        x, e, r = x.reshape(n), e.reshape(n), r.reshape(n)
        d1, d2, d3 = d1.reshape(n), d2.reshape(n), d3.reshape(n)
        for i in range(n):
            a, b, c = gelu_at(x[i], e[i], r[i])
            d1[i] = a
            d2[i] = b
            if third:
                d3[i] = c

    @jit
    def silu_derivatives(x, e, d1, d2, d3, third):
        n = x.size
        x, e, d1, d2, d3 = x.reshape(n), e.reshape(n), d1.reshape(n), d2.reshape(n), d3.reshape(n)
        for i in range(n):
            a, b, c = silu_at(x[i], one / (e[i] + one))
            d1[i] = a
            d2[i] = b
            if third:
                d3[i] = c

    @jit
    def softplus_derivatives(bx, e, d1, d2, d3, third, beta, beta2, threshold):
        n = bx.size
        bx, e, d1, d2, d3 = bx.reshape(n), e.reshape(n), d1.reshape(n), d2.reshape(n), d3.reshape(n)
        for i in range(n):
            s = one / (e[i] + one)
            a, b, c = softplus_at(bx[i], s, beta, beta2, threshold)
            d1[i] = a
            d2[i] = b
            if third:
                d3[i] = c

    @jit
    def gelu_erf(out, x):
        n = out.size
        o, x = out.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = erf_term(x[i]) * x[i] * half
        return out

    # Row by row, the inner loop over one row of ``b`` (LLVM vectorises it). A loop of its
    # own for ``into``: given ``x`` as ``out`` too, row_add's vector loop, which LLVM guards
    # by a run-time check that the two do not overlap, would fall back to its scalar one.
    @jit
    def row_add(out, x, b):
        k, n = b.size, x.size
        o, x = out.reshape(n), x.reshape(n)
        for row in range(n // k):
            start = row * k
            for j in range(k):
                o[start + j] = x[start + j] + b[j]
        return out

    @jit
    def row_add_into(x, b):
        k, n = b.size, x.size
        o = x.reshape(n)
        for row in range(n // k):
            start = row * k
            for j in range(k):
                o[start + j] += b[j]
        return x

    @jit
    def running(x, out, product, reverse):
        # x: (before, n, after), accumulated along n in float64 (PyTorch's acc_type for
        # float32). Along the last dim (after == 1) one scalar runs per row; otherwise one
        # accumulator per ``after`` column, so the inner loop walks contiguous memory.
        n, after = x.shape[1], x.shape[2]
        start = 1.0 if product else 0.0
        if after == 1:
            for b in range(x.shape[0]):
                total = start
                for t in range(n):
                    i = n - 1 - t if reverse else t
                    if product:
                        total *= x[b, i, 0]
                    else:
                        total += x[b, i, 0]
                    out[b, i, 0] = total
            return
        acc = np.empty(after, np.float64)
        for b in range(x.shape[0]):
            acc[:] = start
            for t in range(n):
                i = n - 1 - t if reverse else t
                for a in range(after):
                    if product:
                        acc[a] *= x[b, i, a]
                    else:
                        acc[a] += x[b, i, a]
                    out[b, i, a] = acc[a]

    if dtype is np.float32:
        from . import _exp32  # why: it compiles with this module's jit (a cycle at import)

        (sigmoid32, silu32, silu32_backward, softplus_backward32, exp_minus_abs) = _exp32.kernels(
            jit, flat, at
        )
        minus_half = dtype(-0.5)

        # The derivative passes with their exp (erf) inlined: the sigmoid as sigmoid32's.
        # (``_exp32.exp32`` through the module: see gelu_erf_backward.)
        @jit
        def gelu_derivatives(x, e, d1, d2, d3, third):
            n = x.size
            x, e = x.reshape(n), e.reshape(n)
            d1, d2, d3 = d1.reshape(n), d2.reshape(n), d3.reshape(n)
            for i in range(n):
                v = x[i]
                a, b, c = gelu_at(v, e[i], erf_value(v * root_half))
                d1[i] = a
                d2[i] = b
                if third:
                    d3[i] = c

        @jit
        def silu_derivatives32(x, d1, d2, d3, third):
            n = x.size
            x, d1, d2, d3 = x.reshape(n), d1.reshape(n), d2.reshape(n), d3.reshape(n)
            for i in range(n):
                v = x[i]
                a, b, c = silu_at(v, one / (_exp32.exp32(-v) + one))
                d1[i] = a
                d2[i] = b
                if third:
                    d3[i] = c

        @jit
        def softplus_derivatives32(x, d1, d2, d3, third, beta, beta2, threshold):
            n = x.size
            x, d1, d2, d3 = x.reshape(n), d1.reshape(n), d2.reshape(n), d3.reshape(n)
            for i in range(n):
                bx = x[i] * beta
                s = one / (_exp32.exp32(-bx) + one)
                a, b, c = softplus_at(bx, s, beta, beta2, threshold)
                d1[i] = a
                d2[i] = b
                if third:
                    d3[i] = c

        @jit
        def gelu_erf_backward(out, x, grad):
            n = out.size
            o, x, grad = out.reshape(n), x.reshape(n), flat(grad, n)
            for i in range(n):
                # (through the module: a closure's dispatcher would key numba's disk cache
                # differently in each process, and the loop would compile in every one)
                pdf = _exp32.exp32((x[i] * x[i]) * minus_half) * inv_sqrt_2pi * x[i]
                o[i] = (erf_term(x[i]) * half + pdf) * at(grad, i)
            return out

    kernels = _Kernels()
    for name, kernel in list(locals().items()):
        if isinstance(kernel, numba.core.dispatcher.Dispatcher):
            setattr(kernels, name, kernel)
    return kernels


__all__: list = []
