"""ops/_vml.py: the elementary functions by MKL's vector math (where MKL and numba are
installed) give PyTorch's values to the bit, stay within a few ulp of NumPy's, give NumPy's
special values, and leave everything else to NumPy."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, _vml

needs_vml = pytest.mark.skipif(not _vml.available(), reason="MKL or numba not installed")
# op -> the range its test inputs are drawn from
RANGES = {
    "sin": (-50, 50),
    "cos": (-50, 50),
    "exp": (-80, 80),
    "log": (1e-3, 1e3),
    "tanh": (-6, 6),
    "tan": (-1.5, 1.5),
    "asin": (-1, 1),
    "atan": (-20, 20),
    "log2": (1e-3, 1e3),
    "log10": (1e-3, 1e3),
}
DTYPES = [np.float32, np.float64]


def _inputs(op, dtype, shape=(300, 70), seed=0):
    lo, hi = RANGES[op]
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def _ours(op):
    return getattr(_vml, op)


def _numpys(op):
    return _vml.FUNCTIONS[op][0]


def test_every_function_of_the_table_is_exposed():
    assert set(_vml.FUNCTIONS) == set(RANGES)
    if _vml.available():  # the compiled callers pick VML's function by its index here
        from leafgrad.ops import _mkl_calls

        assert _mkl_calls.VECTOR_FUNCTIONS == tuple(v for _, v in _vml.FUNCTIONS.values())
    for op, (numpys, _) in _vml.FUNCTIONS.items():
        assert _ours(op).__name__ == op and callable(numpys)


@needs_vml
@pytest.mark.parametrize("op", sorted(RANGES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_within_a_few_ulp_of_numpy_on_every_layout_and_size(op, dtype):
    """VML is within 1 ulp of the exact result (NumPy's float32 exp up to 2.3 ulp), and an
    element's value does not depend on the array's layout or size."""
    x = _inputs(op, dtype)
    read_only = x.copy()
    read_only.flags.writeable = False
    whole = _ours(op)(x)
    for a in (x, np.asfortranarray(x), x.reshape(-1), read_only, x[:, ::3], x[:8, :9], x[0, 0]):
        got, want = _ours(op)(a), _numpys(op)(a)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.flags.f_contiguous == np.asarray(want).flags.f_contiguous or got.ndim < 2
        np.testing.assert_array_max_ulp(got, want, maxulp=3)
    np.testing.assert_array_equal(_ours(op)(x[:, ::3]), whole[:, ::3])
    np.testing.assert_array_equal(_ours(op)(x[:8, :9]), whole[:8, :9])
    np.testing.assert_array_equal(_ours(op)(np.asfortranarray(x)), whole)


@needs_vml
@pytest.mark.parametrize("op", sorted(RANGES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values_are_numpys(op, dtype):
    tiny = np.finfo(dtype).smallest_subnormal
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 1.0, -1.0, 2.0, 1e30, -1e30]
    x = np.array(specials * 20, dtype=dtype)
    with np.errstate(all="ignore"):
        want = _numpys(op)(x)
    got = _ours(op)(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    np.testing.assert_array_max_ulp(got[finite], want[finite], maxulp=3)
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.mark.parametrize("op", sorted(RANGES))
def test_the_rest_is_numpys_bit_for_bit(op):
    x = _inputs(op, np.float64, (64, 64), seed=1)
    cases = [
        x[:5, :5],  # below MIN_SIZE
        x.astype(np.float16),
        x.astype(np.complex128)[:2, :2],
        np.float64(x[0, 0]),
    ]
    for a in cases:
        got, want = _ours(op)(a), _numpys(op)(a)
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    out = np.empty_like(x)
    assert _ours(op)(x, out=out) is out  # NumPy's arguments: NumPy's call
    np.testing.assert_array_equal(out, _numpys(op)(x))


def test_without_numba_or_mkl_numpy_computes_them(monkeypatch):
    monkeypatch.setattr(_vml, "_callers", {})
    assert not _vml.available()
    x = _inputs("exp", np.float32)
    np.testing.assert_array_equal(_vml.exp(x), np.exp(x))


@needs_vml
@pytest.mark.parametrize("op", sorted(RANGES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_ops_give_pytorchs_values(op, dtype):
    """PyTorch's CPU kernels call VML too: its values (to the bit with the MKL PyTorch
    bundles, 2024.2; a newer MKL moves up to 3% by an ulp), in-place variant included;
    where NumPy's are PyTorch's already, NumPy's. (NumPy's agree on 52-99% of float32
    elements with its AVX-512 kernels; its other kernels, which CI also runs, differ.)"""
    torch = pytest.importorskip("torch")
    x = _inputs(op, dtype, seed=2)
    ours = getattr(lg, op)(lg.tensor(x)).numpy()
    theirs = getattr(torch, op)(torch.tensor(x)).numpy()
    # tanh: _tanh_loops' pass (within 1.5 ulp of the exact value, VML's within 1), not VML
    own_loop = op == "tanh" and _fused.available()
    np.testing.assert_array_max_ulp(ours, theirs, maxulp=2 if own_loop else 1)
    t = lg.tensor(x)
    getattr(t, op + "_")()
    np.testing.assert_array_equal(t.numpy(), ours)
    if own_loop:
        return
    if np.dtype(dtype).char in _vml.DTYPES[op]:
        assert np.mean(ours == theirs) >= 0.9
    else:
        np.testing.assert_array_equal(ours, _numpys(op)(x))


@needs_vml
@pytest.mark.parametrize("op", ["sin", "cos", "exp", "tanh"])
def test_two_derivatives_match_pytorch(op):
    torch = pytest.importorskip("torch")
    x = _inputs(op, np.float64, (200, 30), seed=3) / 4
    results = []
    for lib in (lg, torch):
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib, op)(t)
        (g,) = lib.autograd.grad(y.sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), t)
        results.append([a.detach().numpy() for a in (y, g, gg)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-14)


@needs_vml
@pytest.mark.parametrize("op", ["sin", "cos", "exp"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_taylor_paths_variants_take_vml_at_any_size(op, dtype):
    """A derivative block's values must not depend on how rows were cut (jet_blocks)."""
    x = _inputs(op, dtype, (40, 20), seed=4)
    whole = getattr(_vml, op + "_any")(x)
    np.testing.assert_array_equal(getattr(_vml, op + "_any")(x[:2, :3]), whole[:2, :3])
    np.testing.assert_array_equal(whole, _ours(op)(x))  # 800 elements: the op's VML too
