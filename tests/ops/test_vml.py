"""ops/_vml.py: float64 sin and cos by MKL's vector math (where MKL and numba are installed)
stay within 1 ulp of NumPy's, give NumPy's special values, and leave everything else to
NumPy; the ops and their derivatives through them match PyTorch."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _vml

needs_vml = pytest.mark.skipif(not _vml.available(), reason="MKL or numba not installed")
FUNCTIONS = [(_vml.sin, np.sin), (_vml.cos, np.cos)]


def _within_one_ulp(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_max_ulp(got, want, maxulp=1)


@needs_vml
@pytest.mark.parametrize("ours, numpys", FUNCTIONS)
def test_within_one_ulp_of_numpy_on_every_layout(ours, numpys):
    x = np.random.default_rng(0).uniform(-50, 50, (300, 70))
    for a in (x, np.asfortranarray(x), x.reshape(-1)):
        got = ours(a)
        _within_one_ulp(got, numpys(a))
        assert got.flags.c_contiguous == a.flags.c_contiguous
    read_only = x.copy()
    read_only.flags.writeable = False
    _within_one_ulp(ours(read_only), numpys(read_only))


@needs_vml
@pytest.mark.parametrize("ours, numpys", FUNCTIONS)
def test_special_values_are_numpys(ours, numpys):
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-310, 5e-324, 1e300, -1e22]
    x = np.array(specials * 20)
    with np.errstate(invalid="ignore"):
        want = numpys(x)
    got = ours(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # sin(-0.0) is -0.0


@pytest.mark.parametrize("ours, numpys", FUNCTIONS)
def test_the_rest_is_numpys_bit_for_bit(ours, numpys):
    rng = np.random.default_rng(1)
    x = rng.uniform(-5, 5, (64, 64))
    cases = [
        x[:, ::2],  # strided
        x[:5, :5],  # small
        x.astype(np.float32),
        x.astype(np.float16),
        np.float64(0.7),
    ]
    for a in cases:
        got, want = ours(a), numpys(a)
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    out = np.empty_like(x)
    assert ours(x, out=out) is out  # NumPy's arguments: NumPy's call
    np.testing.assert_array_equal(out, numpys(x))


def test_without_numba_or_mkl_numpy_computes_them(monkeypatch):
    monkeypatch.setattr(_vml, "_callers", {})
    assert not _vml.available()
    x = np.random.default_rng(2).uniform(-5, 5, 1000)
    np.testing.assert_array_equal(_vml.sin(x), np.sin(x))


@needs_vml
@pytest.mark.parametrize("op", ["sin", "cos"])
def test_the_ops_and_two_derivatives_match_pytorch(op):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).uniform(-4, 4, (200, 30))
    results = []
    for lib in (lg, torch):
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib, op)(t)
        (g,) = lib.autograd.grad(y.sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), t)
        results.append([a.detach().numpy() for a in (y, g, gg)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=1e-15)
