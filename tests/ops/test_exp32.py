"""``ops._exp32``: float32 silu's one-pass kernels, ``exp`` inlined, are within 2 ulp of the
correctly rounded values, give NumPy's passes' special values, and are what large float32
silu runs."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, activations

pytestmark = pytest.mark.skipif(not _fused.available(), reason="numba not installed")

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 88.5, -88.5, -88.8, -86.9]
SPECIALS += [-87.5, 86.9, 89.0, -90.0, 104.0, -104.0, 1e30, -1e30, -1.2785, 0.6931472]


def _inputs(shape=(300, 41), seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * np.where(rng.random(shape) < 0.5, 3, 40)).astype(np.float32)
    x.flat[: len(SPECIALS)] = SPECIALS
    return x


def _numpy_path(kernel, *args):
    saved = _fused._numba
    _fused._numba = False
    try:
        return kernel(*args)
    finally:
        _fused._numba = saved


def _ulps(a, b):
    """ulp distance of float32 arrays of finite values (signs ordered across zero)."""
    ia, ib = (v.view(np.int32).astype(np.int64) for v in (a, b))
    ia, ib = (np.where(i < 0, -(i & 0x7FFFFFFF), i) for i in (ia, ib))
    return np.abs(ia - ib)


def _silu64(x):
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        return x / (1 + np.exp(-x))


def test_forward_within_two_ulp_of_the_correctly_rounded_silu():
    x = _inputs()
    got = _fused.silu32(x)
    exact = _silu64(x)
    # where float32 exp(-x) is finite (below -88.72 it overflows, and silu is -0 as in
    # PyTorch's formula), and silu a normal float32
    normal = (x > -88.7) & (np.abs(exact) > np.finfo(np.float32).tiny) & np.isfinite(exact)
    assert got.dtype is np.dtype(np.float32)
    assert _ulps(got[normal], exact[normal].astype(np.float32)).max() <= 2


def test_forward_special_values_are_numpys_passes():
    x = _inputs()
    got = activations._silu_forward(x)
    with np.errstate(all="ignore"):
        want = _numpy_path(activations._silu_forward, x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    for value in (np.inf, -np.inf, 0.0):
        np.testing.assert_array_equal(got == value, want == value)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # the tails as PyTorch's: x itself, or a zero of x's sign (-90 / inf)
    assert got.flat[SPECIALS.index(1e30)] == np.float32(1e30)
    far = got.flat[SPECIALS.index(-90.0)]
    assert far == 0.0 and np.signbit(far)
    finite = np.isfinite(want)
    assert _ulps(got[finite], want[finite]).max() <= 4


def test_backward_within_round_off_of_the_exact_gradient():
    x = _inputs(seed=1)
    grad = np.random.default_rng(2).standard_normal(x.shape).astype(np.float32)
    got = activations._silu_vjp(grad, x, None)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        s = 1 / (1 + np.exp(-x64))
        exact = grad * s * (1 + x64 * (1 - s))
        want = _numpy_path(activations._silu_vjp, grad, x, None)
    assert got.dtype is np.dtype(np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(exact)
    # 1 + x (1 - s) cancels near x = -1.28: an absolute error of the gradient's scale
    np.testing.assert_allclose(got[finite], exact[finite], rtol=3e-7, atol=2e-6)


def test_a_sums_broadcast_gradient_gives_the_gradient_of_the_sum():
    x = _inputs(seed=3)
    ones = np.broadcast_to(np.float32(1.0), x.shape)
    np.testing.assert_array_equal(
        activations._silu_vjp(ones, x, None), _fused.silu32_backward(np.ones_like(x), x)
    )


def test_large_float32_silu_runs_the_one_pass_kernel(monkeypatch):
    calls = []
    kernel = _fused.silu32
    monkeypatch.setattr(_fused, "silu32", lambda x: calls.append(x.shape) or kernel(x))
    t = lg.tensor(_inputs(), requires_grad=True)
    y = lg.nn.functional.silu(t)
    assert calls == [(300, 41)]
    np.testing.assert_array_equal(y.detach().numpy(), kernel(_inputs()))
    small = lg.nn.functional.silu(lg.ones(8))  # below the compiled size: expit's product
    assert calls == [(300, 41)] and small.dtype == lg.float32
