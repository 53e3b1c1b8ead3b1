"""softplus's kernel (``activations._log1p_exp``): PyTorch's ``log1p(exp(z))``, Goldberg's
float32 form where NumPy's ``log1p`` is scalar, and where NumPy's ``logaddexp`` stays."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._quiet import quiet_context
from leafgrad.ops import _vml, activations
from leafgrad.ops.activations import _log1p_exp


@pytest.fixture(params=[True, False], ids=["log1p(exp)", "goldberg"])
def kernel(request, monkeypatch):
    """Each float32 kernel in turn (on any host): NumPy's log1p taken as fast, or as slow."""
    monkeypatch.setattr(activations, "FAST_NUMPY_LOG1P", request.param)
    return request.param


def _run(z):
    return quiet_context().run(_log1p_exp, z)  # quiet, as inside the op


def _exact32(z):
    with np.errstate(all="ignore"):
        return np.logaddexp(0, z.astype(np.float64)).astype(np.float32)


def test_float32_kernels_are_within_four_ulp(kernel):
    rng = np.random.default_rng(3)
    z = np.concatenate([rng.normal(0, 6, 20000), rng.uniform(-1e-3, 1e-3, 5000)])
    z = z.astype(np.float32)
    got, want = _run(z), _exact32(z)
    assert got.dtype == np.float32 and got.shape == z.shape
    ulps = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want))
    assert ulps.max() <= 4  # (logaddexp: 1; PyTorch float32 tolerances: ~11)


def test_float32_kernels_special_values(kernel):
    z = np.zeros(4096, np.float32)
    specials = [np.inf, -np.inf, np.nan, 0.0, -0.0, -100.0, -17.0, 88.0, 1e-30]
    z[: len(specials)] = specials
    got = _run(z)[: len(specials)]
    assert got[0] == np.inf and got[1] == 0.0 and np.isnan(got[2])
    assert got[3] == got[4] == np.float32(np.log(2.0))
    np.testing.assert_allclose(got[5:], _exact32(z[5 : len(specials)]), rtol=4e-7, atol=0)


def test_the_kernels_are_the_ones_named(monkeypatch):
    z = np.random.default_rng(5).normal(0, 4, 5000).astype(np.float32)
    with np.errstate(all="ignore"):  # (exp by VML where MKL is there, as PyTorch's)
        torch_formula = np.log1p(_vml.exp(z))
    monkeypatch.setattr(activations, "FAST_NUMPY_LOG1P", True)
    np.testing.assert_array_equal(_run(z), torch_formula)
    monkeypatch.setattr(activations, "FAST_NUMPY_LOG1P", False)
    assert not np.array_equal(_run(z), torch_formula)  # Goldberg's: other roundings
    np.testing.assert_array_equal(_run(z[:100]), torch_formula[:100])  # small: log1p(exp)


def test_goldbergs_compiled_passes_round_as_numpys(monkeypatch):
    """The compiled passes around NumPy's log (``_exp32``'s exp in the first) give the NumPy
    passes' values within 4 ulp (each is within 4 of the exact value), and their special
    values."""
    from leafgrad.ops import _fused

    if not _fused.available():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(7)
    specials = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, -1e-30, 88.0, -88.0, 1e30, -1e30]
    z = np.concatenate([rng.normal(0, 8, 20000), specials]).astype(np.float32)
    compiled = quiet_context().run(activations._log1p_exp_goldberg, z)
    monkeypatch.setattr(_fused, "_numba", False)
    numpys = quiet_context().run(activations._log1p_exp_goldberg, z)
    assert np.array_equal(np.isnan(compiled), np.isnan(numpys))
    np.testing.assert_array_equal(np.isinf(compiled), np.isinf(numpys))
    finite = np.isfinite(numpys)
    gap = np.abs(compiled[finite] - numpys[finite])
    assert (gap <= 4 * np.spacing(np.abs(numpys[finite]))).all()
    # Zeros' signs too; not NaNs' (two NaN operands meet in these steps, and which one an
    # operation passes on differs between NumPy's own SIMD and baseline loops).
    numbers = ~np.isnan(numpys)
    assert np.array_equal(np.signbit(compiled[numbers]), np.signbit(numpys[numbers]))


def test_float64_is_pytorchs_formula_within_two_ulp():
    z = np.concatenate([np.random.default_rng(6).normal(0, 8, 20000), [-745.0, -40.0, 700.0]])
    got = _run(z)
    np.testing.assert_array_equal(got, np.log1p(_vml.exp(z)))
    exact = np.logaddexp(0, z)
    assert (np.abs(got - exact) <= 2 * np.spacing(np.abs(exact))).all()


def test_float16_keeps_numpys_logaddexp():
    z = np.linspace(-5, 5, 100, dtype=np.float16)
    np.testing.assert_array_equal(_run(z), np.logaddexp(0, z))


def test_softplus_on_a_large_float32_tensor_matches_pytorch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(4).normal(0, 5, (500, 20)).astype(np.float32)
    for beta, threshold in ((1.0, 20.0), (2.0, 5.0)):
        x = lg.tensor(data, requires_grad=True)
        y = lg.nn.functional.softplus(x, beta=beta, threshold=threshold)
        (g,) = lg.autograd.grad(y.sum(), x)
        tx = torch.tensor(data, requires_grad=True)
        ty = torch.nn.functional.softplus(tx, beta=beta, threshold=threshold)
        (tg,) = torch.autograd.grad(ty.sum(), tx)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [50, 20000])
def test_softplus_values_match_pytorch_at_small_and_large_sizes(size, dtype):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(7).normal(0, 6, size).astype(dtype)
    ours = lg.nn.functional.softplus(lg.tensor(data)).numpy()
    theirs = torch.nn.functional.softplus(torch.from_numpy(data)).numpy()
    rtol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0)


def _softplus_formula(x, beta, threshold):
    """PyTorch's softplus as one NumPy expression (``log1p(exp(x beta)) / beta`` below the
    threshold): what every path gives where ``_log1p_exp`` is that formula."""
    bx = x * beta  # (exp by VML where MKL is there, as PyTorch's)
    return np.where(bx > threshold, x, np.log1p(_vml.exp(bx)) / beta).astype(x.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(8, 8), (3,), (40, 30)])
@pytest.mark.parametrize(
    "beta, threshold", [(1.0, 20.0), (1, 20), (2.0, 5.0), (0.5, 3), (3, 4.0), (True, 20.0)]
)
def test_softplus_on_float_arrays_is_the_formula_bit_for_bit(shape, dtype, beta, threshold):
    """``_softplus_in_place`` (small arrays, and the compiled select from 512 elements) and,
    for a ``beta`` that is no Python float or int, the general path: one result."""
    x = np.random.default_rng(8).normal(0, 8, shape).astype(dtype)
    x.flat[:5] = [np.nan, np.inf, -np.inf, -0.0, 800.0]
    got = quiet_context().run(activations._softplus_forward, x, beta=beta, threshold=threshold)
    with np.errstate(all="ignore"):
        want = _softplus_formula(x, beta, threshold)
    assert got.dtype == x.dtype and got.shape == x.shape
    assert got.tobytes() == want.tobytes()


def test_softplus_on_a_0d_array_keeps_the_general_path():
    x = np.array(3.0, np.float32)
    got = quiet_context().run(activations._softplus_forward, x, beta=1.0, threshold=20.0)
    assert got.dtype == np.float32 and got.shape == ()
    assert got == np.float32(np.logaddexp(0, np.float32(3.0)))


def test_functional_softplus_records_leafgrads_node_and_refuses_integers():
    x = lg.tensor([[-1.0, 0.5], [30.0, 2.0]], requires_grad=True)
    ours = lg.nn.functional.softplus(x, 2.0, 10.0)
    same = lg.softplus(x, 2.0, 10.0)
    assert type(ours.grad_fn).__name__ == type(same.grad_fn).__name__ == "SoftplusBackward0"
    assert (ours.grad_fn._saved_beta, ours.grad_fn._saved_threshold) == (2.0, 10.0)
    assert ours.detach().numpy().tobytes() == same.detach().numpy().tobytes()
    for name in ("softplus", "gelu", "silu"):
        with pytest.raises(NotImplementedError, match=f"{name}: not implemented for 'Long'"):
            getattr(lg.nn.functional, name)(lg.tensor([1, 2]))
