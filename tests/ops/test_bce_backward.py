"""binary_cross_entropy's backward is PyTorch's op (BinaryCrossEntropyBackwardBackward0):
its derivatives in the input, the target and the incoming gradient are PyTorch's double
backward formulas (their 1e-12 in the denominators included), and so are forward mode's."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names

torch = pytest.importorskip("torch")


def _derivatives(m, reduction, weighted):
    rng = np.random.default_rng(3)
    x0, y0, w0 = rng.uniform(0.05, 0.95, 7), rng.uniform(0, 1, 7), rng.uniform(0.5, 2, 7)
    x = m.tensor(x0, requires_grad=True)
    y = m.tensor(y0, requires_grad=True)
    s = m.tensor(1.3, requires_grad=True)
    w = m.tensor(w0) if weighted else None
    loss = m.nn.functional.binary_cross_entropy(x, y, weight=w, reduction=reduction)
    loss = (loss * m.tensor(np.linspace(-1, 2, 7))).sum() * s if reduction == "none" else loss * s
    gx, gy, gs = m.autograd.grad(loss, (x, y, s), create_graph=True)
    second = m.autograd.grad(
        (gx * gx).sum() + (gy * gx).sum() + (gx * gs).sum(),
        (x, y, s),
        allow_unused=True,
        materialize_grads=True,
    )
    fa = m.autograd.forward_ad
    with fa.dual_level():
        xd = fa.make_dual(x.detach(), m.ones_like(x))
        yd = fa.make_dual(y.detach(), m.full_like(y, 0.5))
        dual = m.nn.functional.binary_cross_entropy(xd, yd, weight=w, reduction=reduction)
        tangent = fa.unpack_dual(dual).tangent
    arrays = [t.detach().numpy(**({"force": True} if m is torch else {})) for t in (gx, gy, gs)]
    arrays += [t.detach().numpy(**({"force": True} if m is torch else {})) for t in second]
    return node_names(gx.grad_fn, 3), arrays + [tangent.numpy()]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_second_derivatives_and_tangents_are_pytorchs(reduction, weighted):
    (names, ours), (torch_names, theirs) = (
        _derivatives(m, reduction, weighted) for m in (lg, torch)
    )
    assert names == torch_names
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
