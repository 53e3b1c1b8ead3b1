"""glu against PyTorch: its nodes (GluBackward0, GluBackwardBackward0) and the graphs of
its first and second derivatives, values to the third derivative, forward mode, and errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _derivatives(m, values, dim, dtype):
    x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
    y = m.nn.functional.glu(x, dim)
    (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = m.autograd.grad((g * g).sum(), x, create_graph=True)
    (k,) = m.autograd.grad(h.sum(), x)
    graphs = node_names(y.grad_fn, 1), node_names(g.grad_fn, 3), node_names(h.grad_fn, 2)
    return graphs, [t.detach().numpy() for t in (y, g, h, k)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("shape", "dim"), [((3, 4), -1), ((4, 3), 0), ((2, 6, 2), 1)])
def test_glu_matches_pytorch_to_the_third_derivative(torch, shape, dim, dtype):
    values = np.random.default_rng(0).uniform(-3, 3, shape)
    graphs, arrays = _derivatives(lg, values, dim, dtype)
    torch_graphs, torch_arrays = _derivatives(torch, values, dim, dtype)
    assert graphs == torch_graphs
    rtol = 1e-12 if dtype == "float64" else 2e-5
    for a, b in zip(arrays, torch_arrays):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max())


def test_glu_forward_mode_matches_pytorch(torch):
    rng = np.random.default_rng(1)
    x, t = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    found = []
    for m in (lg, torch):
        fwad = m.autograd.forward_ad
        with fwad.dual_level():
            dual = fwad.make_dual(m.tensor(x), m.tensor(t))
            out = fwad.unpack_dual(m.nn.functional.glu(dual, 1))
        found.append((out.primal.numpy(), out.tangent.numpy()))
    for a, b in zip(*found):
        np.testing.assert_allclose(a, b, rtol=1e-13)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.nn.functional.glu(m.ones(3, 5)),
        lambda m: m.nn.functional.glu(m.tensor(1.0)),
        lambda m: m.nn.functional.glu(m.ones(4, dtype=m.int64)),
    ],
)
def test_glu_refuses_what_pytorch_refuses(torch, call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)
