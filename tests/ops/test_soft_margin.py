"""soft_margin_loss against PyTorch: its op and backward op (SoftMarginLossBackward0,
SoftMarginLossBackwardBackward0, no edge for the target), values as PyTorch's kernels give
them (an overflowing margin too) to the second derivative, and the refusal of a target that
requires grad."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names

X = [0.5, -1.0, 2.0, -800.0, 30.0, 0.0]
Y = [1.0, -1.0, 0.5, 1.0, -3.0, 2.0]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _run(m, reduction, dtype):
    x = m.tensor(X, dtype=getattr(m, dtype), requires_grad=True)
    y = m.tensor(Y, dtype=getattr(m, dtype))
    loss = m.nn.functional.soft_margin_loss(x, y, reduction=reduction)
    (g,) = m.autograd.grad((loss * 1.5).sum(), x, create_graph=True)
    (h,) = m.autograd.grad((g * g).sum(), x)
    graphs = node_names(loss.grad_fn, 1), node_names(g.grad_fn, 3)
    return graphs, [t.detach().numpy() for t in (loss, g, h)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_soft_margin_loss_matches_pytorch(torch, reduction, dtype):
    graphs, arrays = _run(lg, reduction, dtype)
    torch_graphs, torch_arrays = _run(torch, reduction, dtype)
    assert graphs == torch_graphs
    for a, b in zip(arrays, torch_arrays):
        assert a.dtype == b.dtype
        # the same operations (exp and log1p to an ulp or so on other CPUs), inf and NaN too
        np.testing.assert_allclose(a, b, rtol=1e-14 if dtype == "float64" else 1e-6)


def test_a_target_requiring_grad_is_refused_as_in_pytorch(torch):
    for m in (lg, torch):
        x, y = m.ones(3, requires_grad=True), m.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            m.nn.functional.soft_margin_loss(x, y)
