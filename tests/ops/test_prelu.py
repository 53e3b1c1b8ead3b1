"""prelu against PyTorch: recorded as _prelu_kernel (PreluKernelBackward0) over the weight's
view, its backward PreluKernelBackwardBackward0 with PyTorch's derivative formulas (``x >= 0``
where the kernels test ``x > 0``), values to the third derivative, and forward mode."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _run(m, dtype, x_values, w_values):
    dt = getattr(m, dtype)
    x = m.tensor(x_values, dtype=dt, requires_grad=True)
    w = m.tensor(w_values, dtype=dt, requires_grad=True)
    y = m.nn.functional.prelu(x, w)
    gx, gw = m.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    hx, hw = m.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (x, w), create_graph=True)
    kx, kw = m.autograd.grad(hx.sum() + hw.sum(), (x, w))
    graphs = node_names(y.grad_fn, 2), node_names(gx.grad_fn, 2), node_names(hx.grad_fn, 1)
    return graphs, [t.detach().numpy() for t in (y, gx, gw, hx, hw, kx, kw)]


CASES = {
    "channels": ((2, 3, 4), [0.1, -0.3, 0.5]),
    "one-weight": ((2, 3, 4), [0.25]),
    "vector": ((5,), [0.2]),
    "vector-0d-weight": ((5,), 0.2),
    "matrix": ((4, 2), [0.3, 0.6]),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES)
def test_prelu_matches_pytorch_to_the_third_derivative(torch, case, dtype):
    shape, weight = CASES[case]
    x = np.random.default_rng(0).standard_normal(shape)
    x.reshape(-1)[0] = 0.0  # where the kernels' x > 0 and the formulas' x >= 0 part
    graphs, arrays = _run(lg, dtype, x, weight)
    torch_graphs, torch_arrays = _run(torch, dtype, x, weight)
    assert graphs == torch_graphs
    rtol = 1e-12 if dtype == "float64" else 1e-5
    for a, b in zip(arrays, torch_arrays):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max())


def test_prelu_forward_mode_matches_pytorch(torch):
    rng = np.random.default_rng(1)
    x, tx = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 2))
    w, tw = np.array([0.1, -0.2, 0.4]), rng.standard_normal(3)
    found = []
    for m in (lg, torch):
        fwad = m.autograd.forward_ad
        with fwad.dual_level():
            dx = fwad.make_dual(m.tensor(x), m.tensor(tx))
            dw = fwad.make_dual(m.tensor(w), m.tensor(tw))
            out = fwad.unpack_dual(m.nn.functional.prelu(dx, dw))
        found.append((out.primal.numpy(), out.tangent.numpy()))
    for a, b in zip(*found):
        np.testing.assert_allclose(a, b, rtol=1e-13)
