"""ops/_thin_gemm.c: float64 and float32 products of tall, thin shapes equal NumPy's to
round-off in every layout they take, decline the layouts they do not take without writing,
and are what ``_gemm.matmul`` runs where measured (OpenBLAS's AVX2 kernels on one thread),
with results unchanged."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _gemm
from tests._against_torch import tanh_layer_to_second_order

thin = pytest.importorskip("leafgrad.ops._thin_gemm", reason="the C extension is not built")
pytestmark = pytest.mark.skipif(not thin.AVAILABLE, reason="this CPU lacks AVX2 or FMA")


def _matrix(rows, cols, seed, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal((rows, cols)).astype(dtype)


def _assert_round_off(got, expected, terms):
    """Within a few ulp of the largest entry per term (sums of ``terms`` products, any order;
    float32 sums by blocks of rows, so their error grows more slowly)."""
    assert got.dtype == expected.dtype
    scale = np.abs(expected).max() * np.finfo(got.dtype).eps
    np.testing.assert_allclose(got, expected, rtol=0, atol=4 * min(terms, 200) * scale)


DTYPES = [np.float64, np.float32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("m", "k", "n"),
    [(3000, 20, 20), (1000, 32, 32), (257, 13, 7), (7, 3, 5), (64, 64, 64), (1, 2, 3), (5, 0, 4)],
)
def test_product_is_numpys(m, k, n, dtype):
    a, b = _matrix(m, k, 0, dtype), _matrix(k, n, 1, dtype)
    out = np.full((m, n), np.nan, dtype)
    assert thin.product(a, b, out) is True
    _assert_round_off(out, a @ b, k)


def test_product_takes_strided_rows_and_any_b():
    big = _matrix(300, 40, 2)
    a = big[::-1, 5:25]  # rows apart and in reverse; each row contiguous
    w = _matrix(20, 20, 3)
    for b in (w, w.T, w[::-1, ::-1], np.asfortranarray(w)):
        out = np.empty((300, 20))
        assert thin.product(a, b, out)
        _assert_round_off(out, a @ b, 20)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("m", "k1", "n"), [(30000, 20, 20), (1000, 32, 32), (100, 6, 9), (3, 4, 4), (200, 24, 20)]
)
def test_gram_is_numpys(m, k1, n, dtype):
    a, g = _matrix(m, k1, 4, dtype), _matrix(m, n, 5, dtype)
    out = np.full((k1, n), np.nan, dtype)
    assert thin.gram(a, g, out) is True
    _assert_round_off(out, a.T @ g, m)


def test_layouts_it_does_not_take_are_declined_unwritten():
    a, b, g = _matrix(100, 20, 6), _matrix(20, 20, 7), _matrix(100, 20, 8)
    out, gram_out = np.full((100, 20), 7.0), np.full((20, 20), 7.0)
    assert thin.product(a.astype(np.float32), b, out) is False  # mixed dtypes
    assert thin.product(a.astype(np.float16), b.astype(np.float16), out) is False
    assert thin.product(np.asfortranarray(a), b, out) is False  # a's columns contiguous
    assert thin.product(a, b, np.asfortranarray(out)) is False  # out's columns contiguous
    assert thin.gram(np.asfortranarray(a), g, gram_out) is False
    assert thin.gram(a, g[:, ::-1], gram_out) is False  # g's rows reversed
    assert np.all(out == 7.0) and np.all(gram_out == 7.0)


def test_wrong_shapes_are_errors():
    a = _matrix(100, 20, 9)
    with pytest.raises(ValueError, match="shapes"):
        thin.product(a, _matrix(21, 20, 10), np.empty((100, 20)))
    with pytest.raises(ValueError, match="at most 64"):
        thin.product(_matrix(100, 65, 11), _matrix(65, 4, 12), np.empty((100, 4)))
    with pytest.raises(ValueError, match="shapes"):
        thin.gram(a, _matrix(99, 20, 13), np.empty((20, 20)))
    with pytest.raises(TypeError):
        thin.product(a, a)
    with pytest.raises(TypeError):
        thin.product(a, [[1.0]], np.empty((100, 1)))


@pytest.fixture
def thin_in_use(monkeypatch):
    """``_gemm`` takes the kernels as on an AVX2 OpenBLAS running one thread, on this host;
    the list of the kernels it ran, in order."""
    calls = []

    class Spy:
        """Records which kernel ran."""

        @staticmethod
        def product(*args):
            calls.append("product")
            return thin.product(*args)

        @staticmethod
        def gram(*args):
            calls.append("gram")
            return thin.gram(*args)

    monkeypatch.setattr(_gemm, "_thin_module", Spy)
    monkeypatch.setattr(_gemm, "_thin_kernels", lambda: True)
    return calls


@pytest.mark.parametrize(
    ("m", "k", "n", "taken"),
    [
        (3000, 20, 20, "product"),  # a layer
        (20, 3000, 20, "gram"),  # its weight's gradient (a = A^T)
        (1000, 2, 20, "product"),  # a first layer
        (3000, 20, 1, None),  # a one-output layer: NumPy's vector product
        (2, 3000, 20, None),  # a first layer's weight gradient: too narrow
        (48, 3000, 48, None),  # too wide for gram
        (200, 20, 20, None),  # too few rows
    ],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_takes_them_where_measured(thin_in_use, m, k, n, taken, dtype):
    a = _matrix(k, m, 14, dtype).T if k > m else _matrix(m, k, 14, dtype)  # a gradient: A^T
    b = _matrix(k, n, 15, dtype)
    got = _gemm.matmul(a, b)
    assert thin_in_use == ([taken] if taken else [])
    assert got.shape == (m, n) and got.dtype == dtype and got.flags.c_contiguous
    _assert_round_off(got, a @ b, k)


def test_not_taken_without_avx2_openblas_on_one_thread(monkeypatch):
    class Blas:
        def __init__(self, architecture, threads):
            self.architecture, self.threads = architecture, threads

        def get_num_threads(self):
            return self.threads

    monkeypatch.delenv("LEAFGRAD_PURE_PYTHON", raising=False)  # (CI's pure rounds set it)
    monkeypatch.setattr(_gemm, "_mkl_in_use", lambda: False)  # (on Intel CPUs MKL may take them)
    for architecture, threads, expected in (("Zen", 1, True), ("Haswell", 2, False)):
        monkeypatch.setattr(_gemm, "_numpy_blas", Blas(architecture, threads))
        monkeypatch.setattr(_gemm, "_thin_module", None)
        assert _gemm._thin_kernels() is expected
    for architecture in ("SkylakeX", "SapphireRapids", "Sandybridge"):
        monkeypatch.setattr(_gemm, "_numpy_blas", Blas(architecture, 1))
        monkeypatch.setattr(_gemm, "_thin_module", None)
        assert _gemm._thin_kernels() is False
    monkeypatch.setattr(_gemm, "_numpy_blas", Blas("Zen", 1))
    monkeypatch.setattr(_gemm, "_mkl_in_use", lambda: True)  # MKL takes the products
    monkeypatch.setattr(_gemm, "_thin_module", None)
    assert _gemm._thin_kernels() is False
    monkeypatch.setattr(_gemm, "_mkl_in_use", lambda: False)
    monkeypatch.setenv("LEAFGRAD_PURE_PYTHON", "1")
    monkeypatch.setattr(_gemm, "_thin_module", None)
    assert _gemm._thin_kernels() is False


def _second_order_step(seed=16):
    """A tanh layer's input gradient, and the weight's gradient of its squared norm."""
    rng = np.random.default_rng(seed)
    x = lg.tensor(rng.uniform(-1, 1, (500, 20)), requires_grad=True)
    w = lg.tensor(rng.standard_normal((20, 20)) / 4, requires_grad=True)
    (g,) = lg.autograd.grad(lg.tanh(x @ w).sum(), x, create_graph=True)
    (g * g).sum().backward()
    return g.detach().numpy(), w.grad.numpy()


def test_a_second_order_step_through_them_is_numpys(monkeypatch):
    monkeypatch.setattr(_gemm, "_thin_kernels", lambda: False)
    expected = _second_order_step()
    monkeypatch.setattr(_gemm, "_thin_module", thin)
    monkeypatch.setattr(_gemm, "_thin_kernels", lambda: True)
    for got, want in zip(_second_order_step(), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13 * np.abs(want).max())


@pytest.mark.parametrize(("dtype", "tol"), [("float64", 1e-12), ("float32", 2e-5)])
def test_a_layer_through_them_matches_pytorch_to_second_order(thin_in_use, dtype, tol):
    """A tanh layer's value, gradients and gradient of a gradient, its products by the
    kernels, against PyTorch's; tolerances relative to each result's largest entry (the
    weight's gradients sum 3000 products)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(17)
    x, w = rng.standard_normal((3000, 20)), rng.standard_normal((20, 20)) / 5
    v = rng.standard_normal((3000, 20))
    x, w, v = (a.astype(dtype) for a in (x, w, v))
    ours = tanh_layer_to_second_order(lg, x, w, v)
    assert "product" in thin_in_use and "gram" in thin_in_use
    for got, want in zip(ours, tanh_layer_to_second_order(torch, x, w, v), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())
