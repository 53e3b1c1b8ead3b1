"""pdist against PyTorch: recorded as _pdist_forward (PdistBackward0), its values and
PyTorch's _pdist_backward gradients for every p, at equal rows (zero distances) and equal
coordinates (zero differences) too."""

import numpy as np
import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pdist_matches_pytorch(torch, p, dtype):
    values = np.random.default_rng(0).standard_normal((5, 3))
    values[3] = values[1]  # a zero distance
    values[4, 0] = values[0, 0]  # a zero difference
    found = []
    for m in (lg, torch):
        x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
        y = m.nn.functional.pdist(x, p)
        weights = m.tensor(np.linspace(-1, 2, y.numel()), dtype=getattr(m, dtype))
        (g,) = m.autograd.grad((y * weights).sum(), x)
        found.append((y.grad_fn.name(), y.detach().numpy(), g.numpy()))
    (name, y, g), (torch_name, torch_y, torch_g) = found
    assert name == torch_name == "PdistBackward0"
    rtol = 1e-12 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(y, torch_y, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(g, torch_g, rtol=rtol, atol=rtol)


def test_pdist_of_fewer_than_two_rows_is_empty_and_recorded(torch):
    for m in (lg, torch):
        y = m.nn.functional.pdist(m.ones(1, 3, requires_grad=True))
        assert tuple(y.shape) == (0,) and y.grad_fn.name() == "PdistBackward0"


def test_pdist_differentiates_again():
    """Where PyTorch's _pdist_backward has no derivative, leafgrad's gradient is in ops: the
    Hessian of the sum of distances matches finite differences."""
    x = lg.tensor(np.random.default_rng(1).standard_normal((4, 2)), requires_grad=True)
    assert lg.autograd.gradgradcheck(lambda t: lg.nn.functional.pdist(t), (x,))
