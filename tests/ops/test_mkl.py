"""ops/_mkl.py: MKL's products (where installed) equal NumPy's to round-off for every layout
BLAS takes, refuse the others, and take ``_gemm``'s products past the small-matrix bound only
on an Intel CPU while NumPy's BLAS runs one thread; a PINN layer through them keeps its
gradients."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _gemm, _mkl, jet_dense
from tests._against_torch import tanh_layer_to_second_order

needs_mkl = pytest.mark.skipif(not _mkl.available(), reason="MKL not installed")


class _Blas:
    """Stands for NumPy's BLAS controller, on ``threads`` threads."""

    def __init__(self, threads):
        self.threads = threads

    def get_num_threads(self):
        return self.threads


@pytest.fixture(autouse=True)
def intel(monkeypatch):
    """Every test here as on an Intel CPU, where ``_gemm`` hands MKL its large products."""
    monkeypatch.setattr(_gemm, "_intel", True)


@pytest.fixture
def one_thread(monkeypatch):
    monkeypatch.setattr(_gemm, "_numpy_blas", _Blas(1))


def _close(got, want):
    assert got.dtype is want.dtype and got.shape == want.shape and got.flags.c_contiguous
    tol = 1e-12 if got.dtype == np.float64 else 3e-6
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def _operands(shape_a, shape_b, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape_a).astype(dtype), rng.standard_normal(shape_b).astype(dtype)


@pytest.fixture(params=["compiled", "ctypes"])
def caller(request, monkeypatch):
    """Each way of calling MKL: from compiled code (where numba is there), through ctypes."""
    if request.param == "ctypes":
        monkeypatch.setattr(_mkl, "_products", {})
    elif not _mkl.compiled_calls():
        pytest.skip("numba not installed: MKL is called through ctypes only")
    return request.param


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_every_blas_layout_gives_numpys_product(caller, dtype, transpose_a, transpose_b):
    a, b = _operands((300, 7), (7, 11), dtype)
    if transpose_a:
        a = np.ascontiguousarray(a.T).T
    if transpose_b:
        b = np.ascontiguousarray(b.T).T
    _close(_mkl.matmul(a, b), np.matmul(a, b))


@needs_mkl
def test_compiled_and_ctypes_calls_give_the_same_bits(monkeypatch):
    """The same MKL function either way: equal results, read-only operands included."""
    if not _mkl.compiled_calls():
        pytest.skip("numba not installed")
    for dtype in (np.float32, np.float64):
        a, b = _operands((500, 20), (20, 20), dtype, seed=1)
        a.flags.writeable = False
        compiled = [_mkl.matmul(a, b), _mkl.matmul(b.T, a.T), _mkl.matmul(a.T, a)]
        with monkeypatch.context() as m:
            m.setattr(_mkl, "_products", {})
            by_ctypes = [_mkl.matmul(a, b), _mkl.matmul(b.T, a.T), _mkl.matmul(a.T, a)]
        for got, want in zip(compiled, by_ctypes):
            assert got.dtype is want.dtype and got.flags.c_contiguous
            np.testing.assert_array_equal(got, want)


@needs_mkl
def test_single_rows_and_columns(caller):
    a, b = _operands((1, 20), (20, 1), np.float64)
    _close(_mkl.matmul(a, b), a @ b)
    _close(_mkl.matmul(b, a), b @ a)  # an outer product
    _close(_mkl.matmul(b.T, a.T), b.T @ a.T)


@needs_mkl
def test_other_layouts_and_mixed_dtypes_are_refused():
    a, b = _operands((40, 20), (20, 20), np.float64)
    assert _mkl.matmul(a[:, ::2], b[::2]) is None  # strided
    assert _mkl.matmul(a, b.astype(np.float32)) is None
    assert _mkl.matmul(a.astype(np.int64), b.astype(np.int64)) is None


def test_turned_off_or_missing_leaves_numpys_products(monkeypatch):
    monkeypatch.setattr(_mkl, "_gemms", None)
    monkeypatch.setenv("LEAFGRAD_MKL", "0")
    assert not _mkl.available()
    a, b = _operands((40, 20), (20, 20), np.float64)
    assert _mkl.matmul(a, b) is None


@needs_mkl
@pytest.mark.parametrize("threads", [1, 2])
def test_gemm_hands_mkl_large_products_on_one_blas_thread(monkeypatch, threads):
    monkeypatch.setattr(_gemm, "_numpy_blas", _Blas(threads))
    calls = []

    def counted(a, b):
        calls.append(a.shape)
        return _mkl_matmul(a, b)

    _mkl_matmul = _mkl.matmul
    monkeypatch.setattr(_mkl, "matmul", counted)
    for dtype in (np.float32, np.float64):
        a, b = _operands((10_000, 20), (20, 20), dtype)
        _close(_gemm.matmul(a, b), np.matmul(a, b))  # past the small-matrix bound
        _close(_gemm.matmul(a.T, a), np.matmul(a.T, a))  # a weight's gradient
        small = a[:1000]
        _close(_gemm.matmul(small, b), np.matmul(small, b))  # within it: OpenBLAS's
    assert len(calls) == (4 if threads == 1 else 0)


@needs_mkl
@pytest.mark.parametrize("vendor", ["AuthenticAMD", ""])
def test_other_cpus_keep_openblas_products(monkeypatch, one_thread, vendor):
    """MKL's products were slower than OpenBLAS's on an AMD EPYC: elsewhere NumPy's stay."""
    monkeypatch.setattr(_gemm, "_intel", None)
    monkeypatch.setattr(_gemm, "cpu_vendor", lambda: vendor)
    monkeypatch.setattr(_mkl, "matmul", lambda a, b: pytest.fail("MKL was called"))
    a, b = _operands((10_000, 20), (20, 20), np.float64)
    _close(_gemm.matmul(a, b), np.matmul(a, b))
    assert _gemm._intel is False


@needs_mkl
def test_through_ctypes_float32_goes_to_mkl_from_a_larger_product(monkeypatch, one_thread, caller):
    """Called from compiled code MKL takes both dtypes past the small-matrix bound; through
    ctypes (~7 us a call) float32 only from four times that."""
    calls = []
    _mkl_matmul = _mkl.matmul
    monkeypatch.setattr(
        _mkl, "matmul", lambda a, b: calls.append(a.dtype.char) or _mkl_matmul(a, b)
    )
    for dtype in (np.float32, np.float64):
        a, b = _operands((3000, 20), (20, 20), dtype)  # 1.2e6: past the small-matrix bound
        _close(_gemm.matmul(a, b), np.matmul(a, b))
    assert calls == (["d"] if caller == "ctypes" else ["f", "d"])


@needs_mkl
def test_layers_are_not_cut_into_row_blocks_when_mkl_takes_their_products(monkeypatch):
    p = np.ones((3, 50_000, 20))
    w = np.ones((20, 20))
    monkeypatch.setattr(_gemm, "_numpy_blas", _Blas(2))
    assert jet_dense.blocks_layer(p, w)  # OpenBLAS on two threads: row blocks
    monkeypatch.setattr(_gemm, "_numpy_blas", _Blas(1))
    assert not jet_dense.blocks_layer(p, w)


@needs_mkl
@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
def test_a_collapsed_taylor_layer_through_mkl_matches_nested_reverse_mode(one_thread, dtype):
    """A tall tanh network's value, derivatives and parameter gradients through MKL's
    products equal nested ``autograd.grad`` (PyTorch's way) to round-off."""
    from leafgrad.autograd import taylor

    rng = np.random.default_rng(3)
    ws = [lg.tensor(rng.standard_normal(s) / 3, dtype=dtype, requires_grad=True) for s in
          [(2, 20), (20, 20), (20, 1)]]  # fmt: skip
    x = lg.tensor(rng.uniform(-1, 1, (20_000, 2)), dtype=dtype)

    def net(z):
        return ((z @ ws[0]).tanh() @ ws[1]).tanh() @ ws[2]

    u, g, lap = taylor.collapsed(net, x, [1.0, 0.0])
    (lap.square().mean() + g.square().mean()).backward()
    fused = [w.grad.clone() for w in ws]
    for w in ws:
        w.grad = None
    xr = x.clone().requires_grad_()
    ur = net(xr)
    (gr,) = lg.autograd.grad(ur.sum(), xr, create_graph=True)
    (hr,) = lg.autograd.grad(gr[:, 0].sum(), xr, create_graph=True)
    (hr[:, :1].square().mean() + gr.square().mean()).backward()
    tol = 1e-10 if dtype == lg.float64 else 2e-4
    for got, want in ((u, ur), (g[:, 0], gr), (lap, hr[:, :1])):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)
    for got, w in zip(fused, ws):
        np.testing.assert_allclose(got.numpy(), w.grad.numpy(), rtol=tol, atol=tol)


@needs_mkl
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_layer_through_mkl_matches_pytorch_to_second_order(one_thread, dtype, monkeypatch):
    """A tall tanh layer whose products all go to MKL, against PyTorch (which multiplies by
    MKL too): value, gradients and a gradient of a gradient, relative to each result's
    largest entry (a weight's gradient sums 1e4 products)."""
    torch = pytest.importorskip("torch")
    calls = []
    _mkl_matmul = _mkl.matmul
    monkeypatch.setattr(_mkl, "matmul", lambda a, b: calls.append(1) or _mkl_matmul(a, b))
    rng = np.random.default_rng(4)
    x = rng.standard_normal((10_000, 20)).astype(dtype)
    w = (rng.standard_normal((20, 20)) / 5).astype(dtype)
    v = rng.standard_normal((10_000, 20)).astype(dtype)

    tol = 1e-11 if dtype == "float64" else 2e-4
    for ours, theirs in zip(
        tanh_layer_to_second_order(lg, x, w, v),
        tanh_layer_to_second_order(torch, x, w, v),
        strict=True,
    ):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol * np.abs(theirs).max())
    assert len(calls) >= 6  # the forward's two products and the backwards' through MKL


@needs_mkl
def test_thirty_two_bit_sizes_whatever_the_environment_asks():
    """With MKL_INTERFACE_LAYER=ILP64 in the environment the loader still sets the LP64
    layer (the calls pass C ints): products and VML's sine come out right."""
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from leafgrad.ops import _mkl, _vml\n"
        "a = np.linspace(-1, 1, 60000).reshape(3000, 20)\n"
        "b = np.linspace(0, 1, 400).reshape(20, 20)\n"
        "assert np.allclose(_mkl.matmul(a, b), a @ b, rtol=1e-12, atol=1e-12)\n"
        "assert np.allclose(_vml.sin(a), np.sin(a), rtol=1e-15, atol=1e-15)\n"
        "print('ok')\n"
    )
    env = {**__import__("os").environ, "MKL_INTERFACE_LAYER": "ILP64"}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr
