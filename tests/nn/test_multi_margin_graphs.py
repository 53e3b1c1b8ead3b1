"""multi_margin_loss against PyTorch: recorded as its op (MultiMarginLossBackward0, an edge
for the input only), its gradient the op PyTorch cannot differentiate (NotImplemented, edges
for the incoming gradient and the input), values and gradients for p, margin, weight and
every reduction, and PyTorch's refusals."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names

rng = np.random.default_rng(4)
X = rng.standard_normal((4, 5))
T = np.array([0, 4, 2, 2])
W = rng.uniform(0.5, 2.0, 5)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _call(m, p, margin, weighted, reduction, dtype, rows):
    x = m.tensor(X if rows else X[1], dtype=getattr(m, dtype), requires_grad=True)
    target = m.tensor(T if rows else T[1])
    weight = m.tensor(W, dtype=getattr(m, dtype)) if weighted else None
    y = m.nn.functional.multi_margin_loss(x, target, p, margin, weight, reduction=reduction)
    (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
    return x, y, g


@pytest.mark.parametrize("rows", [True, False], ids=["batch", "one-sample"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("p", "margin"), [(1, 1.0), (2, 0.4)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_multi_margin_loss_matches_pytorch(torch, p, margin, weighted, reduction, dtype, rows):
    found = []
    for m in (lg, torch):
        _, y, g = _call(m, p, margin, weighted, reduction, dtype, rows)
        graphs = node_names(y.grad_fn, 2), node_names(g.grad_fn, 2)
        found.append((graphs, y.detach().numpy(), g.detach().numpy()))
    (graphs, y, g), (torch_graphs, torch_y, torch_g) = found
    assert graphs == torch_graphs
    assert graphs[0][0] == "MultiMarginLossBackward0"
    assert graphs[1][0] == "torch::autograd::NotImplemented"
    rtol = 1e-6 if dtype == "float32" else 1e-14
    for a, b in ((y, torch_y), (g, torch_g)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)


def test_its_second_derivative_raises_as_pytorchs(torch):
    for m in (lg, torch):
        x, _, g = _call(m, 2, 1.0, True, "mean", "float64", True)
        with pytest.raises(RuntimeError, match="multi_margin_loss_backward"):
            m.autograd.grad(g.sum(), x)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.nn.functional.multi_margin_loss(
            m.ones(2, 3), m.tensor([0, 1]), weight=m.ones(3, requires_grad=True)
        ),
        lambda m: m.nn.functional.multi_margin_loss(
            m.ones(2, 3), m.tensor([0, 1]), weight=m.ones(3, dtype=m.float64)
        ),
        lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3), m.tensor([0, 3])),
        lambda m: m.nn.functional.multi_margin_loss(m.ones(2, 3), m.tensor([0, 1]), p=3),
    ],
)
def test_multi_margin_loss_refuses_what_pytorch_refuses(torch, call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)
