"""A float32 ``exp`` that vectorises inside numba's loops (the softmax rows; sigmoid, silu,
and GELU's and softplus' backwards).

Why: numba's ``math.exp`` is libm's scalar call (2.3 ns an element, 5x NumPy's; no SVML
in pip's llvmlite), and NumPy's vectorised ``exp`` is a pass of its own through memory,
where PyTorch's kernels call Sleef's inside their one pass. Here ``exp(x) = 2^n (1 + r +
r^2 P(r))`` with ``r = x - n ln 2`` (Cody-Waite's two-part ln 2, Cephes's degree-5 ``P``),
evaluated in float32 without FMAs, ``2^n`` as two exponent-bit factors so a subnormal
result is rounded once: within 1 ulp of the correctly rounded exp on [-110, 90] (NumPy's own
float32 exp: 2 ulp; PyTorch's Sleef: 1), NaN and infinities as ``np.exp``'s
(``tests/ops/test_softmax_rows.py``). Not NumPy's bits: only float32 kernels that would
otherwise run NumPy's exp as a pass of its own use it.
"""

from __future__ import annotations

import numpy as np

# why: imported only where numba is there (``_fused``'s and the softmax rows' kernels), and
# at module level so that the loops calling these compile into numba's disk cache (an
# intrinsic made inside a function pickles differently in each process: every process
# compiled them again, ~1 s)
from numba import types
from numba.extending import intrinsic

from . import _fused

_f32, _i32 = np.float32, np.int32
LOG2E, LN2_HI, LN2_LO = _f32(1.4426950408889634), _f32(0.693359375), _f32(-2.12194440e-4)
P0, P1, P2 = _f32(1.9875691500e-4), _f32(1.3981999507e-3), _f32(8.3334519073e-3)
P3, P4, P5 = _f32(4.1665795894e-2), _f32(1.6666665459e-1), _f32(5.0000001201e-1)
LOWEST, HIGHEST = _f32(-104.0), _f32(89.0)  # exp rounds to 0 / inf beyond
ROUNDER = _f32(12582912.0)  # 1.5 * 2^23: adding it rounds to an integer
ONE, BIAS = _f32(1.0), _i32(127)


@intrinsic
def as_float(typingctx, bits):
    """The float32 whose bits are the int32 ``bits``."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float32))

    return types.float32(types.int32), codegen


@_fused.jit
def exp32(x):
    """``exp(x)`` of a float32, as above."""
    x = min(max(x, LOWEST), HIGHEST)  # (a NaN stays NaN)
    n = (x * LOG2E + ROUNDER) - ROUNDER
    r = x - n * LN2_HI
    r = r - n * LN2_LO
    p = ((((P0 * r + P1) * r + P2) * r + P3) * r + P4) * r + P5
    y = p * (r * r) + r + ONE
    k = _i32(n)
    half = k >> 1
    return y * as_float((half + BIAS) << 23) * as_float((k - half + BIAS) << 23)


def kernels(jit, flat, at) -> tuple:
    """float32 loops, each one pass where NumPy's are three or four (negate, exp, finish):
    ``sigmoid32(out, x)`` writes ``1 / (e + 1)``, ``silu32(out, x)`` ``x / (e + 1)`` and
    ``silu32_backward(out, x, grad)`` ``(grad s) ((1 - s) x + 1)`` with ``s = 1 / (e + 1)``,
    ``e = exp32(-x)``; ``softplus_backward32(out, x, grad, beta, threshold)`` ``grad`` where
    ``x beta > threshold``, else ``grad z / (z + 1)`` with ``z = exp32(x beta)``;
    ``exp_minus_abs(z, e, u)`` ``e = exp32(-|z|)`` and ``u = e + 1`` (softplus' Goldberg
    ``log1p``). PyTorch's CPU formulas, in ``activations``' orders. (256, 1000) silu
    forward 228 us against NumPy's passes' 440 and PyTorch's 249 (medians of interleaved
    calls, one thread of this project's 2-core AMD EPYC, AVX2). Within 2 ulp of the correctly
    rounded silu (``tests/ops/test_exp32.py``), as NumPy's passes (3 ulp) and PyTorch's are."""
    one = ONE

    @jit
    def sigmoid32(out, x):
        n = out.size
        o, x = out.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = one / (exp32(-x[i]) + one)

    @jit
    def silu32(out, x):
        n = out.size
        o, x = out.reshape(n), x.reshape(n)
        for i in range(n):
            o[i] = x[i] / (exp32(-x[i]) + one)

    @jit
    def silu32_backward(out, x, grad):
        n = out.size
        o, x, grad = out.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            s = one / (exp32(-x[i]) + one)
            o[i] = (at(grad, i) * s) * ((one - s) * x[i] + one)

    @jit
    def softplus_backward32(out, x, grad, beta, threshold):
        n = out.size
        o, x, grad = out.reshape(n), x.reshape(n), flat(grad, n)
        for i in range(n):
            g = at(grad, i)
            bx = x[i] * beta
            z = exp32(bx)
            o[i] = g if bx > threshold else g * z / (z + one)

    @jit
    def exp_minus_abs(z, e, u):
        n = z.size
        z, e, u = z.reshape(n), e.reshape(n), u.reshape(n)
        for i in range(n):
            v = exp32(-abs(z[i]))
            e[i] = v
            u[i] = v + one

    return sigmoid32, silu32, silu32_backward, softplus_backward32, exp_minus_abs


__all__: list = []
