"""softshrink, hardshrink and threshold are ops recorded as PyTorch records them, with their
backwards as ops; values, gradients (NaN, infinities and signed zeros included, on 16
elements, which PyTorch's vectorised kernels take whole) and second-order graphs are
PyTorch's."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names

torch = pytest.importorskip("torch")

VALUES = [np.nan, -1.0, -0.3, -0.2, 0.0, -0.0, 0.3, 0.4, 0.5, np.inf, -np.inf, 2.0, 1, 2, 3, 4]
CASES = {
    "softshrink": lambda m, x: m.nn.functional.softshrink(x, 0.3),
    "hardshrink": lambda m, x: m.nn.functional.hardshrink(x, 0.3),
    "hardshrink-method": lambda m, x: x.hardshrink(0.3),
    "threshold": lambda m, x: m.nn.functional.threshold(x, 0.4, -1.0),
    "threshold-at-0": lambda m, x: m.nn.functional.threshold(x, 0.0, 0.5),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_gradients_and_graphs_are_pytorchs(name, dtype):
    found = []
    for m in (lg, torch):
        x = m.tensor(VALUES, dtype=getattr(m, dtype), requires_grad=True)
        y = CASES[name](m, x)
        weights = m.arange(len(VALUES), dtype=getattr(m, dtype))
        (g,) = m.autograd.grad((y * weights).sum(), x, create_graph=True)
        (h,) = m.autograd.grad((g * g).sum(), x, allow_unused=True, materialize_grads=True)
        arrays = [t.detach().numpy(**({"force": True} if m is torch else {})) for t in (y, g, h)]
        found.append((y.grad_fn.name(), node_names(g.grad_fn, 3), arrays))
    (node, graph, ours), (torch_node, torch_graph, theirs) = found
    assert (node, graph) == (torch_node, torch_graph)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
