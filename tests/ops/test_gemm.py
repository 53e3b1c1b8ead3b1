"""ops/_gemm.py: 2-D products cut into pieces within OpenBLAS's small-matrix bound equal
NumPy's to round-off, whichever way they are cut; the cut is taken only where measured (a
SkylakeX OpenBLAS on one thread), and never changes a product's shape or dtype."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _gemm
from tests._against_torch import tanh_layer_to_second_order


class _OneThreadBlas:
    """Stands for NumPy's OpenBLAS with SkylakeX kernels, on ``threads`` threads."""

    def __init__(self, threads=1):
        self.threads = threads

    def get_num_threads(self):
        return self.threads


@pytest.fixture
def skylakex(monkeypatch):
    """Products are cut as on a SkylakeX OpenBLAS running one thread, on any host."""
    monkeypatch.setattr(_gemm, "_blas", _OneThreadBlas())


def _arrays(m, k, n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)


def _assert_close(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    tol = 1e-12 if got.dtype == np.float64 else 2e-5
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * np.abs(expected).max())


@pytest.mark.parametrize(
    ("m", "k", "n", "dtype", "kind"),
    [
        (10_000, 20, 20, np.float64, "rows"),  # a layer's product: 4e6 > 100^3
        (5_003, 32, 24, np.float64, "rows"),  # a short last block
        (10_000, 20, 20, np.float32, None),  # a loss in float32 at this width: left whole
        (10_000, 32, 32, np.float32, "rows"),
        (1_300, 32, 32, np.float32, None),  # float32 rows: only tall products pay
        (20, 10_000, 20, np.float64, "inner"),  # a weight's gradient
        (20, 7_777, 16, np.float32, "inner"),
        (1_000, 20, 20, np.float64, None),  # within the bound already
        (10_000, 2, 20, np.float64, None),  # too thin to gain
        (10_000, 100, 100, np.float64, None),  # too wide to gain
    ],
)
def test_pieces_and_their_product(skylakex, m, k, n, dtype, kind):
    assert _gemm._pieces(m, k, n, np.dtype(dtype)) == kind
    a, b = _arrays(m, k, n, dtype)
    _assert_close(_gemm.matmul(a, b), a @ b)


def test_rows_of_a_strided_a_and_a_transposed_b(skylakex):
    a, b = _arrays(20_000, 20, 20, np.float64)
    a, b = a[::2], b.T  # every other row; an F-ordered b (a backward's w^T)
    assert _gemm._pieces(*a.shape, b.shape[1], a.dtype) == "rows"
    _assert_close(_gemm.matmul(a, b), a @ b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_transposed_b_within_the_bound(skylakex, dtype):
    a, b = _arrays(1_000, 20, 20, dtype)
    _assert_close(_gemm.matmul(a, b.T), a @ b.T)


def test_inner_blocks_of_a_transposed_a(skylakex):
    rng = np.random.default_rng(1)
    p, g = rng.standard_normal((10_000, 20)), rng.standard_normal((10_000, 20))
    _assert_close(_gemm.matmul(p.T, g), p.T @ g)


@pytest.mark.parametrize(("m", "k", "n"), [(10_000, 20, 20), (20, 10_000, 20)])
def test_the_result_is_fresh_and_contiguous(skylakex, m, k, n):
    a, b = _arrays(m, k, n, np.float64)
    got = _gemm.matmul(a, b)
    assert got.flags.c_contiguous and got.flags.owndata
    assert not np.shares_memory(got, a) and not np.shares_memory(got, b)


def test_more_blas_threads_cut_only_small_weight_gradients(monkeypatch):
    monkeypatch.setattr(_gemm, "_blas", _OneThreadBlas(threads=2))
    assert _gemm._pieces(10_000, 20, 20, np.dtype(np.float64)) is None
    assert _gemm._pieces(20, 10_000, 20, np.dtype(np.float64)) == "inner"
    assert _gemm._pieces(32, 10_000, 32, np.dtype(np.float32)) == "inner"
    assert _gemm._pieces(64, 10_000, 64, np.dtype(np.float64)) is None


def test_nothing_is_cut_with_other_kernels(monkeypatch):
    monkeypatch.setattr(_gemm, "_blas", False)  # another BLAS, or OpenBLAS's Haswell kernels
    assert _gemm._pieces(20, 10_000, 20, np.dtype(np.float64)) is None


def test_mixed_dtypes_and_integers_are_left_to_numpy(skylakex):
    a, b = _arrays(10_000, 20, 20, np.float64)
    _assert_close(_gemm.matmul(a, b.astype(np.float32)), a @ b.astype(np.float32))
    ints = (a * 10).astype(np.int64), (b * 10).astype(np.int64)
    assert _gemm._pieces(10_000, 20, 20, np.dtype(np.int64)) is None
    assert _gemm._pieces(20, 10_000, 20, np.dtype(np.float16)) is None
    np.testing.assert_array_equal(_gemm.matmul(*ints), ints[0] @ ints[1])


def test_a_layer_and_its_gradients_through_cut_products(skylakex):
    """mm, addmm (nn.Linear) and their backwards on a layer past the bound, against the
    same computed whole."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6_000, 20))
    w, b = rng.standard_normal((20, 20)), rng.standard_normal(20)

    def step():
        xt, wt, bt = (lg.tensor(v, requires_grad=True) for v in (x, w, b))
        y = lg.tanh(xt @ wt + bt)
        z = lg.nn.functional.linear(y, wt.t(), bt)
        (z * z).sum().backward()
        return z.detach().numpy(), xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()

    cut = step()
    _gemm._blas = False  # the monkeypatch restores it
    for got, expected in zip(cut, step(), strict=True):
        _assert_close(got, expected)


@pytest.mark.parametrize("width", [20, 32])
def test_a_cut_layer_matches_pytorch_to_second_order(skylakex, width):
    """A tanh layer past the bound (rows and inner blocks both cut, float64) against
    PyTorch: value, gradients, and the gradient of a gradient. Tolerances are relative to
    each result's largest entry: the weight's gradient sums 4000 products, whose small
    entries cancel (there even the uncut product differs from PyTorch's by 1e-13)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((4_000, width)), rng.standard_normal((width, width)) / 5
    v = rng.standard_normal((4_000, width))
    assert _gemm._pieces(4_000, width, width, np.dtype(np.float64)) == "rows"
    assert _gemm._pieces(width, 4_000, width, np.dtype(np.float64)) == "inner"

    for ours, theirs in zip(
        tanh_layer_to_second_order(lg, x, w, v),
        tanh_layer_to_second_order(torch, x, w, v),
        strict=True,
    ):
        _assert_close(ours, theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("m, n", [(1, 1), (5, 7), (1000, 20), (3, 0), (0, 4)])
def test_an_outer_product_is_numpys_product(m, n, dtype):
    """k = 1 (a 1-input layer, a gradient through a 1-output one; addmm's too): each entry
    one product, as NumPy's matmul gives it, NaN from inf * 0 included."""
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((m, 1)) * 3).astype(dtype)
    b = (rng.standard_normal((1, n)) * 3).astype(dtype)
    if dtype.startswith("float") and m * n:
        a.flat[0], b.flat[-1] = np.inf, 0.0
    with np.errstate(invalid="ignore"):
        ours, numpys = _gemm.matmul(a, b), np.matmul(a, b)
    assert ours.dtype == numpys.dtype and ours.flags.c_contiguous
    np.testing.assert_array_equal(ours, numpys)
    strided = (rng.standard_normal((1, 9)).T, rng.standard_normal((4, 1)).T)  # F-order views
    np.testing.assert_array_equal(_gemm.matmul(*strided), np.matmul(*strided))
