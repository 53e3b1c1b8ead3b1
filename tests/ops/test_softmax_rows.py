"""``ops._softmax_rows``: log_softmax's and softmax's compiled float32 rows against NumPy's
passes, float64 and PyTorch: values to round-off, special rows, other dims and dtypes, both
gradients' forms."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, _softmax_rows
from leafgrad.ops import softmax as kernels

torch = pytest.importorskip("torch")
compiled = pytest.mark.skipif(not _fused.available(), reason="numba not installed")


@pytest.fixture
def numpy_only(monkeypatch):
    """NumPy's passes, as without numba."""
    monkeypatch.setattr(_fused, "_numba", False)


def _both(fn):
    """``fn()`` by the compiled rows and by NumPy's passes."""
    first = fn()
    saved = _fused._numba
    _fused._numba = False
    try:
        return first, fn()
    finally:
        _fused._numba = saved


@compiled
def test_exp32_is_within_one_ulp_of_the_rounded_exp():
    x = np.concatenate([np.linspace(-110, 90, 2_000_001, dtype=np.float32), [-1e-30, 1e-30]])
    got = _softmax_rows.exp32(x)
    with np.errstate(over="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)
    finite = np.isfinite(want) & (want > np.finfo(np.float32).tiny)
    ulps = np.abs(got[finite].astype(np.float64) - want[finite]) / np.spacing(want[finite])
    assert ulps.max() <= 1
    tiny = ~finite & (want < 1)  # subnormal and zero results: rounded once
    assert np.abs(got[tiny].astype(np.float64) - want[tiny]).max() <= 1.5e-45
    assert np.isinf(got[want == np.inf]).all()


@compiled
def test_exp32_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.7, 89.0, -104.0, -1e4], np.float32)
    got = _softmax_rows.exp32(x)
    assert np.isnan(got[0])
    np.testing.assert_array_equal(got[1:5], [np.inf, 0, 1, 1])
    assert np.isfinite(got[5]) and got[6] == np.inf and got[7] == 0 and got[8] == 0


@compiled
@pytest.mark.parametrize("shape", [(256, 1000), (64, 10), (3, 1), (1, 5000), (2, 3, 17), (7,)])
def test_compiled_rows_match_numpy_and_torch_to_round_off(shape):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    ours, numpy_passes = _both(lambda: lg.log_softmax(lg.tensor(x), -1).numpy())
    exact = torch.log_softmax(torch.from_numpy(x.astype(np.float64)), -1).numpy()
    theirs = torch.log_softmax(torch.from_numpy(x), -1).numpy()
    scale = np.abs(exact) + 1
    error = np.abs(ours - exact) / scale
    assert error.max() <= 2.5e-7
    assert error.max() <= max(np.abs(theirs - exact).max(), np.abs(numpy_passes - exact).max())
    np.testing.assert_allclose(ours, numpy_passes, rtol=1e-6, atol=1e-6)


@compiled
@pytest.mark.parametrize("broadcast", [False, True])
def test_compiled_backward_matches_numpy_and_torch(broadcast):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((64, 300)) * 3).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)

    def grad():
        a = lg.tensor(x, requires_grad=True)
        y = lg.log_softmax(a, 1)
        if broadcast:
            y.sum().backward()
        else:
            y.backward(lg.tensor(g))
        return a.grad.numpy()

    ours, numpy_passes = _both(grad)
    b = torch.tensor(x.astype(np.float64), requires_grad=True)
    seed = torch.ones_like(b) if broadcast else torch.tensor(g, dtype=b.dtype)
    torch.log_softmax(b, 1).backward(seed)
    exact = b.grad.numpy()
    np.testing.assert_allclose(ours, exact, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(ours, numpy_passes, rtol=2e-6, atol=2e-6)


@compiled
def test_the_compiled_backward_takes_its_forms_and_refuses_others():
    out = kernels._log_softmax_forward(np.zeros((4, 8), np.float32), dim=1)
    ones = np.ones((4, 8), np.float32)
    assert _softmax_rows.log_softmax_backward(ones, out) is not None
    twos = np.broadcast_to(np.float32(2), (4, 8))
    assert _softmax_rows.log_softmax_backward(twos, out) is not None
    assert _softmax_rows.log_softmax_backward(np.ones((8, 4), np.float32).T, out) is None
    assert _softmax_rows.log_softmax_backward(ones.astype(np.float64), out) is None
    assert _softmax_rows.log_softmax_backward(np.broadcast_to(ones[:1], (4, 8)), out) is None
    np.testing.assert_allclose(
        _softmax_rows.log_softmax_backward(twos, out),
        np.full((4, 8), 2 - 2 / 8 * 8, np.float32),
        atol=1e-6,
    )


def test_usable_only_for_float32_c_contiguous_non_empty_arrays():
    if not _fused.available():
        assert not _softmax_rows.usable(np.zeros((2, 3), np.float32))
        return
    assert _softmax_rows.usable(np.zeros((2, 3), np.float32))
    assert not _softmax_rows.usable(np.zeros((2, 3)))  # float64: NumPy's passes
    assert not _softmax_rows.usable(np.zeros((3, 2), np.float32).T)
    assert not _softmax_rows.usable(np.zeros((0, 3), np.float32))
    assert not _softmax_rows.usable(np.float32(1.0))


def test_numpy_only_turns_the_compiled_rows_off(numpy_only):
    assert not _softmax_rows.usable(np.zeros((2, 3), np.float32))
    y = lg.log_softmax(lg.tensor(np.zeros((2, 4), np.float32)), 1)
    np.testing.assert_allclose(y.numpy(), np.full((2, 4), -np.log(4)), rtol=1e-6)


def _special_rows(dtype) -> np.ndarray:
    """Rows with infinities, NaNs, one dominant entry and huge negatives."""
    x = np.zeros((8, 10), dtype)
    x[0, 0] = np.inf
    x[1, :] = -np.inf
    x[2, 3] = np.nan
    x[3, :] = np.inf
    x[4, :] = np.arange(10) * 1e3  # one dominant entry
    x[5, 4] = -np.inf  # one -inf entry: -inf out, the others finite
    x[6, :] = np.nan
    x[7, :] = -1e30
    return x


def _check_rows_against_torch(name, dtype, seed):
    """``name`` (log_softmax or softmax) over the special rows, and its gradient, as torch's."""
    x = _special_rows(dtype)
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ours, theirs = getattr(lg, name)(a, 1), getattr(torch, name)(b, 1)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    g = np.random.default_rng(seed).standard_normal(x.shape).astype(dtype)
    ours.backward(lg.tensor(g))
    theirs.backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_of_infinities_and_nans_as_in_torch(numba, dtype, monkeypatch):
    if not numba:
        monkeypatch.setattr(_fused, "_numba", False)
    _check_rows_against_torch("log_softmax", dtype, seed=2)


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_other_dims_and_float64_match_torch(numba, dim, monkeypatch):
    if not numba:
        monkeypatch.setattr(_fused, "_numba", False)
    for dtype, tol in (("float32", 2e-6), ("float64", 1e-13)):
        x = np.random.default_rng(3).standard_normal((4, 5, 6)).astype(dtype)
        a = lg.tensor(x, requires_grad=True)
        b = torch.tensor(x, requires_grad=True)
        ya, yb = lg.log_softmax(a, dim), torch.log_softmax(b, dim)
        np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
        w = np.random.default_rng(4).standard_normal(x.shape).astype(dtype)
        (ya * lg.tensor(w)).sum().backward()
        (yb * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("numba", [True, False])
def test_graph_saves_and_double_backward_are_pytorchs(numba, monkeypatch):
    if not numba:
        monkeypatch.setattr(_fused, "_numba", False)
    x = np.random.default_rng(5).standard_normal((6, 7)).astype(np.float32)
    t = np.array([0, 3, 6, 2, 1, 5])
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    la = lg.nn.functional.cross_entropy(a, lg.tensor(t))
    lb = torch.nn.functional.cross_entropy(b, torch.tensor(t))
    assert la.grad_fn.name() == lb.grad_fn.name() == "NllLossBackward0"
    inner_a, inner_b = la.grad_fn.next_functions[0][0], lb.grad_fn.next_functions[0][0]
    assert inner_a.name() == inner_b.name() == "LogSoftmaxBackward0"
    np.testing.assert_allclose(
        inner_a._saved_result.detach().numpy(), inner_b._saved_result.detach().numpy(), rtol=1e-6
    )
    assert inner_a._saved_dim == inner_b._saved_dim
    np.testing.assert_allclose(la.item(), lb.item(), rtol=1e-6)
    (ga,) = lg.autograd.grad(la, a, create_graph=True)
    (gb,) = torch.autograd.grad(lb, b, create_graph=True)
    assert ga.grad_fn.name() == gb.grad_fn.name()
    np.testing.assert_allclose(ga.detach().numpy(), gb.detach().numpy(), rtol=1e-5, atol=1e-7)
    (ha,) = lg.autograd.grad((ga * ga).sum(), a)
    (hb,) = torch.autograd.grad((gb * gb).sum(), b)
    np.testing.assert_allclose(ha.numpy(), hb.numpy(), rtol=1e-4, atol=1e-6)


# ----- softmax's compiled rows -----


@compiled
@pytest.mark.parametrize("shape", [(256, 1000), (64, 10), (3, 1), (1, 5000), (2, 3, 17), (7,)])
def test_compiled_softmax_matches_numpy_and_torch_to_round_off(shape):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    w = rng.standard_normal(shape).astype(np.float32)

    def run():
        a = lg.tensor(x, requires_grad=True)
        y = lg.softmax(a, -1)
        (y * lg.tensor(w)).sum().backward()
        return y.detach().numpy(), a.grad.numpy()

    (ours, ours_grad), (numpy_passes, numpy_grad) = _both(run)
    b = torch.tensor(x.astype(np.float64), requires_grad=True)
    exact = torch.softmax(b, -1)
    (exact * torch.tensor(w.astype(np.float64))).sum().backward()
    c = torch.tensor(x, requires_grad=True)
    theirs = torch.softmax(c, -1)
    (theirs * torch.tensor(w)).sum().backward()
    exact, theirs = exact.detach().numpy(), theirs.detach().numpy()
    assert np.abs(ours - exact).max() <= max(np.abs(theirs - exact).max(), 6e-8)
    np.testing.assert_allclose(ours, numpy_passes, rtol=1e-6, atol=1e-7)
    scale = np.abs(w).max()
    np.testing.assert_allclose(ours_grad, b.grad.numpy(), rtol=1e-5, atol=1e-6 * scale)
    np.testing.assert_allclose(ours_grad, numpy_grad, rtol=1e-5, atol=1e-6 * scale)
    np.testing.assert_allclose(ours_grad, c.grad.numpy(), rtol=1e-5, atol=1e-6 * scale)


@compiled
def test_the_compiled_softmax_backward_takes_its_forms_and_refuses_others():
    out = kernels._softmax_forward(np.zeros((4, 8), np.float32), dim=1)
    np.testing.assert_allclose(out, np.full((4, 8), 1 / 8, np.float32), rtol=1e-7)
    ones = np.ones((4, 8), np.float32)
    assert _softmax_rows.softmax_backward(np.ones((8, 4), np.float32).T, out) is None
    assert _softmax_rows.softmax_backward(ones.astype(np.float64), out) is None
    assert _softmax_rows.softmax_backward(np.broadcast_to(ones[:1], (4, 8)), out) is None
    twos = np.broadcast_to(np.float32(2), (4, 8))
    np.testing.assert_allclose(_softmax_rows.softmax_backward(twos, out), 0, atol=1e-7)
    g = np.arange(32, dtype=np.float32).reshape(4, 8)
    want = out * (g - (g * out).sum(1, keepdims=True))
    np.testing.assert_allclose(_softmax_rows.softmax_backward(g, out), want, rtol=1e-6)
    np.testing.assert_allclose(kernels._softmax_backward_data_forward(g, out, dim=1), want)


@pytest.mark.parametrize("numba", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_rows_of_infinities_and_nans_as_in_torch(numba, dtype, monkeypatch):
    if not numba:
        monkeypatch.setattr(_fused, "_numba", False)
    _check_rows_against_torch("softmax", dtype, seed=7)


@pytest.mark.parametrize("numba", [True, False])
def test_softmax_graph_and_double_backward_are_pytorchs(numba, monkeypatch):
    if not numba:
        monkeypatch.setattr(_fused, "_numba", False)
    x = np.random.default_rng(8).standard_normal((6, 7)).astype(np.float32)
    w = np.random.default_rng(9).standard_normal((6, 7)).astype(np.float32)
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ya, yb = lg.softmax(a, 1), torch.softmax(b, 1)
    assert ya.grad_fn.name() == yb.grad_fn.name() == "SoftmaxBackward0"
    assert ya.grad_fn._saved_dim == yb.grad_fn._saved_dim
    la, lb = (ya * lg.tensor(w)).sum(), (yb * torch.tensor(w)).sum()
    (ga,) = lg.autograd.grad(la, a, create_graph=True)
    (gb,) = torch.autograd.grad(lb, b, create_graph=True)
    assert ga.grad_fn.name() == gb.grad_fn.name()
    np.testing.assert_allclose(ga.detach().numpy(), gb.detach().numpy(), rtol=1e-5, atol=1e-6)
    (ha,) = lg.autograd.grad((ga * ga).sum(), a)
    (hb,) = torch.autograd.grad((gb * gb).sum(), b)
    np.testing.assert_allclose(ha.numpy(), hb.numpy(), rtol=1e-4, atol=1e-5)


@compiled
@pytest.mark.parametrize("name", ["log_softmax", "softmax"])
def test_a_batch_of_rows_gives_its_matrix_of_rows_values_bit_for_bit(name):
    """A matrix is passed as it is, other shapes as their rows: the same values either way."""
    x = (np.random.default_rng(4).standard_normal((2, 3, 8)) * 4).astype(np.float32)
    x[0, 1, :] = -np.inf
    x[1, 2, 3] = np.nan
    rows = x.reshape(6, 8)
    forward = getattr(_softmax_rows, name)
    with np.errstate(all="ignore"):
        batched, matrix = forward(x), forward(rows)
    assert batched.shape == x.shape and matrix.shape == rows.shape
    assert batched.tobytes() == matrix.tobytes()
    g = np.random.default_rng(5).standard_normal(x.shape).astype(np.float32)
    backward = getattr(_softmax_rows, f"{name}_backward")
    with np.errstate(all="ignore"):
        assert backward(g, batched).tobytes() == backward(g.reshape(6, 8), matrix).tobytes()


@compiled
def test_small_float32_rows_take_one_compiled_call(monkeypatch):
    calls = []
    kernels = _softmax_rows._compiled()
    for kernel in ("forward", "softmax_forward"):
        compiled_fn = getattr(kernels, kernel)
        monkeypatch.setattr(
            kernels, kernel, lambda x, out, k=kernel, f=compiled_fn: calls.append(k) or f(x, out)
        )
    x = lg.tensor(np.ones((8, 8), np.float32))
    np.testing.assert_allclose(x.softmax(1).numpy(), np.full((8, 8), 0.125), rtol=1e-7)
    np.testing.assert_allclose(x.log_softmax(1).numpy(), np.full((8, 8), -np.log(8)), rtol=1e-6)
    assert calls == ["softmax_forward", "forward"]
