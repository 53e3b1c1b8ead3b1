"""det at the places PyTorch's kernels decide: NaN entries give NaN (LAPACK's pivoting alone
can give 0), and singular matrices take PyTorch's two gradient paths (see also
tests/autograd/test_plain_rules.py)."""

import numpy as np
import pytest

import leafgrad as lg

SINGULAR = [[2.0, 2.0], [-1.0, -1.0]]


def test_a_matrix_holding_nan_has_a_nan_determinant_and_gradient():
    x = lg.tensor([[[np.nan, 2.0], [0.5, 1.0]], [[1.0, 2.0], [3.0, 4.0]]], requires_grad=True)
    det = lg.linalg.det(x)
    assert np.isnan(det[0].item()) and det[1].item() == pytest.approx(-2.0)
    det.sum().backward()
    assert np.isnan(x.grad.numpy()[0]).all() and np.isfinite(x.grad.numpy()[1]).all()


@pytest.mark.parametrize("create_graph", [False, True])
def test_singular_gradients_match_torch(create_graph):
    torch = pytest.importorskip("torch")
    grads = []
    for m in (lg, torch):
        x = m.tensor([SINGULAR, [[0.0, 0.0], [0.0, 1.0]]], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.linalg.det(x).sum() * 1.5, x, create_graph=create_graph)
        grads.append(g.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14, atol=0)
