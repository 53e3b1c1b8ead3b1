"""PyTorch's CPU normal kernels (Box-Muller over blocks of 16) and the float arithmetic its
kernels do that NumPy lacks: a fused multiply-add, the C library's ``log``.

Each transform exists twice: as NumPy passes on uniforms (the reference, used without numba)
and as one compiled loop on the engine's words, which makes each uniform and does the same
operations on it in the same order, so the two give the same bits
(``tests/test_torch_normal.py``). The float32 loop's fused multiply-adds are the hardware's
(``llvm.fma``, as PyTorch's ``_mm256_fmadd_ps``), the reference's a float64 product (exact)
and sum rounded to float32: the two agree on every one of the 2^24 float32 uniforms, as
``log`` argument and as angle. Why compiled: the float32 transform is some 25 NumPy passes
(9 ms for 256k values, against PyTorch's 0.6 ms), the float64 one calls ``log`` from Python
once a value (21 ms); the loop over eight pairs of a block vectorises (one iteration a
block, ~0.27 ms for 256k float32 values), and reading the words saves the uniforms' arrays.
The engine's words come from a compiled MT19937 too, advancing NumPy's own state
(``mt_words``): 0.26 ms for 256k words, against 0.66 for ``random_raw``.
"""

from __future__ import annotations

import math
import sys
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
    place: PyTorch's ``normal_fill_16_AVX2`` (float32) or ``normal_fill_16`` (float64), by
    NumPy passes (``normal_from_words`` is the compiled loop)."""
    if blocks.dtype == _F32:
        _box_muller_32(blocks, mean, std)
    else:
        _box_muller_64(blocks, mean, std)


def compiled(n: int) -> bool:
    """Whether ``n`` values take the compiled loops (numba there, enough values for a call
    to pay, a little-endian machine: the float64 loops read word pairs as uint64)."""
    return n >= _fused.MIN_SIZE and _LITTLE and _fused.available()


def mt_words(state: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (uint32, C-contiguous) with MT19937's next outputs, advancing ``state``
    (NumPy's ``mt19937_state`` seen as 625 uint32: the key, then the position) as NumPy's
    ``random_raw`` would."""
    _loops()["mt"](state, out)


def normal_from_words(blocks: np.ndarray, mean: float, std: float) -> None:
    """``box_muller`` of the uniforms PyTorch makes from these words, in place: rows of 16
    float32 values (as uint32 words, one a value) or float64 ones (as uint64, two words a
    value, in the order drawn); the rows hold the normals' bits afterwards."""
    kind = "normal32" if blocks.dtype == np.uint32 else "normal64"
    dtype = _F32 if kind == "normal32" else _F64
    _loops()[kind](blocks, dtype(mean), dtype(std))


def unit_from_words(words: np.ndarray) -> None:
    """The uniforms PyTorch makes from these words, in place (uint32: float32's, one word a
    value; uint64: float64's, two words a value); the array holds their bits afterwards."""
    _loops()["unit32" if words.dtype == np.uint32 else "unit64"](words)


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
_LITTLE = sys.byteorder == "little"
_MT_M, _MT_N = 397, 624
_MT_UPPER, _MT_LOWER = np.uint32(0x80000000), np.uint32(0x7FFFFFFF)
_MT_MATRIX = np.uint32(0x9908B0DF)
_MASK_24, _MASK_53 = np.uint32(2**24 - 1), np.uint64(2**53 - 1)
_SCALE_24 = _F32(2.0**-24)


def _mt_step(key, i, after, far):
    """MT19937's recurrence for key word ``i`` (``after``: the next word, ``far``: the one M
    on, both mod N)."""
    y = (key[i] & _MT_UPPER) | (key[after] & _MT_LOWER)
    key[i] = key[far] ^ (y >> np.uint32(1)) ^ ((np.uint32(0) - (y & np.uint32(1))) & _MT_MATRIX)


def _mt_twist(key):
    """``mt19937_gen``: the next 624 key words (loops split where ``i + M`` wraps, so that
    each runs without a modulo and vectorises)."""
    for i in range(_MT_N - _MT_M):
        _mt_step(key, i, i + 1, i + _MT_M)
    for i in range(_MT_N - _MT_M, _MT_N - 1):
        _mt_step(key, i, i + 1, i + _MT_M - _MT_N)
    _mt_step(key, _MT_N - 1, 0, _MT_M - 1)


def _mt_words(state, out):
    key = state[:_MT_N]
    pos = np.int64(state[_MT_N])
    done = 0
    while done < out.size:
        if pos == _MT_N:
            _mt_twist(key)
            pos = 0
        take = min(_MT_N - pos, out.size - done)
        for t in range(take):  # mt19937_next32's tempering
            y = key[pos + t]
            y ^= y >> np.uint32(11)
            y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
            y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
            out[done + t] = y ^ (y >> np.uint32(18))
        pos += take
        done += take
    state[_MT_N] = np.uint32(pos)


def _unit_32(word):
    return _F32(word & _MASK_24) * _SCALE_24


def _unit_64(pair):
    """A float64 uniform from two words loaded as one little-endian uint64 (the first drawn
    in the low half): ``(r32_a << 32 | r32_b) & (2^53 - 1)``."""
    r64 = (pair << np.uint64(32)) | (pair >> np.uint64(32))
    return _F64(r64 & _MASK_53) * 2.0**-53


def _unit_words_32(words):
    for i in range(words.size):
        words[i] = _float_bits(_unit_32(words[i]))


def _unit_words_64(words):
    for i in range(words.size):
        words[i] = _double_bits(_unit_64(words[i]))


def _cephes_log_value(x):
    """``_cephes_log`` of one float32 (branch-free: the selects vectorise)."""
    bits = _float_bits(max(x, _MIN_NORMAL))
    e = _F32(np.int32(bits >> np.uint32(23)) - np.int32(0x7F)) + _F32(1)
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
    """``_cephes_sincos`` of one float32, as the two results' bits."""
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
    return np.uint32(_float_bits(sin) ^ sign_sin), np.uint32(_float_bits(cos) ^ sign_cos)


def _normal_words_32(blocks, mean, std):
    two_pi = _F32(2.0 * math.pi)
    for b in range(blocks.shape[0]):
        for j in range(8):  # (one vector iteration a block)
            radius = np.sqrt(_F32(-2) * _cephes_log_value(_F32(1) - _unit_32(blocks[b, j])))
            sin, cos = _cephes_sincos_value(two_pi * _unit_32(blocks[b, j + 8]))
            blocks[b, j] = _float_bits(_fma32_value(radius * _bits_float(cos), std, mean))
            blocks[b, j + 8] = _float_bits(_fma32_value(radius * _bits_float(sin), std, mean))


def _normal_words_64(blocks, mean, std):
    two_pi = 2.0 * math.pi
    for b in range(blocks.shape[0]):
        for j in range(8):
            u1, u2 = _unit_64(blocks[b, j]), _unit_64(blocks[b, j + 8])
            radius = np.sqrt(-2.0 * math.log(1.0 - u1))
            theta = two_pi * u2
            blocks[b, j] = _double_bits(_fma64(radius * math.cos(theta), std, mean))
            blocks[b, j + 8] = _double_bits(_fma64(radius * math.sin(theta), std, mean))


# In the loops, numba intrinsics (set by _loops): a float's bits and back (LLVM bitcasts),
# float32's fused multiply-add (llvm.fma).
_float_bits = _bits_float = _double_bits = _fma32_value = None
_compiled: dict = {}
_compiling = threading.Lock()


def _loops() -> dict:
    """name -> compiled loop (the callers checked ``compiled``)."""
    global _float_bits, _bits_float, _double_bits, _fma32_value
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

                def fma32(typingctx, a, b, c):
                    def codegen(context, builder, signature, args):
                        f = ir.FloatType()
                        fn = builder.module.declare_intrinsic(
                            "llvm.fma", [f], ir.FunctionType(f, [f, f, f])
                        )
                        return builder.call(fn, args)

                    return types.float32(types.float32, types.float32, types.float32), codegen

                _float_bits = bitcast(types.float32, types.uint32, ir.IntType(32))
                _bits_float = bitcast(types.uint32, types.float32, ir.FloatType())
                _double_bits = bitcast(types.float64, types.uint64, ir.IntType(64))
                _fma32_value = intrinsic(fma32)
                for helper in (_fma64, _split, _cephes_log_value, _cephes_sincos_value):
                    register_jitable(helper)
                for helper in (_mt_step, _mt_twist, _unit_32, _unit_64):
                    register_jitable(helper)
                _compiled.update(
                    mt=_fused.jit(_mt_words),
                    unit32=_fused.jit(_unit_words_32),
                    unit64=_fused.jit(_unit_words_64),
                    normal32=_fused.jit(_normal_words_32),
                    normal64=_fused.jit(_normal_words_64),
                )
    return _compiled


__all__: list = []
