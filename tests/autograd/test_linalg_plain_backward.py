"""qr's and solve's backward on arrays (plain rules, nothing recorded) against PyTorch: a
gradient of Q or R alone (the rule skips the other, as PyTorch skips an undefined one),
both, batched, float32 and float64; and a second derivative through the same rules."""

import numpy as np
import pytest

import leafgrad as lg

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
