"""The compiled loops behind ``_fused``'s functions, one set per float dtype (numba).

Kept apart from ``_fused`` so that module can be compiled by Cython (its functions run in
every step of a large batch's backward) while these stay Python functions for numba to
compile: ``_flat`` and ``_element`` are overloaded for numba by their function objects.
"""

from __future__ import annotations

import math

import numpy as np

from . import _erf32
from ._fused import jit


class _Kernels:
    """One dtype's compiled loops (attributes set by ``compile_for``)."""


def _flat(a, n):
    """A C-contiguous array as a flat view of its ``n`` elements; a number as it is."""
    return a.reshape(n) if isinstance(a, np.ndarray) else a


def _element(a, i):
    """``a[i]`` of a flat array; ``a`` itself of a number (a broadcast operand)."""
    return a[i] if isinstance(a, np.ndarray) else a


_overloaded = []


def compile_for(numba, dtype) -> _Kernels:
    """The loops for ``dtype``, its constants frozen in (numba compiles each per operand
    kinds, array or number, on first call; ``cache``: once per machine). Each writes into
    an array it is given and returns nothing (numba boxes an array it returns: ~0.4 us a
    call, half the call): a fresh array of its first operand's shape and dtype (the
    result's), or the NumPy pass's buffer (silu's and softplus'). Why not allocate inside: an
    array numba makes carries a dtype object of its own, equal to NumPy's but not the same
    object, and it spreads to every result computed from it, failing the cheap ``dtype is``
    tests of leafgrad's fast paths (the flat Adam step ran per parameter)."""
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

    @jit
    def tanh_output_grad(out, y, grad, g):
        n = out.size
        o, y, grad, g = out.reshape(n), y.reshape(n), flat(grad, n), flat(g, n)
        for i in range(n):
            o[i] = at(grad, i) * (y[i] * at(g, i)) * minus_two

    @jit
    def sigmoid_backward(out, y, g):
        n = out.size
        o, y, g = out.reshape(n), y.reshape(n), flat(g, n)
        for i in range(n):
            o[i] = at(g, i) * (one - y[i]) * y[i]

    @jit
    def sigmoid_output_grad(out, y, grad, g):
        n = out.size
        o, y, grad, g = out.reshape(n), y.reshape(n), flat(grad, n), flat(g, n)
        for i in range(n):
            o[i] = at(grad, i) * at(g, i) * (y[i] * minus_two + one)

    @jit
    def threshold_backward(out, x, grad):
        n = out.size
        o, x, grad = out.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            o[i] = zero if x[i] <= zero else at(grad, i)

    @jit
    def leaky_relu_backward(out, x, grad, slope):
        n = out.size
        o, x, grad = out.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            o[i] = at(grad, i) if x[i] > zero else at(grad, i) * slope

    @jit
    def leaky_relu(out, x, slope):
        n = out.size
        o, x = out.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = x[i] if x[i] > zero else x[i] * slope

    @jit
    def silu(x, e):
        n = e.size
        o, x = e.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = x[i] / (o[i] + one)

    @jit
    def silu_backward(x, grad, e):
        n = e.size
        o, x, grad = e.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            s = one / (o[i] + one)
            o[i] = (at(grad, i) * s) * ((one - s) * x[i] + one)

    @jit
    def log1p_exp_finish(z, e, out):
        n = out.size
        o, z, e = out.reshape(n), z.reshape(n), e.reshape(n)
        for i in range(n):
            d = (one + e[i]) - one  # what was added to 1, exactly
            r = e[i] if d == zero else o[i] * e[i] / d
            o[i] = r + (z[i] if z[i] > zero else zero)  # (a NaN z: e and r are NaN)

    @jit
    def softplus(x, soft, beta, threshold):
        n = soft.size
        o, x = soft.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = x[i] if x[i] * beta > threshold else o[i] / beta

    @jit
    def softplus_backward(x, grad, z, beta, threshold):
        n = z.size
        o, x, grad = z.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            g = at(grad, i)
            o[i] = g if x[i] * beta > threshold else g * o[i] / (o[i] + one)

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

    @jit
    def row_add_into(x, b):
        k, n = b.size, x.size
        o = x.reshape(n)
        for row in range(n // k):
            start = row * k
            for j in range(k):
                o[start + j] += b[j]

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

    kernels = _Kernels()
    for name, kernel in list(locals().items()):
        if isinstance(kernel, numba.core.dispatcher.Dispatcher):
            setattr(kernels, name, kernel)
    return kernels


__all__: list = []
