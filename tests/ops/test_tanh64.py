"""The float64 tanh kernel (ops/_tanh64.py): accuracy, special values, blocks, dispatch."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _tanh64

# tanh in extended precision, rounded once: the exact value to half an ulp where long double
# has more bits than double (x86-64); elsewhere NumPy's tanh (within 2 ulp).
EXTENDED = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant
TOLERANCE = 1 if EXTENDED else 3  # ulps from that reference


def _exact(x):
    return np.tanh(np.asarray(x).astype(np.longdouble)).astype(np.float64)


def _ulps(got, want):
    """Error in units in the last place of ``want`` (0 where both are equal)."""
    scale = np.spacing(np.abs(want))
    return np.where(got == want, 0.0, np.abs(got - want) / scale)


def test_kernel_is_within_round_off_on_a_dense_grid():
    x = np.linspace(-25.0, 25.0, 400_001)
    got = _tanh64.tanh_float64(x)
    assert _ulps(got, _exact(x)).max() <= TOLERANCE
    assert _ulps(got, np.tanh(x)).max() <= 3  # NumPy's own: within 2 ulp, by its build


def test_kernel_handles_points_halfway_between_table_entries():
    x = (np.arange(-5000, 5000) + 0.5) / 256  # the rounding to the table ties here
    assert _ulps(_tanh64.tanh_float64(x), _exact(x)).max() <= TOLERANCE


def test_kernel_is_within_one_ulp_of_the_exact_value_near_zero_and_beyond():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0.0, 3.0, 4000), rng.uniform(-0.05, 0.05, 4000)])
    got = _tanh64.tanh_float64(x)
    assert _ulps(got, _exact(x)).max() <= TOLERANCE
    libm = np.array([math.tanh(v) for v in x])  # within 2 ulp itself
    assert _ulps(got, libm).max() <= 3


def test_kernel_keeps_tiny_values_and_signed_zeros_exactly():
    x = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-310, -1e-300, 1e-20, -3e-9])
    got = _tanh64.tanh_float64(x)
    np.testing.assert_array_equal(got, np.tanh(x))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(x))


def test_kernel_saturates_and_passes_nan_and_infinities():
    x = np.array([19.4, 19.6, 40.0, 1e300, np.inf, -np.inf, -1e300, np.nan, -np.nan])
    got = _tanh64.tanh_float64(x)
    np.testing.assert_array_equal(got[1:7], [1.0, 1.0, 1.0, 1.0, -1.0, -1.0])
    assert _ulps(got[:1], _exact(x[:1])).max() <= TOLERANCE
    assert np.isnan(got[7:]).all()


@pytest.mark.parametrize("shape", [(7,), (3, 5, 4), (2 * _tanh64.BLOCK + 13,), (1, 0, 3)])
def test_kernel_covers_every_element_of_any_shape(shape):
    x = np.random.default_rng(1).uniform(-6.0, 6.0, shape)
    got = _tanh64.tanh_float64(x)
    assert got.shape == x.shape and got.dtype == np.float64 and got.flags.c_contiguous
    assert _ulps(got, _exact(x)).max(initial=0.0) <= TOLERANCE


def test_threads_do_not_share_scratch():
    xs = [np.random.default_rng(seed).uniform(-4, 4, 3 * _tanh64.BLOCK) for seed in range(4)]
    results = [None] * 4

    def work(i):
        for _ in range(3):
            results[i] = _tanh64.tanh_float64(xs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, got in zip(xs, results):
        assert _ulps(got, _exact(x)).max() <= TOLERANCE


@pytest.mark.parametrize(
    "x",
    [
        np.linspace(-3, 3, 100),  # small: one NumPy call is cheaper
        np.linspace(-3, 3, 20_000).astype(np.float32),  # NumPy's float32 tanh is vectorised
        np.linspace(-3, 3, 20_000).reshape(200, 100).T,  # not C-contiguous: keep its layout
    ],
    ids=["small", "float32", "transposed"],
)
def test_dispatch_leaves_other_arrays_to_numpy(x, monkeypatch):
    monkeypatch.setattr(_tanh64, "SLOW_NUMPY_TANH64", True)
    got = _tanh64.tanh(x)
    np.testing.assert_array_equal(got, np.tanh(x))
    assert got.strides == np.tanh(x).strides


def test_dispatch_uses_the_kernel_only_where_numpys_is_slow(monkeypatch):
    x = np.linspace(-3, 3, 3 * _tanh64.MIN_SIZE)
    monkeypatch.setattr(_tanh64, "SLOW_NUMPY_TANH64", False)
    np.testing.assert_array_equal(_tanh64.tanh(x), np.tanh(x))
    monkeypatch.setattr(_tanh64, "SLOW_NUMPY_TANH64", True)
    np.testing.assert_array_equal(_tanh64.tanh(x), _tanh64.tanh_float64(x))


def test_tanh_op_on_a_large_float64_tensor_matches_pytorch(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(_tanh64, "SLOW_NUMPY_TANH64", True)
    data = np.random.default_rng(2).normal(0, 2, (1000, 20))
    x = lg.tensor(data, requires_grad=True)
    y = x.tanh()
    (g,) = lg.autograd.grad((y * y).sum(), x)
    tx = torch.tensor(data, requires_grad=True)
    ty = tx.tanh()
    (tg,) = torch.autograd.grad((ty * ty).sum(), tx)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-13, atol=1e-15)
