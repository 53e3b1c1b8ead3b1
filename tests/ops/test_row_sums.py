"""Gradients summed back over broadcast rows (a bias's gradient) are one product with a vector
of ones for float32/float64 arrays with several rows: the same sums as NumPy's reduction to
round-off (in fact nearer the exact sum), the same shape and dtype, and PyTorch's values."""

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops._plain import _row_sums, _sum_to_forward
from tests._tolerance import assert_close

RNG = np.random.default_rng(5)
# (input shape, target shape): leading axes summed (the product), and the other forms
CASES = [
    ((1000, 20), (20,)),
    ((1000, 20), (1, 20)),
    ((300, 1), (1,)),
    ((4, 250, 3), (3,)),
    ((4, 250, 3), (250, 3)),
    ((4, 250, 3), (1, 1, 3)),
    ((1000, 20), (1000, 1)),
    ((6, 5), (5,)),
    ((3, 5000), (5000,)),
]


def _numpy_sum_to(x, shape):
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1
    )
    return x.sum(axis=axes, keepdims=True).reshape(shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "target"), CASES)
def test_sum_to_matches_numpys_sum(dtype, shape, target):
    x = (RNG.standard_normal(shape) + 0.3).astype(dtype)
    ours = _sum_to_forward(x, shape=target)
    assert ours.shape == target and ours.dtype == dtype and ours.flags.writeable
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ours, _numpy_sum_to(x, target), rtol=rtol, atol=rtol * 100)


def test_the_product_is_taken_only_where_it_pays():
    x = np.ones((1000, 20))
    assert _row_sums(x, 1) is not None
    assert _row_sums(x[:, :5], 1) is None  # strided
    assert _row_sums(np.ones((4, 20)), 1) is None  # few rows
    assert _row_sums(np.ones((100, 2000)), 1) is None  # long rows
    assert _row_sums(np.ones((100, 20), np.float16), 1) is None
    assert _row_sums(np.ones((100, 20), np.int64), 1) is None


def test_row_sums_round_no_worse_than_numpys_running_sum():
    errors = {"ours": 0.0, "numpy": 0.0}
    for _ in range(5):
        x = RNG.standard_normal((10000, 20)).astype(np.float32) + 0.5
        exact = np.array([math.fsum(c) for c in x.T.astype(np.float64)])
        errors["ours"] += np.abs(_sum_to_forward(x, shape=(20,)) - exact).sum()
        errors["numpy"] += np.abs(x.sum(0) - exact).sum()
    assert errors["ours"] <= errors["numpy"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_bias_gradient_matches_pytorchs(dtype):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((500, 8))
    w = RNG.standard_normal((8, 16))
    b = RNG.standard_normal(16)
    grads = []
    for lib in (lg, torch):
        t = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in (x, w, b)]
        (lib.tanh(t[0] @ t[1] + t[2]) ** 2).sum().backward()
        grads.append(t[2].grad)
    # 500 float32 gradients summed: each rounds as PyTorch's may not, so a sum's tolerance
    assert_close(*grads, "iterative")
