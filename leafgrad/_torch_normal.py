"""PyTorch's CPU normal kernels (Box-Muller over blocks of 16) and the float arithmetic its
kernels do that NumPy lacks: a fused multiply-add, the C library's ``log``.

Each transform exists twice: as NumPy passes (the reference, used without numba) and as one
compiled loop doing the same operations on each value in the same order, so the two give the
same bits (``tests/test_torch_normal.py``). Why compiled: the float32 transform is some 25
NumPy passes (9 ms for 256k values, against PyTorch's 0.6 ms), the float64 one calls ``log``
from Python once a value (21 ms).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from .ops import _fused

_F32 = np.float32
_F64 = np.float64


def libm(fn, values: np.ndarray) -> np.ndarray:
    """``fn`` of each value by Python's ``math`` (the C library, as PyTorch's kernels call
    it: NumPy's vectorised ``log`` and ``log1p`` differ in the last bit on some values)."""
    return np.fromiter(map(fn, values.ravel().tolist()), _F64, count=values.size)


def fma64(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once (a fused multiply-add), for float64 arrays: the product's
    rounding error by Dekker's split, added back with the sum's (NumPy has no ``fma``)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, _F64), np.asarray(b, _F64), np.asarray(c, _F64))
    return _fma64(a, b, c)


def _fma64(a, b, c):
    """``fma64`` on arrays of one shape or on numbers (the compiled loop's too)."""
    product = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    return total + (sum_error + product_error)


def _split(v):
    big = 134217729.0 * v  # 2^27 + 1: Veltkamp's split into two 26-bit halves
    hi = big - (big - v)
    return hi, v - hi


def _fma32(a, b, c) -> np.ndarray:
    """float32 ``a * b + c`` rounded once: the float64 product of two floats is exact. (The
    ufuncs cast the other float32 operands in their loops: one float64 copy, of the array, in
    which both steps run: 0.38 -> 0.28 ms on 128k values.)"""
    if np.ndim(a) == 0:  # a number times an array: the same product either way round
        a, b = b, a
    total = a.astype(_F64)
    total *= b
    total += c
    return total.astype(_F32)


def box_muller(blocks: np.ndarray, mean: float, std: float) -> None:
    """Rows of 16 uniforms (float32 or float64, C-contiguous (m, 16)) into normals, in
    place: PyTorch's ``normal_fill_16_AVX2`` (float32) or ``normal_fill_16`` (float64)."""
    if blocks.size >= _fused.MIN_SIZE and _fused.available():
        _loops()[blocks.dtype.char](blocks, blocks.dtype.type(mean), blocks.dtype.type(std))
    elif blocks.dtype == _F32:
        _box_muller_32(blocks, mean, std)
    else:
        _box_muller_64(blocks, mean, std)


# -- float32: the Cephes polynomials of ATen's avx_mathfun.h, with their fused multiply-adds --
_LOG_POLY = (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
)  # fmt: skip
_MIN_NORMAL = np.array(0x00800000, np.uint32).view(_F32)[()]  # (scalars: the loops read them)
_KEEP_MANTISSA = np.uint32(~0x7F800000 & 0xFFFFFFFF)
_HALF_BITS = np.array(0.5, _F32).view(np.uint32)[()]
_SQRT_HALF = _F32(0.707106781186547524)
_LOG_E, _LOG_HI = _F32(-2.12194440e-4), _F32(0.693359375)
_FOUR_OVER_PI = _F32(1.27323954473516)
_PI_PARTS = (_F32(-0.78515625), _F32(-2.4187564849853515625e-4), _F32(-3.77489497744594108e-8))
_COS_POLY = (_F32(2.443315711809948e-5), _F32(-1.388731625493765e-3), _F32(4.166664568298827e-2))
_SIN_POLY = (_F32(-1.9515295891e-4), _F32(8.3321608736e-3), _F32(-1.6666654611e-1))


def _cephes_log(x: np.ndarray) -> np.ndarray:
    x = np.maximum(x, _MIN_NORMAL)
    bits = x.view(np.uint32)
    e = ((bits >> 23).astype(np.int32) - 0x7F).astype(_F32) + _F32(1)
    x = ((bits & _KEEP_MANTISSA) | _HALF_BITS).view(_F32)
    below = x < _SQRT_HALF
    shift = np.where(below, x, _F32(0))
    x = x - _F32(1)
    e = e - below.astype(_F32)
    x = x + shift
    z = x * x
    y = np.full_like(x, _F32(_LOG_POLY[0]))
    for c in _LOG_POLY[1:]:
        y = _fma32(y, x, _F32(c))
    y = y * x
    y = _fma32(y, z, e * _LOG_E)
    y = _fma32(z, _F32(-0.5), y)
    return _fma32(e, _LOG_HI, x + y)


def _cephes_sincos(theta: np.ndarray):
    bits = theta.view(np.uint32)
    sign_sin = bits & np.uint32(0x80000000)
    x = (bits & np.uint32(0x7FFFFFFF)).view(_F32)
    octant = (x * _FOUR_OVER_PI).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(_F32)
    sign_sin = sign_sin ^ ((octant & 4).astype(np.uint32) << np.uint32(29))
    sign_cos = (~(octant - 2) & 4).astype(np.uint32) << np.uint32(29)
    use_sine = (octant & 2) == 0
    for c in _PI_PARTS:
        x = _fma32(y, c, x)
    z = x * x
    cos_poly = _fma32(_COS_POLY[0], z, _COS_POLY[1])
    cos_poly = _fma32(cos_poly, z, _COS_POLY[2])
    cos_poly = _fma32(cos_poly * z, z, -(z * _F32(0.5))) + _F32(1)
    sin_poly = _fma32(_SIN_POLY[0], z, _SIN_POLY[1])
    sin_poly = _fma32(sin_poly, z, _SIN_POLY[2])
    sin_poly = _fma32(sin_poly * z, x, x)
    sin = np.where(use_sine, sin_poly, cos_poly)
    cos = np.where(use_sine, cos_poly, sin_poly)
    return (sin.view(np.uint32) ^ sign_sin).view(_F32), (cos.view(np.uint32) ^ sign_cos).view(_F32)


def _box_muller_32(blocks: np.ndarray, mean: float, std: float) -> None:
    radius = np.sqrt(_F32(-2) * _cephes_log(_F32(1) - blocks[:, :8]))
    sin, cos = _cephes_sincos(_F32(2.0 * math.pi) * blocks[:, 8:])
    blocks[:, :8] = _fma32(radius * cos, _F32(std), _F32(mean))
    blocks[:, 8:] = _fma32(radius * sin, _F32(std), _F32(mean))


def _box_muller_64(blocks: np.ndarray, mean: float, std: float) -> None:
    """The log is the C library's (``math.log``): NumPy's vectorised one differs in the last
    bit on about 1 value in 600; its cos and sin agree."""
    radius = np.sqrt(-2.0 * libm(math.log, 1.0 - blocks[:, :8]).reshape(-1, 8))
    theta = 2.0 * math.pi * blocks[:, 8:]
    blocks[:, :8] = fma64(radius * np.cos(theta), std, mean)
    blocks[:, 8:] = fma64(radius * np.sin(theta), std, mean)


# -- the compiled loops: the NumPy passes above, value by value --------------------------------
def _fma32_value(a, b, c):
    return _F32(_F64(a) * _F64(b) + _F64(c))


def _cephes_log_value(x):
    """``_cephes_log`` of one float32."""
    bits = _float_bits(max(x, _MIN_NORMAL))
    e = _F32(np.int32(bits >> 23) - np.int32(0x7F)) + _F32(1)
    x = _bits_float(np.uint32((bits & _KEEP_MANTISSA) | _HALF_BITS))
    below = x < _SQRT_HALF
    shift = x if below else _F32(0)
    x = x - _F32(1)
    e = e - (_F32(1) if below else _F32(0))
    x = x + shift
    z = x * x
    y = _F32(_LOG_POLY[0])
    for c in _LOG_POLY[1:]:
        y = _fma32_value(y, x, _F32(c))
    y = y * x
    y = _fma32_value(y, z, e * _LOG_E)
    y = _fma32_value(z, _F32(-0.5), y)
    return _fma32_value(e, _LOG_HI, x + y)


def _cephes_sincos_value(theta):
    bits = _float_bits(theta)
    sign_sin = bits & np.uint32(0x80000000)
    x = _bits_float(np.uint32(bits & np.uint32(0x7FFFFFFF)))
    octant = np.int32(x * _FOUR_OVER_PI)
    octant = (octant + np.int32(1)) & np.int32(~1)
    y = _F32(octant)
    sign_sin = np.uint32(sign_sin ^ (np.uint32(octant & np.int32(4)) << np.uint32(29)))
    sign_cos = np.uint32(np.uint32(~(octant - np.int32(2)) & np.int32(4)) << np.uint32(29))
    use_sine = (octant & np.int32(2)) == 0
    for c in _PI_PARTS:
        x = _fma32_value(y, c, x)
    z = x * x
    cos_poly = _fma32_value(_COS_POLY[0], z, _COS_POLY[1])
    cos_poly = _fma32_value(cos_poly, z, _COS_POLY[2])
    cos_poly = _fma32_value(cos_poly * z, z, -(z * _F32(0.5))) + _F32(1)
    sin_poly = _fma32_value(_SIN_POLY[0], z, _SIN_POLY[1])
    sin_poly = _fma32_value(sin_poly, z, _SIN_POLY[2])
    sin_poly = _fma32_value(sin_poly * z, x, x)
    sin = sin_poly if use_sine else cos_poly
    cos = cos_poly if use_sine else sin_poly
    sin = _bits_float(np.uint32(_float_bits(sin) ^ sign_sin))
    return sin, _bits_float(np.uint32(_float_bits(cos) ^ sign_cos))


def _normal_32(blocks, mean, std):
    two_pi = _F32(2.0 * math.pi)
    for b in range(blocks.shape[0]):
        for j in range(8):
            u1, u2 = blocks[b, j], blocks[b, j + 8]
            radius = np.sqrt(_F32(-2) * _cephes_log_value(_F32(1) - u1))
            sin, cos = _cephes_sincos_value(two_pi * u2)
            blocks[b, j] = _fma32_value(radius * cos, std, mean)
            blocks[b, j + 8] = _fma32_value(radius * sin, std, mean)


def _normal_64(blocks, mean, std):
    two_pi = 2.0 * math.pi
    for b in range(blocks.shape[0]):
        for j in range(8):
            u1, u2 = blocks[b, j], blocks[b, j + 8]
            radius = np.sqrt(-2.0 * math.log(1.0 - u1))
            theta = two_pi * u2
            blocks[b, j] = _fma64(radius * math.cos(theta), std, mean)
            blocks[b, j + 8] = _fma64(radius * math.sin(theta), std, mean)


# A float32's bits and back, in the loops: numba intrinsics (LLVM bitcasts), set by _loops.
_float_bits = _bits_float = None
_compiled: dict = {}
_compiling = threading.Lock()


def _loops() -> dict:
    """dtype char -> the compiled transform (``box_muller`` checked that numba is there)."""
    global _float_bits, _bits_float
    if not _compiled:
        with _compiling:
            if not _compiled:
                from llvmlite import ir  # why: numba's, optional (see _fused)
                from numba.core import types  # why: optional
                from numba.extending import intrinsic, register_jitable  # why: optional

                def bitcast(source, target, width):
                    def typer(typingctx, value):
                        def codegen(context, builder, signature, args):
                            return builder.bitcast(args[0], width)

                        return target(source), codegen

                    return intrinsic(typer)

                _float_bits = bitcast(types.float32, types.uint32, ir.IntType(32))
                _bits_float = bitcast(types.uint32, types.float32, ir.FloatType())
                for helper in (_fma64, _split, _fma32_value, _cephes_log_value):
                    register_jitable(helper)
                register_jitable(_cephes_sincos_value)
                _compiled.update(f=_fused.jit(_normal_32), d=_fused.jit(_normal_64))
    return _compiled


__all__: list = []
