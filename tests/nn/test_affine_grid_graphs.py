"""affine_grid against PyTorch: recorded as its op (AffineGridGeneratorBackward0, one edge to
theta, saving size and align_corners), its base grid ATen's linspace_from_neg_one, and its
gradient ATen's affine_grid_generator_backward (a bmm of the base grid, differentiable)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import node_names

SIZES = [(2, 1, 3, 4), (2, 3, 1, 5), (1, 2, 7, 6), (1, 1, 2, 3, 4), (2, 2, 1, 1, 3)]


def _run(m, theta, weight, size, align_corners):
    t = m.tensor(theta, requires_grad=True)
    w = m.tensor(weight, requires_grad=True)
    y = m.nn.functional.affine_grid(t, list(size), align_corners=align_corners)
    (g,) = m.autograd.grad((y * y * w).sum(), t, create_graph=True)
    second = m.autograd.grad((g * g).sum(), [t, w])
    node = y.grad_fn
    saved = (tuple(node._saved_size), node._saved_align_corners)
    graphs = (node_names(node, 1), node_names(g.grad_fn, 5), saved)
    return graphs, [v.detach().numpy() for v in (y, g, *second)]


@pytest.mark.filterwarnings("ignore:Since version 1.3.0")
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_affine_grid_matches_pytorch(size, align_corners):
    torch = pytest.importorskip("torch")
    nd = len(size) - 2
    rng = np.random.default_rng(len(size) * 10 + size[2])
    theta = rng.standard_normal((size[0], nd, nd + 1))
    weight = rng.standard_normal((size[0], *size[2:], nd))
    ours = _run(lg, theta, weight, size, align_corners)
    theirs = _run(torch, theta, weight, size, align_corners)
    assert ours[0] == theirs[0]
    assert ours[0][0] == ("AffineGridGeneratorBackward0", ["torch::autograd::AccumulateGrad"])
    for a, b in zip(ours[1], theirs[1]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.filterwarnings("ignore:Since version 1.3.0")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_base_grid_is_atens(size, align_corners, dtype):
    """The identity map gives the base grid itself: bit for bit PyTorch's."""
    torch = pytest.importorskip("torch")
    nd = len(size) - 2
    eye = np.concatenate([np.eye(nd), np.zeros((nd, 1))], 1)[None].repeat(size[0], 0)
    found = [
        m.nn.functional.affine_grid(
            m.tensor(eye, dtype=getattr(m, dtype)), list(size), align_corners
        ).numpy()
        for m in (lg, torch)
    ]
    assert found[0].dtype == found[1].dtype
    np.testing.assert_array_equal(found[0], found[1])


def test_affine_grid_checks_as_pytorch():
    torch = pytest.importorskip("torch")
    for m in (lg, torch):
        with pytest.raises(ValueError, match="non-zero, positive output size"):
            m.nn.functional.affine_grid(m.zeros(1, 2, 3), [1, 1, 0, 2], False)
        with pytest.warns(UserWarning, match="unit-size grids"):
            m.nn.functional.affine_grid(m.zeros(1, 2, 3), [1, 1, 1, 2], True)


def test_affine_grid_vmaps_forward_and_backward():
    rng = np.random.default_rng(3)
    thetas = lg.tensor(rng.standard_normal((4, 2, 2, 3)), requires_grad=True)

    def fn(t):
        return lg.nn.functional.affine_grid(t, [2, 1, 3, 4], False)

    batched = lg.func.vmap(fn)(thetas)
    looped = lg.stack([fn(t) for t in thetas])
    np.testing.assert_allclose(batched.detach().numpy(), looped.detach().numpy(), rtol=1e-14)
    grads = lg.func.vmap(lg.func.grad(lambda t: (fn(t) ** 2).sum()))(thetas)
    for t, g in zip(thetas, grads):
        (expected,) = lg.autograd.grad((fn(t) ** 2).sum(), t)
        np.testing.assert_allclose(g.detach().numpy(), expected.numpy(), rtol=1e-12)
