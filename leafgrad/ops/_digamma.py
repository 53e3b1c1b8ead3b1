"""PyTorch's digamma and trigamma kernels (``calc_digamma``, ``calc_trigamma`` in ATen's
Math.h) on arrays, in the array's dtype (float32 for narrower floats, rounded back).

Why not SciPy's ``psi`` / ``polygamma(1, .)``: those are exact to round-off, PyTorch's are
not (trigamma's asymptotic series stops early: ~5e-10 relative; digamma ~1e-14), and
digamma's gradient, lgamma's first two derivatives and the gamma-family distributions'
gradients read them, so PyTorch's values need PyTorch's algorithms.
"""

from __future__ import annotations

import math

import numpy as np

# The asymptotic series' coefficients (Cephes' psi), highest power first, and digamma(10).
_DIGAMMA_SERIES = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)
_PSI_10 = 2.25175258906672110764


def _working(x: np.ndarray):
    """``(scalar type, a writable copy of x in it)``."""
    c = x.dtype.type if x.dtype.char in "fd" else np.float32
    return c, np.array(x, dtype=c)


def digamma(x: np.ndarray) -> np.ndarray:
    """``psi(x)``: -inf / +inf at +0 / -0 and NaN at the negative integers; below 0 the
    reflection ``psi(1 - x) - pi / tan(pi r)`` (r the fractional part), else the recurrence
    up to 10 and the asymptotic series."""
    dtype = x.dtype
    c, given = _working(x)
    negative = given < 0
    whole = given == np.trunc(given)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (in float64 for either dtype, as PyTorch's float kernel computes it, then rounded)
        r = (given - np.trunc(given)).astype(np.float64)
        reflection = np.where(negative, math.pi / np.tan(math.pi * r), 0.0).astype(c)
        x = np.where(negative, c(1) - given, given)
        result = np.zeros_like(x)
        for _ in range(10):  # ten steps take any x > 0 to 10 or beyond
            below = x < c(10)
            result = np.where(below, result - c(1) / x, result)
            x = np.where(below, x + c(1), x)
        z = c(1) / (x * x)
        poly = np.full_like(x, c(_DIGAMMA_SERIES[0]))
        for a in _DIGAMMA_SERIES[1:]:
            poly = poly * z + c(a)
        y = np.where(x < c(1.0e17), z * poly, c(0))
        out = np.where(x == c(10), result + c(_PSI_10), result + np.log(x) - (c(0.5) / x) - y)
        out = np.where(negative, out - reflection, out)
    out = np.where(negative & whole, c(np.nan), out)
    out = np.where(given == 0, np.copysign(c(np.inf), -given), out)
    return out.astype(dtype, copy=False)


def trigamma(x: np.ndarray) -> np.ndarray:
    """``psi'(x)``: the reflection below 0.5, six steps of the recurrence, then the
    asymptotic series."""
    dtype = x.dtype
    c, x = _working(x)
    result = np.zeros_like(x)
    reflected = x < c(0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        if reflected.any():
            pi = c(math.pi)
            sin = np.sin(pi * x[reflected])
            result[reflected] -= (pi * pi) / (sin * sin)
            x[reflected] = c(1) - x[reflected]
        for _ in range(6):
            result += c(1) / (x * x)
            x += c(1)
        ixx = c(1) / (x * x)
        series = ixx * (c(1 / 6) - ixx * (c(1 / 30) - ixx * c(1 / 42)))
        result += (c(1) + c(1) / (c(2) * x) + series) / x
    return np.where(reflected, -result, result).astype(dtype, copy=False)


__all__: list = []
