"""qr's and solve's backward on arrays (plain rules, nothing recorded) against PyTorch: a
gradient of Q or R alone (the rule skips the other, as PyTorch skips an undefined one),
both, batched, float32 and float64; solve's, whose backward reuses the forward's LU factors;
and second derivatives through the same rules."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import solvers

torch = pytest.importorskip("torch")

QR_CASES = {
    "tall-R": ((3, 5, 3), "reduced", (1,)),
    "tall-Q": ((5, 3), "reduced", (0,)),
    "wide-R": ((2, 3, 5), "reduced", (1,)),
    "wide-Q": ((3, 5), "reduced", (0,)),
    "square-complete-both": ((2, 4, 4), "complete", (0, 1)),
    "wide-complete-both": ((3, 5), "complete", (0, 1)),
}


def _qr_grad(lib, a, mode, used, dtype, create_graph=False):
    x = lib.tensor(a, dtype=dtype, requires_grad=True)
    out = lib.linalg.qr(x, mode=mode)
    loss = sum((out[i] * lib.tensor(np.cos(np.arange(out[i].numel())).reshape(out[i].shape),
                                     dtype=dtype)).sum() for i in used)  # fmt: skip
    (g,) = lib.autograd.grad(loss, x, create_graph=create_graph)
    if not create_graph:
        return g.numpy()
    (gg,) = lib.autograd.grad((g * g).sum(), x)
    return gg.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(QR_CASES))
def test_qr_gradients_match_torch(name, dtype):
    shape, mode, used = QR_CASES[name]
    a = np.random.default_rng(0).standard_normal(shape)
    ours = _qr_grad(lg, a, mode, used, getattr(lg, dtype))
    theirs = _qr_grad(torch, a, mode, used, getattr(torch, dtype))
    assert ours.dtype == theirs.dtype
    tol = 2e-4 if dtype == "float32" else 1e-9
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["tall-R", "wide-Q"])
def test_qr_second_derivatives_match_torch(name):
    shape, mode, used = QR_CASES[name]
    a = np.random.default_rng(1).standard_normal(shape)
    ours = _qr_grad(lg, a, mode, used, lg.float64, create_graph=True)
    theirs = _qr_grad(torch, a, mode, used, torch.float64, create_graph=True)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=1e-9)


SOLVE_CASES = {
    "left": ((6, 6), (6, 3), True),
    "right": ((6, 6), (3, 6), False),
    "vector": ((6, 6), (6,), True),
    "batched": ((2, 6, 6), (2, 6, 3), True),
}


def _solve_grads(lib, a, b, left, dtype, create_graph=False):
    A = lib.tensor(a, dtype=dtype, requires_grad=True)
    B = lib.tensor(b, dtype=dtype, requires_grad=True)
    X = lib.linalg.solve(A, B, left=left)
    weights = lib.tensor(np.cos(np.arange(X.numel())).reshape(X.shape), dtype=dtype)
    grads = lib.autograd.grad((X * weights).sum(), (A, B), create_graph=create_graph)
    if create_graph:
        grads = lib.autograd.grad(sum((g * g).sum() for g in grads), (A, B))
    return [g.numpy() for g in grads]


def _system(a_shape, b_shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(a_shape) + 6 * np.eye(a_shape[-1]), rng.standard_normal(b_shape)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SOLVE_CASES))
def test_solve_gradients_match_torch(name, dtype):
    a_shape, b_shape, left = SOLVE_CASES[name]
    a, b = _system(a_shape, b_shape)
    ours = _solve_grads(lg, a, b, left, getattr(lg, dtype))
    theirs = _solve_grads(torch, a, b, left, getattr(torch, dtype))
    tol = 1e-5 if dtype == "float32" else 1e-12
    for o, t in zip(ours, theirs):
        assert o.dtype == t.dtype
        np.testing.assert_allclose(o, t, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["left", "right", "vector"])
def test_solve_second_derivatives_match_torch(name):
    a_shape, b_shape, left = SOLVE_CASES[name]
    a, b = _system(a_shape, b_shape, seed=1)
    ours = _solve_grads(lg, a, b, left, lg.float64, create_graph=True)
    theirs = _solve_grads(torch, a, b, left, torch.float64, create_graph=True)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


def test_solve_keeps_its_factors_for_backward_only_under_grad_mode():
    a, b = _system((4, 4), (4, 2))
    A = lg.tensor(a, requires_grad=True)
    X = lg.linalg.solve(A, lg.tensor(b))
    assert solvers._factors_of(X) is not None
    with lg.no_grad():
        assert solvers._factors_of(lg.linalg.solve(A, lg.tensor(b))) is None
    key = id(X._data)
    del X
    assert key not in solvers._FACTORS  # an entry goes with its result
