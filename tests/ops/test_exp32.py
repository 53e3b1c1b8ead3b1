"""``ops._exp32``: float32 silu's, sigmoid's and softplus' backward's one-pass kernels,
``exp`` inlined, are within 2 ulp of the correctly rounded values (within round-off of
NumPy's passes), give NumPy's passes' special values, and are what large float32 arrays
run."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, activations, elementwise

from .test_activation_passes import _numpy_path

pytestmark = pytest.mark.skipif(not _fused.available(), reason="numba not installed")

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 88.5, -88.5, -88.8, -86.9]
SPECIALS += [-87.5, 86.9, 89.0, -90.0, 104.0, -104.0, 1e30, -1e30, -1.2785, 0.6931472]


def _inputs(shape=(300, 41), seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * np.where(rng.random(shape) < 0.5, 3, 40)).astype(np.float32)
    x.flat[: len(SPECIALS)] = SPECIALS
    return x


def _ulps(a, b):
    """ulp distance of float32 arrays of finite values (signs ordered across zero)."""
    ia, ib = (v.view(np.int32).astype(np.int64) for v in (a, b))
    ia, ib = (np.where(i < 0, -(i & 0x7FFFFFFF), i) for i in (ia, ib))
    return np.abs(ia - ib)


def _silu64(x):
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        return x / (1 + np.exp(-x))


def _sigmoid64(x):
    with np.errstate(all="ignore"):
        return 1 / (1 + np.exp(-x.astype(np.float64)))


FORWARDS = [
    (activations._silu_forward, _fused.silu32, _silu64),
    (elementwise._sigmoid_forward, _fused.sigmoid32, _sigmoid64),
]


@pytest.mark.parametrize(("op", "kernel", "exact"), FORWARDS)
def test_forward_within_two_ulp_of_the_correctly_rounded_value(op, kernel, exact):
    x = _inputs()
    got = kernel(x)
    np.testing.assert_array_equal(op(x).view(np.int32), got.view(np.int32))
    exact = exact(x)
    # where float32 exp(-x) is finite (below -88.72 it overflows, and silu is -0 as in
    # PyTorch's formula), and silu a normal float32
    normal = (x > -88.7) & (np.abs(exact) > np.finfo(np.float32).tiny) & np.isfinite(exact)
    assert got.dtype is np.dtype(np.float32)
    assert _ulps(got[normal], exact[normal].astype(np.float32)).max() <= 2


@pytest.mark.parametrize(("op", "kernel", "exact"), FORWARDS)
def test_forward_special_values_are_numpys_passes(op, kernel, exact):
    x = _inputs()
    got = op(x)
    with np.errstate(all="ignore"):
        want = _numpy_path(op, x)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    for value in (np.inf, -np.inf, 0.0):
        np.testing.assert_array_equal(got == value, want == value)
    number = ~np.isnan(want)  # (a NaN's sign is not fixed: NumPy's loops differ there)
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]))
    # the tails as PyTorch's: silu x itself, or a zero of x's sign (-90 / inf); sigmoid 1, 0
    tails = [got.flat[SPECIALS.index(v)] for v in (1e30, -90.0)]
    assert tails == ([np.float32(1e30), 0.0] if op is activations._silu_forward else [1, 0])
    assert np.signbit(tails[1]) == (op is activations._silu_forward)
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


@pytest.mark.parametrize("name", ["sigmoid32", "silu32"])
def test_large_float32_arrays_run_the_one_pass_kernels(name, monkeypatch):
    calls = []
    kernel = getattr(_fused, name)
    monkeypatch.setattr(_fused, name, lambda x: calls.append(x.shape) or kernel(x))
    fn = lg.sigmoid if name == "sigmoid32" else lg.nn.functional.silu
    t = lg.tensor(_inputs(), requires_grad=True)
    y = fn(t)
    assert calls == [(300, 41)]
    np.testing.assert_array_equal(y.detach().numpy(), kernel(_inputs()))
    small = fn(lg.ones(8))  # below the compiled size: expit
    assert calls == [(300, 41)] and small.dtype == lg.float32
    fn(lg.tensor(_inputs(), dtype=lg.float64))  # float64: NumPy's exp
    assert calls == [(300, 41)]


@pytest.mark.parametrize(("beta", "threshold"), [(1.0, 20.0), (2.0, 10.0), (-1.5, 3.3), (3, 1)])
def test_softplus_backward_within_round_off_of_numpys_passes(beta, threshold):
    """``grad z / (z + 1)``, ``z = exp(x beta)`` in the pass: NaN where NumPy's overflowing
    ``z`` makes it NaN (below a threshold above the overflow), ``grad`` past the threshold."""
    x = _inputs(seed=4)
    grad = np.random.default_rng(5).standard_normal(x.shape).astype(np.float32)
    params = {"beta": beta, "threshold": threshold}
    with np.errstate(all="ignore"):
        got = activations._softplus_backward_forward(grad, x, **params)
        want = _numpy_path(activations._softplus_backward_forward, grad, x, **params)
    assert got.dtype is np.dtype(np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    gap = np.abs(got[finite] - want[finite])
    assert (gap <= 4 * np.spacing(np.abs(want[finite]))).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_any_takes_one_formula_at_every_size_and_layout(dtype):
    """The Taylor path's sigmoid (SiLU's and softplus' derivative blocks): an element's value
    does not depend on its array's size or layout, and is within 2 ulp of the exact one."""
    with np.errstate(over="ignore"):
        x = _inputs().astype(dtype)
    whole = elementwise.sigmoid_any(x)
    assert whole.dtype == dtype and whole.shape == x.shape
    np.testing.assert_array_equal(elementwise.sigmoid_any(x[:1, :3]), whole[:1, :3])
    np.testing.assert_array_equal(elementwise.sigmoid_any(x[:, ::2]), whole[:, ::2])
    np.testing.assert_array_equal(elementwise.sigmoid_any(x.T), whole.T)
    assert elementwise.sigmoid_any(x[0, 0:0]).shape == (0,)
    zero_d = elementwise.sigmoid_any(x[0, 5].reshape(()))
    assert zero_d.shape == () and zero_d == whole[0, 5]
    exact = 1 / (1 + np.exp(-x.astype(np.longdouble)))
    # where exp(-x) is finite (below it the sigmoid is 0, as PyTorch's formula gives), and
    # the sigmoid a normal float
    normal = (-x < np.log(np.finfo(dtype).max)) & (exact > np.finfo(dtype).tiny)
    err = np.abs(whole[normal] - exact[normal]) / np.spacing(exact[normal].astype(dtype))
    assert err.max() <= 2
    np.testing.assert_array_equal(whole[np.isnan(x)], np.nan)


def test_sigmoid_any_keeps_other_dtypes_expits():
    x = np.linspace(-5, 5, 11, dtype=np.float16)
    got = elementwise.sigmoid_any(x)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, _expit16(x))


def _expit16(x):
    import scipy.special as sp

    return sp.expit(x).astype(np.float16)
