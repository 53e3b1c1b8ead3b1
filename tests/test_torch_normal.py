"""PyTorch's Box-Muller transforms: the compiled loop gives the NumPy reference's bits.

(Both against PyTorch's own values: ``tests/test_torch_streams.py``.)
"""

import numpy as np
import pytest

from leafgrad import _torch_normal
from leafgrad.ops import _fused

needs_numba = pytest.mark.skipif(not _fused.available(), reason="numba not installed")
_REFERENCE = {np.float32: _torch_normal._box_muller_32, np.float64: _torch_normal._box_muller_64}
_BITS = {np.float32: np.uint32, np.float64: np.uint64}


def _uniforms(dtype, rows=4096):
    """Uniforms on [0, 1) with the ends and values near the octant and log branch points."""
    u = np.random.default_rng(7).random((rows, 16)).astype(dtype)
    below_one = np.nextafter(dtype(1), dtype(0))
    u[0], u[1, :8], u[2, 8:] = 0, below_one, below_one
    u[3] = np.linspace(0, below_one, 16, dtype=dtype)
    u[4, :8] = 1 - np.float32(0.707106781186547524)  # 1 - u at the log's sqrt(1/2) switch
    u[4, 8:] = np.arange(8) / 8  # 2 pi u at multiples of pi / 4: the sincos octants
    return u


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mean, std", [(0.0, 1.0), (0.5, 0.02), (-3.0, 7.5)])
def test_compiled_transform_gives_the_reference_bits(dtype, mean, std):
    u = _uniforms(dtype)
    expected, got = u.copy(), u.copy()
    _REFERENCE[dtype](expected, mean, std)
    _torch_normal._loops()[np.dtype(dtype).char](got, dtype(mean), dtype(std))
    assert np.isfinite(got).all()
    np.testing.assert_array_equal(got.view(_BITS[dtype]), expected.view(_BITS[dtype]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_box_muller_fills_in_place_with_normals(dtype):
    """The dispatching entry (compiled where numba is there, else NumPy's passes): standard
    normals from uniforms, pairs j and j + 8 of a row sharing one radius."""
    u = _uniforms(dtype, rows=20000)
    z = u.copy()
    _torch_normal.box_muller(z, 0.0, 1.0)
    assert z.dtype == dtype
    assert abs(z[5:].mean()) < 0.01 and abs(z[5:].std() - 1) < 0.01
    radius = np.sqrt(-2 * np.log1p(-u[5:, :8].astype(np.float64)))
    # (atol: float32's Cephes log is good to about an ulp of 1, not relative to small radii)
    np.testing.assert_allclose(np.hypot(z[5:, :8], z[5:, 8:]), radius, rtol=1e-5, atol=1e-5)
