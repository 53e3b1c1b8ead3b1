"""Sums over leading or trailing axes as one product with a vector of ones (``ops/_sums.py``):
gradients summed back over broadcast rows (a bias's gradient) and ``sum``/``mean`` over such
dims, for float32/float64 arrays: the same sums as NumPy's reduction to round-off (over
rows nearer the exact sum), the same shape and dtype, and PyTorch's values."""

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _sums
from leafgrad.ops._plain import _sum_to_forward
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
    assert _sums.over_leading(x, 1).shape == (20,)
    assert _sums.over_leading(x[:, :5], 1) is None  # strided
    assert _sums.over_leading(np.ones((16, 20)), 1) is None  # few rows
    assert _sums.over_leading(np.ones((100, 2000)), 1) is None  # long rows
    assert _sums.over_leading(np.ones((100, 20), np.float16), 1) is None
    assert _sums.over_leading(np.ones((100, 20), np.int64), 1) is None
    assert _sums.over_trailing(x, 1).shape == (1000,)
    assert _sums.over_trailing(np.ones((16, 20)), 1) is None  # few sums
    assert _sums.over_trailing(np.ones((100, 2000)), 1) is None  # long sums: pairwise
    y = np.ones((40, 4, 5))
    assert _sums.over_axes(y, (0, 1)).shape == (5,)
    assert _sums.over_axes(y, (1, 2)).shape == (40,)
    assert _sums.over_axes(y, (1,)) is None  # a middle axis
    assert _sums.over_axes(y, (0, 1, 2)) is None  # everything: NumPy's pairwise sum
    assert _sums.over_axes(y, ()) is None
    assert _sums.over_axes(y.transpose(1, 0, 2), (0,)) is None


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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_over_short_rows_round_about_as_numpys_pairwise_sum(dtype):
    errors = {"ours": 0.0, "numpy": 0.0}
    for _ in range(5):
        x = RNG.standard_normal((5000, 20)).astype(dtype) + 0.5
        exact = np.array([math.fsum(r) for r in x.astype(np.float64)])
        errors["ours"] += np.abs(_sums.over_trailing(x, 1) - exact).sum()
        errors["numpy"] += np.abs(np.add.reduce(x, axis=1) - exact).sum()
    assert errors["ours"] <= 2 * errors["numpy"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    ("shape", "dim"), [((1000, 20), 0), ((1000, 20), 1), ((50, 4, 6), (1, 2)), ((50, 4, 6), (0, 1))]
)
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_and_mean_over_leading_or_trailing_dims_match_pytorch(op, shape, dim, dtype):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(shape) + 0.25
    outs, grads = [], []
    for lib in (lg, torch):
        t = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        for keepdim in (False, True):
            out = getattr(t, op)(dim, keepdim=keepdim)
            outs.append(out.detach().numpy())
        (out * out).sum().backward()
        grads.append(t.grad.numpy())
    for ours, theirs in zip(outs[:2], outs[2:]):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert_close(ours, theirs, "iterative")
    assert_close(grads[0], grads[1], "iterative")
