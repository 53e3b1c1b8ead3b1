"""aminmax against PyTorch: one node (AminmaxBackward0) for both outputs, the graphs of its
first and second derivatives, its gradients where values tie, forward mode, and errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import assert_matches, node_names

NAN = float("nan")
# Ties within a row and across the whole tensor (the gradient is shared evenly among them).
TIED = np.array([[1.0, -2.0, 1.0, 0.5], [3.0, 3.0, -2.0, -2.0], [0.0, 1.0, 3.0, 0.25]])


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


CASES = {
    "dim": (lambda m, x: m.aminmax(x, dim=1), TIED),
    "negative-dim-keepdim": (lambda m, x: x.aminmax(dim=-2, keepdim=True), TIED),
    "all": (lambda m, x: m.aminmax(x), TIED),
    "all-keepdim": (lambda m, x: m.aminmax(x, keepdim=True), TIED),
    "min-only": (lambda m, x: m.aminmax(x, dim=0)[:1], TIED),
    "max-only-all": (lambda m, x: m.aminmax(x)[1:], TIED),
    "0d-dim": (lambda m, x: m.aminmax(x, dim=0), np.array(1.5)),
    "0d-all": (lambda m, x: m.aminmax(x), np.array(-0.5)),
    "nan": (lambda m, x: m.aminmax(x, dim=1), np.array([[1.0, NAN, 2.0], [0.0, 4.0, 4.0]])),
}


def _derivatives(m, fn, values, dtype):
    x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
    outs = tuple(fn(m, x))
    weights = [m.arange(1.0, o.numel() + 1, dtype=o.dtype).reshape(o.shape) for o in outs]
    total = sum((o * o * w).sum() for o, w in zip(outs, weights))
    (g,) = m.autograd.grad(total, x, create_graph=True)
    (h,) = m.autograd.grad((g * g).sum(), x)
    graphs = [node_names(o.grad_fn, 1) for o in outs], node_names(g.grad_fn, 4)
    return graphs, [t.detach().numpy() for t in (*outs, g, h)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_aminmax_matches_pytorch_to_the_second_derivative(torch, name, dtype):
    fn, values = CASES[name]
    ours, theirs = (_derivatives(m, fn, values, dtype) for m in (lg, torch))
    assert ours[0][0][0][0] == "AminmaxBackward0"
    assert_matches(ours, theirs, rtol=1e-6 if dtype == "float32" else 1e-14)


def test_both_outputs_hang_from_one_node(torch):
    for m in (lg, torch):
        low, high = m.aminmax(m.ones(2, 3, requires_grad=True), dim=0)
        assert low.grad_fn is high.grad_fn
        assert (low.output_nr, high.output_nr) == (0, 1)


@pytest.mark.parametrize(
    ("values", "kwargs"),
    [(TIED, {"dim": 1}), (TIED, {}), (TIED, {"dim": 0, "keepdim": True}), (np.array(2.0), {})],
)
def test_aminmax_forward_mode_matches_pytorch(torch, values, kwargs):
    tangent = np.linspace(-1.0, 2.0, values.size).reshape(values.shape)
    found = []
    for m in (lg, torch):
        fwad = m.autograd.forward_ad
        with fwad.dual_level():
            dual = fwad.make_dual(m.tensor(values), m.tensor(tangent))
            outs = m.aminmax(dual, **kwargs)
            found.append([fwad.unpack_dual(o).tangent.numpy() for o in outs])
    for a, b in zip(*found):
        np.testing.assert_allclose(a, b, rtol=1e-14)
