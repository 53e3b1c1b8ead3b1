"""``tanh`` on large float64 arrays where NumPy's own is slow: a table and a short series.

Why hand-written: NumPy's fast float64 ``tanh`` loop needs AVX-512 (its SVML port); on
x86-64 CPUs without it (AVX2: many AMD EPYC and cloud hosts) ``np.tanh`` takes ~13 ns per
element, 2.2x PyTorch's vectorised loop, and tanh networks spend a seventh of a float64
PINN step there. No library we may depend on has a faster one (SciPy's ``expit`` and
NumPy's ``exp`` are no faster here). This evaluates

    tanh(a + b) = tanh a + tanh b (1 - tanh^2 a) / (1 + tanh a tanh b)

with ``a`` the nearest multiple of 1/256 (tanh a and 1 - tanh^2 a from a 160 kB table
computed once in extended precision) and ``|b| <= 1/512`` (an odd series to b^5, exact to
round-off there), in 22 vectorised NumPy passes over blocks of 64k elements (rounding and
the sign by integer passes, not casts): about 2x np.tanh's speed, within 1 ulp of the
exact value (checked against 120-bit arithmetic; np.tanh is within 1 ulp with its AVX2
loop, 2 with libm's). Used only for C-contiguous float64 arrays of at least ``MIN_SIZE``
elements on such CPUs; elsewhere ``np.tanh``.
"""

from __future__ import annotations

import threading

import numpy as np

from .._cpu import numpy_cpu_features

_STEP = 256.0  # table spacing 1/256
_LIMIT = 19.5  # |x| beyond: tanh(x) rounds to +-1 in float64 (1 - tanh(19.5) < 2**-54)
_OFFSET = int(np.ceil(_LIMIT * _STEP))  # table index of a = 0
_GRID = np.arange(-_OFFSET, _OFFSET + 1) / _STEP
# The table from extended precision (x87's 80 bits on x86-64), rounded once: entries exact to
# half an ulp whichever tanh NumPy's build dispatches to (those differ by up to 2 ulp).
_EXTENDED = np.tanh(_GRID.astype(np.longdouble))
_TANH = _EXTENDED.astype(np.float64)
_SECH2 = (1.0 - _EXTENDED * _EXTENDED).astype(np.float64)
del _EXTENDED
# tanh b = b + C3 b^3 + C5 b^5 + O(b^7): the next term is below 2**-58 b here.
_C3, _C5 = -1.0 / 3.0, 2.0 / 15.0
_ROUNDER = 1.5 * 2.0**52
_ROUNDER_BITS = int(np.array(_ROUNDER).view(np.int64))
_SIGN_BIT = int(np.array(-0.0).view(np.int64))  # only the sign bit set
BLOCK = 65536  # elements per pass: fewer NumPy calls per element than cache-sized blocks
MIN_SIZE = 8192  # smaller arrays: np.tanh's one call costs less than ~20


def _numpy_tanh64_is_slow() -> bool:
    """Whether NumPy's float64 tanh is its slow loop here: x86-64 without AVX-512 (where
    NumPy hides its CPU features: no, trust np.tanh)."""
    features = numpy_cpu_features()
    return bool(features.get("AVX2")) and not features.get("AVX512_SKX")


SLOW_NUMPY_TANH64 = _numpy_tanh64_is_slow()


class _Scratch(threading.local):
    """Each thread's work arrays for one block (allocated on first use, then kept: fresh
    large arrays cost page faults on every call)."""

    arrays: tuple | None = None


_scratch = _Scratch()


def tanh(x: np.ndarray) -> np.ndarray:
    """``np.tanh(x)``; large C-contiguous float64 arrays by the table where that is faster."""
    if (
        SLOW_NUMPY_TANH64
        and x.size >= MIN_SIZE  # first: most calls in small scripts stop here
        and type(x) is np.ndarray
        and x.dtype == np.float64
        and x.flags.c_contiguous
    ):
        return tanh_float64(x)
    return np.tanh(x)


def tanh_float64(x: np.ndarray) -> np.ndarray:
    """``tanh`` of a C-contiguous float64 array by the table (any CPU; see the module)."""
    out = np.empty(x.shape, np.float64)
    flat_x, flat_out = x.reshape(-1), out.reshape(-1)
    scratch = _scratch.arrays
    if scratch is None:
        scratch = _scratch.arrays = (
            np.empty(BLOCK),
            np.empty(BLOCK),
            np.empty(BLOCK),
            np.empty(BLOCK, np.int64),
        )
    n = flat_x.size
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        m = stop - start
        _block(flat_x[start:stop], flat_out[start:stop], *(s[:m] for s in scratch))
    return out


def _block(x, out, a, b, work, index) -> None:
    """``out = tanh(x)`` for one block; ``a``, ``b``, ``work``, ``index`` are scratch."""
    # NaN passes through clip and the series (its table index, clipped, is any entry);
    # +-inf clip to +-LIMIT, whose tanh rounds to +-1.
    np.clip(x, -_LIMIT, _LIMIT, out=b)
    np.multiply(b, _STEP, out=a)
    # Adding 1.5 * 2**52 rounds a (|a| < 2**51) to an integer, to nearest even as rint does,
    # held in the low bits of the sum: the table index is an integer subtraction away (a
    # float-to-int cast costs three of these passes).
    a += _ROUNDER
    np.subtract(a.view(np.int64), _ROUNDER_BITS - _OFFSET, out=index)
    a -= _ROUNDER  # round(256 x): exact
    a *= 1.0 / _STEP  # a: exact, a multiple of 1/256
    np.subtract(b, a, out=b)  # b = x - a: exact (Sterbenz), |b| <= 1/512
    np.multiply(b, b, out=work)
    np.multiply(work, _C5, out=out)
    out += _C3
    out *= work
    out *= b
    out += b  # out: tanh b
    _TANH.take(index, out=a, mode="clip")  # a: tanh a
    np.multiply(a, out, out=work)
    work += 1.0
    _SECH2.take(index, out=b, mode="clip")
    out *= b
    out /= work
    out += a
    # tanh(-0.0) = -0.0: x's sign bit onto the result (every other result has it already);
    # two integer passes, cheaper than np.copysign.
    np.bitwise_and(x.view(np.int64), _SIGN_BIT, out=index)
    np.bitwise_or(out.view(np.int64), index, out=out.view(np.int64))
