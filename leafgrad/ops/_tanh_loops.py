"""``tanh`` of float32 and float64 arrays in one compiled pass that vectorises (numba):
tanh is the PINN activation, and a tanh network's float PINN step spent a sixth of its time
in it (Burgers, 1e4 points, float32: 15%).

Why hand-written: PyTorch's CPU wheels and ``_vml`` take MKL's VML, whose kernels on AMD
CPUs are its generic ones (a (1e4, 20) float32 tanh 654 us, float64 (1e3, 20) 120 us, one
thread of this project's 2-core AMD EPYC), NumPy's are slower still (530 and 270 us), and
numba's ``math.tanh`` is libm's scalar call. These loops take 240-260 and 43 us there. Cephes'
formulas: ``x + x^3 P(x^2)`` (float32) or ``x + x^3 P(x^2) / Q(x^2)`` (float64) below
|x| = 0.625, else ``1 - 2 / (exp(2|x|) + 1)``, both branches computed and one kept (so the
loop vectorises), on |x| with x's sign copied last (odd, -0.0 kept). ``exp``: ``_exp32``'s for
float32; for float64 Cephes' Pade form ``2^n (1 + 2 r P(r^2) / (Q(r^2) - r P(r^2)))``, |x|
clamped to 20 first (tanh rounds to 1 from 19.1). Within 1.4 ulp of the exact tanh in float64
and 1.3 ulp in float32 (VML's: 1 ulp; ``tests/ops/test_tanh_loops.py``); NaN stays NaN,
+-inf give +-1. Not VML's bits: PyTorch's values to round-off, as its other float kernels.
Imported only where numba is there (``_vml.tanh``); module-level loops, so they load from
numba's disk cache (``_softmax_loops``)."""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import types
from numba.extending import intrinsic

from . import _fused
from ._exp32 import exp32

contract_jit = functools.partial(_fused.jit, contract=True)
_f32 = np.float32

# float32 (Cephes tanhf): tanh x = x + x^3 (((F0 z + F1) z + F2) z + F3) z + F4), z = x^2
F0, F1, F2 = _f32(-5.70498872745e-3), _f32(2.06390887954e-2), _f32(-5.37397155531e-2)
F3, F4 = _f32(1.33314422036e-1), _f32(-3.33332819422e-1)
ONE32, TWO32, SMALL32 = _f32(1.0), _f32(2.0), _f32(0.625)

# float64 (Cephes tanh): tanh x = x + x^3 P(z) / Q(z), z = x^2, Q monic
P0, P1, P2 = -9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3
Q1, Q2, Q3 = 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3
# float64 exp (Cephes exp): exp r = 1 + 2 r E(r^2) / (D(r^2) - r E(r^2)), |r| <= ln(2) / 2
E0, E1, E2 = 1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1
D0, D1, D2, D3 = (
    3.00198505138664455042e-6,
    2.52448340349684104192e-3,
    2.27265548208155028766e-1,
    2.00000000000000000009e0,
)
LN2_HI, LN2_LO, LOG2E = 6.93145751953125e-1, 1.42860682030941723212e-6, 1.4426950408889634
ROUNDER = 6755399441055744.0  # 1.5 * 2^52: adding it rounds to an integer
CLAMP64 = 20.0  # tanh(x) rounds to 1 in float64 from x = 19.1
SMALL64 = 0.625


@intrinsic
def as_double(typingctx, bits):
    """The float64 whose bits are the int64 ``bits``."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return types.float64(types.int64), codegen


@intrinsic
def bits_of(typingctx, x):
    """The int64 whose bits are the float64 ``x``."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))

    return types.int64(types.float64), codegen


# Both loops let LLVM fuse multiply-adds (``_fused.jit``'s ``contract``): measured on this
# project's AMD EPYC (Zen 3), one thread, (1e3, 20) float64 63 -> 43 us with the bit trick
# below, (1e4, 20) float32 278 -> 240-263 us; the largest error on 25,000 points over [-25,
# 25] unchanged (float64 1.35 ulp against a 120-bit tanh, float32 1.25).
@contract_jit
def tanh32_of(x):
    """tanh of a float32, as above."""
    a = abs(x)
    z = a * a
    small = ((((F0 * z + F1) * z + F2) * z + F3) * z + F4) * z * a + a
    big = ONE32 - TWO32 / (exp32(a + a) + ONE32)
    return math.copysign(small if a < SMALL32 else big, x)


@contract_jit
def tanh64_of(x):
    """tanh of a float64, as above."""
    a = min(abs(x), CLAMP64)  # (a NaN stays NaN)
    z = a * a
    small = a + a * z * (((P0 * z + P1) * z + P2) / (((z + Q1) * z + Q2) * z + Q3))
    t = a + a
    rounded = t * LOG2E + ROUNDER  # n in its low bits
    n = rounded - ROUNDER
    r = t - n * LN2_HI
    r = r - n * LN2_LO
    rr = r * r
    p = r * ((E0 * rr + E1) * rr + E2)
    q = ((D0 * rr + D1) * rr + D2) * rr + D3
    # 2^n from rounded's bits: AVX2 has no vector float64 -> int64 conversion (np.int64(n)
    # ran as four scalar ones); the shift drops ROUNDER's own bits (0 <= n <= 58)
    e = (1.0 + 2.0 * p / (q - p)) * as_double((bits_of(rounded) + 1023) << 52)
    big = 1.0 - 2.0 / (e + 1.0)
    return math.copysign(small if a < SMALL64 else big, x)


@contract_jit
def tanh32(out, x):
    """``out = tanh(x)``, both float32 and C-contiguous, of one shape."""
    n = out.size
    o, v = out.reshape(n), x.reshape(n)
    for i in range(n):
        o[i] = tanh32_of(v[i])


@contract_jit
def tanh64(out, x):
    """``out = tanh(x)``, both float64 and C-contiguous, of one shape."""
    n = out.size
    o, v = out.reshape(n), x.reshape(n)
    for i in range(n):
        o[i] = tanh64_of(v[i])
