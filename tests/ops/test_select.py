"""The branch-free ``where`` (``ops/_select.py``): np.where's bits, and the ops that use it
(relu's and leaky_relu's backward, leaky_relu, elu, torch.where) against PyTorch."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _select

_SPECIALS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -1e-310, 1e-40]


def _data(dtype, n=3000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(dtype)
    x[: len(_SPECIALS)] = np.array(_SPECIALS).astype(dtype)
    x[len(_SPECIALS) : 2 * len(_SPECIALS)] = np.array(_SPECIALS).astype(dtype)[::-1]
    return x


def _bits(a):
    return a.view(np.uint8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "pair",
    ["arrays", "array, 0", "array, 0.0", "array, -0.0", "array, 2.5", "0.0, array", "-1.5, array"],
)
def test_bits_are_np_where_s(dtype, pair):
    rng = np.random.default_rng(1)
    x, y = _data(dtype), _data(dtype, seed=2)
    mask = rng.standard_normal(x.size) > 0
    first, _, second = pair.partition(", ")
    a = x if first in ("arrays", "array") else float(first)
    if pair == "arrays":
        b = y
    else:
        b = x if second == "array" else 0 if second == "0" else float(second)
    ours, numpy = _select.where(mask, a, b), np.where(mask, a, b)
    assert ours.dtype == numpy.dtype and ours.shape == numpy.shape
    assert np.array_equal(_bits(ours), _bits(numpy))
    assert ours.flags.c_contiguous and ours.flags.writeable and ours.base is None


def test_the_fast_path_is_taken_only_where_it_selects_bits():
    mask = np.arange(2000) % 3 == 0
    x = np.arange(2000, dtype=np.float64)
    assert _select._fast_case(mask, x, 0) is np.int64
    assert _select._fast_case(mask, x.astype(np.float32), x.astype(np.float32)) is np.int32
    assert _select._fast_case(mask, np.broadcast_to(1.0, (2000,)), x) is np.int64
    assert _select._fast_case(mask[:100], x[:100], 0) is None  # small: np.where's one call
    assert _select._fast_case(mask, x, x.astype(np.float32)) is None  # two dtypes: promotion
    assert _select._fast_case(mask, x.astype(np.int64), 0) is None
    assert _select._fast_case(mask, x, True) is None
    assert _select._fast_case(mask, x.astype(np.float32), 1e39) is None  # overflows float32
    assert _select._fast_case(mask.reshape(40, 50).T, x.reshape(50, 40), 0) is None
    assert _select._fast_case(mask.astype(np.int8), x, 0) is None


def test_broadcast_and_transposed_operands_give_np_where_s_values():
    rng = np.random.default_rng(3)
    mask = rng.standard_normal((40, 50)) > 0
    g = np.broadcast_to(np.float32(1.5), (40, 50))
    t = rng.standard_normal((50, 40)).astype(np.float32).T
    for a, b in [(g, 0), (t, g), (0.0, t)]:
        assert np.array_equal(_select.where(mask, a, b), np.where(mask, a, b))


torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "fn",
    [
        "relu",
        "leaky_relu",
        "leaky_relu_negative_slope",
        "elu",
        "where",
    ],
)
def test_ops_on_large_arrays_match_torch(fn, dtype):
    x = _data(dtype, n=4000).reshape(100, 40)
    x = np.where(np.isnan(x), 1.0, x)  # NaN's sign after arithmetic is not specified
    g = np.random.default_rng(4).standard_normal((100, 40)).astype(dtype)

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        F = lib.nn.functional
        out = {
            "relu": lambda: lib.relu(t),
            "leaky_relu": lambda: F.leaky_relu(t, 0.1),
            "leaky_relu_negative_slope": lambda: F.leaky_relu(t, -0.3),
            "elu": lambda: F.elu(t, 0.7),
            "where": lambda: lib.where(t > 0, t * 2, t - 1),
        }[fn]()
        out.backward(lib.tensor(g))
        return out.detach().numpy(), t.grad.numpy()

    (ours, ours_grad), (theirs, theirs_grad) = run(lg), run(torch)
    assert ours.dtype == theirs.dtype
    if fn == "elu":
        np.testing.assert_allclose(ours, theirs, rtol=4 * np.finfo(dtype).eps, atol=0)
        np.testing.assert_allclose(ours_grad, theirs_grad, rtol=4 * np.finfo(dtype).eps, atol=0)
    else:  # selections and one product each: exact, signed zeros included
        assert np.array_equal(_bits(ours), _bits(theirs))
        assert np.array_equal(_bits(ours_grad), _bits(theirs_grad))
