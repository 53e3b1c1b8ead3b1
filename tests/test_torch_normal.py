"""PyTorch's Box-Muller transforms: the compiled loop gives the NumPy reference's bits.

(Both against PyTorch's own values: ``tests/test_torch_streams.py``.)
"""

import numpy as np
import pytest

from leafgrad import _torch_normal
from leafgrad._torch_stream import TorchStream
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


_DIGITS = {np.float32: 24, np.float64: 53}


def _words(dtype, rows=4096):
    """Engine words (uint32, in the order drawn: one a float32 value, two a float64 one)
    whose uniforms are ``_uniforms`` rounded to the stream's grid (the bits above that grid
    random: the transforms must mask them), with float32 uniforms evenly spread over [0, 1)
    in the last rows, as log argument and as angle."""
    digits = _DIGITS[dtype]
    u = _uniforms(dtype, rows).astype(np.float64)
    if dtype is np.float32:
        count = (rows - 8) * 8
        k = np.arange(count, dtype=np.uint64) * np.uint64(2**24 // count | 1) % np.uint64(2**24)
        u[-k.size // 8 :, :8] = k.reshape(-1, 8) * 2.0**-24
        u[-k.size // 8 :, 8:] = k[::-1].reshape(-1, 8) * 2.0**-24
    r = np.floor(u * 2.0**digits).astype(np.uint64)
    high = np.random.default_rng(8).integers(0, 2 ** (64 - digits), r.shape, dtype=np.uint64)
    r |= high << np.uint64(digits)
    if dtype is np.float32:
        return (r & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    pairs = np.stack([r >> np.uint64(32), r & np.uint64(0xFFFFFFFF)], axis=-1)
    return pairs.astype(np.uint32).reshape(rows, 32)


def _units_of(words, dtype):
    """The stream's NumPy uniforms of these words (``TorchStream._unit``'s formula)."""
    if dtype is np.float32:
        return (words & np.uint32(2**24 - 1)).astype(np.float32) * np.float32(2.0**-24)
    r64 = (words[..., 0::2].astype(np.uint64) << np.uint64(32)) | words[..., 1::2]
    return (r64 & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53


def _as_values(words, dtype):
    """The compiled loops' view of these words: one uint32 or uint64 a value."""
    return words.view(np.uint32 if dtype is np.float32 else np.uint64)


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mean, std", [(0.0, 1.0), (0.5, 0.02), (-3.0, 7.5)])
def test_compiled_transform_gives_the_reference_bits(dtype, mean, std):
    """The compiled loop on words: the NumPy reference's bits on the words' uniforms (the
    float32 loop's hardware fused multiply-adds included)."""
    words = _words(dtype)
    expected = _units_of(words, dtype)
    _REFERENCE[dtype](expected, mean, std)
    got = _as_values(words.copy(), dtype)
    _torch_normal.normal_from_words(got, mean, std)
    got = got.view(dtype)
    assert np.isfinite(got).all()
    np.testing.assert_array_equal(got.view(_BITS[dtype]), expected.view(_BITS[dtype]))


@needs_numba
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_uniforms_are_the_streams(dtype):
    words = _words(dtype, rows=64)
    got = _as_values(words.copy(), dtype)
    _torch_normal.unit_from_words(got.reshape(-1))
    expected = _units_of(words, dtype)
    np.testing.assert_array_equal(got, expected.view(_BITS[dtype]))


@needs_numba
def test_compiled_mt19937_advances_numpys_state_as_random_raw():
    """Runs across the 624-word refills, starting anywhere in one."""
    stream, reference = TorchStream(99), np.random.MT19937()
    reference.state = stream.bit_generator.state
    for n in (1, 623, 2, 624, 5000, 624 * 3, 7):
        words = np.empty(n, np.uint32)
        stream._fill(words)
        np.testing.assert_array_equal(words, reference.random_raw(n))
        ours, theirs = stream.bit_generator.state["state"], reference.state["state"]
        assert ours["pos"] == theirs["pos"]
        np.testing.assert_array_equal(ours["key"], theirs["key"])


def test_compiled_and_numpy_streams_draw_the_same(monkeypatch):
    """A stream's draws with the compiled loops and without (NumPy's passes on
    ``random_raw``), sizes about the compiled loops' threshold, a tail of under 16."""
    draws = []
    for compiled in (True, False):
        if not compiled:
            monkeypatch.setattr(TorchStream, "_compiled", lambda self, n: False)
        stream = TorchStream(5)
        draws.append(
            [
                stream.standard_normal(4099, dtype=np.float32),
                stream.normal(0.5, 0.02, 513, dtype=np.float64),
                stream.random(1000, dtype=np.float32),
                stream.random(777, dtype=np.float64),
                stream.uniform(-2.0, 3.0, 600, dtype=np.float32),
                stream.integers(0, 1000, 2000),
                stream.standard_normal(40, dtype=np.float32),
            ]
        )
    for ours, theirs in zip(*draws):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


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
