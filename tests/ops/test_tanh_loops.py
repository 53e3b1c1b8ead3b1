"""``ops._tanh_loops``: float32 and float64 tanh in one compiled pass is within 1.5 ulp of the
exact value, keeps NumPy's special values and signed zeros, and is what ``tanh`` runs on
large float arrays of any layout."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, _vml

pytestmark = pytest.mark.skipif(not _fused.available(), reason="numba not installed")

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 0.625, -0.625, 0.62499]
SPECIALS += [19.1, -19.2, 20.0, 44.0, -45.0, 89.0, 100.0, 1e30, -1e30, 5e-39]


def _loops():
    from leafgrad.ops import _tanh_loops  # why: imports numba

    return _tanh_loops


def _tanh_by_loop(x):
    """The compiled loop's tanh of ``x`` (the loops write into an array and return nothing)."""
    out = np.empty_like(x)
    (_loops().tanh32 if x.dtype == np.float32 else _loops().tanh64)(out, x)
    return out


def _sweep(dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            np.linspace(-21, 21, 400_001),
            rng.standard_normal(200_000) * 0.7,
            np.geomspace(1e-30, 30, 20_000),
            -np.geomspace(1e-30, 30, 20_000),
        ]
    )
    return x.astype(dtype)


def _ulps(actual, exact, dtype):
    """|actual - exact| in ulps of the result's dtype (exact: a wider float)."""
    spacing = np.spacing(np.abs(exact).astype(dtype)).astype(np.longdouble)
    return np.abs(actual.astype(np.longdouble) - exact) / spacing


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_within_one_and_a_half_ulp_of_the_exact_tanh(dtype):
    x = _sweep(dtype)
    # float64's tanh of float32 inputs is exact to float32; x87's 80 bits for float64 inputs
    exact = np.tanh(x.astype(np.float64 if dtype == np.float32 else np.longdouble))
    ulps = _ulps(_tanh_by_loop(x), exact, dtype)
    assert ulps.max() <= 1.5
    assert np.median(ulps) <= 0.5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_and_signed_zeros_are_numpys(dtype):
    with np.errstate(over="ignore"):
        x = np.array(SPECIALS, dtype)
    got, want = _tanh_by_loop(x), np.tanh(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    finite = ~np.isnan(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2 * np.finfo(dtype).eps, atol=0)
    tiny = np.abs(x) < 1e-20
    np.testing.assert_array_equal(got[tiny], x[tiny])  # tanh x = x there, to the bit


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_takes_the_loop_in_any_layout(dtype):
    x = (np.random.default_rng(1).standard_normal((300, 41)) * 3).astype(dtype)
    whole = _tanh_by_loop(x)
    np.testing.assert_array_equal(_vml.tanh(x), whole)
    transposed = _vml.tanh(x.T)
    assert transposed.flags.f_contiguous
    np.testing.assert_array_equal(transposed, whole.T)
    np.testing.assert_array_equal(_vml.tanh(x[:, ::2]), whole[:, ::2])
    assert _vml.tanh(x).dtype == dtype
    out = np.empty_like(x)  # NumPy's own arguments: NumPy's function
    assert _vml.tanh(x, out=out) is out
    np.testing.assert_array_equal(out, np.tanh(x))


def test_the_op_forward_and_backward_use_it():
    x = lg.tensor((np.random.default_rng(2).standard_normal((200, 20)) * 2).astype(np.float32))
    x.requires_grad_()
    y = lg.tanh(x)
    want = _tanh_by_loop(x.detach().numpy())
    np.testing.assert_array_equal(y.detach().numpy(), want)
    y.sum().backward()
    t = y.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 1 - t * t, rtol=1e-6, atol=1e-7)


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for dtype, tol in ((np.float32, 4e-7), (np.float64, 8e-16)):
        x = _sweep(dtype)
        ours = lg.tanh(lg.tensor(x)).numpy()
        theirs = torch.tanh(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=0)
