"""``ops._erf32``: float32 erf within 6 ulp of the correctly rounded value, special values
kept."""

from __future__ import annotations

import numpy as np
import scipy.special as sp

import leafgrad as lg
from leafgrad.ops._erf32 import BLOCK, erf32


def _ulps(got, want):
    a = got.view(np.int32).astype(np.int64)
    b = want.view(np.int32).astype(np.int64)
    return np.abs(a - b)


def test_erf32_is_within_six_ulp_of_the_rounded_erf():
    rng = np.random.default_rng(0)
    # Random bit patterns of [0, 4.5] (tiny and subnormal values included), a grid, signs.
    bits = rng.integers(0, np.float32(4.5).view(np.int32), 2_000_000, dtype=np.int32)
    x = np.concatenate([bits.view(np.float32), np.linspace(0, 4.5, 300_001, dtype=np.float32)])
    x = np.concatenate([x, -x])
    got = erf32(x)
    want = sp.erf(x.astype(np.float64)).astype(np.float32)
    ulps = _ulps(got, want)
    assert ulps.max() <= 6
    assert (ulps <= 1).mean() > 0.95


def test_erf32_special_values_shapes_and_blocks():
    x = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 4.0, -4.0, 30.0, 1e-45], np.float32)
    got = erf32(x)
    assert np.isnan(got[0])
    assert got[1] == 0 and np.signbit(got[1]) and got[2] == 0 and not np.signbit(got[2])
    np.testing.assert_array_equal(got[3:8], [1, -1, 1, -1, 1])
    assert got[8] == np.float32(1e-45) * np.float32(2 / np.sqrt(np.pi))
    # Several blocks and a strided input give each element's value, in the input's shape.
    big = np.random.default_rng(1).normal(0, 2, (3, BLOCK + 7)).astype(np.float32)
    np.testing.assert_array_equal(erf32(big.T), erf32(big).T)
    assert erf32(big.T).shape == (BLOCK + 7, 3)
    out = np.empty_like(big)
    assert erf32(big, out=out) is out
    np.testing.assert_array_equal(out.reshape(-1), erf32(big.reshape(-1)))


def test_erf_itself_stays_correctly_rounded():
    x = np.linspace(-4, 4, 10001, dtype=np.float32)
    want = sp.erf(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(lg.erf(lg.from_numpy(x)).numpy(), want)


def test_compiled_erf32_and_the_jet_formulas_erf_are_erf32s_bits():
    """``_fused.erf32`` (one compiled pass) gives ``erf32``'s values bit for bit, special
    values included; the Taylor path's GELU derivatives take it in float32 and SciPy's erf in
    float64."""
    from leafgrad.ops import _fused
    from leafgrad.ops import jet_activations as ja

    rng = np.random.default_rng(2)
    x = np.concatenate(
        [
            rng.normal(0, 3, 4994).astype(np.float32),
            np.array([np.nan, -0.0, np.inf, -np.inf, 4.0, 1e-45], np.float32),
        ]
    ).reshape(10, -1)
    if _fused.available():
        np.testing.assert_array_equal(_fused.erf32(x), erf32(x))
    np.testing.assert_array_equal(ja._erf_any(x), erf32(x))
    np.testing.assert_array_equal(ja._erf_any(x[:, ::2]), erf32(x[:, ::2]))
    wide = x.astype(np.float64)
    np.testing.assert_array_equal(ja._erf_any(wide), sp.erf(wide))
