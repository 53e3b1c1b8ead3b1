"""Transforms nested inside ``func.grad``, as functorch-style PINN code writes a residual
loss: the outer gradient's values match PyTorch, and it does not keep a graph (nothing
outside the transforms requires grad), even though the inner transforms made copies of
their own that require grad."""

import numpy as np
import pytest

import leafgrad
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")


def _pinn_loss_gradient(lib, inner):
    from importlib import import_module

    func = import_module(lib.__name__ + ".func")
    lib.manual_seed(0)
    model = lib.nn.Sequential(
        lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)
    ).double()  # fmt: skip
    params = {name: p.detach() for name, p in model.named_parameters()}
    x = lib.tensor(np.random.default_rng(0).uniform(-1, 1, (6, 2)))

    def u(p, point):
        return func.functional_call(model, p, (point.unsqueeze(0),)).squeeze()

    def loss(p):
        derivative = func.vmap(getattr(func, inner)(u, argnums=1), in_dims=(None, 0))(p, x)
        return (derivative**2).mean()

    return func.grad(loss)(params)


@pytest.mark.parametrize("inner", ["jacrev", "jacfwd", "hessian"])
def test_gradient_of_a_loss_over_nested_transforms_matches_pytorch(inner):
    ours = _pinn_loss_gradient(leafgrad, inner)
    theirs = _pinn_loss_gradient(torch, inner)
    assert list(ours) == list(theirs)
    for name in ours:
        assert not theirs[name].requires_grad
        assert not ours[name].requires_grad, name
        assert_close(ours[name], theirs[name].numpy(), "direct")


def test_outer_gradient_keeps_its_graph_when_the_parameters_require_grad():
    # The copies of enclosing transforms still count as outside an inner one: the inner
    # derivatives stay differentiable for the outer gradient (which is not zero).
    func = leafgrad.func
    w = leafgrad.tensor([0.5, -1.5], dtype=leafgrad.float64)
    x = leafgrad.tensor([[0.3, 0.7], [-0.2, 0.4]], dtype=leafgrad.float64)

    def f(w, point):
        return (w * point).sin().sum()

    def loss(w):
        return (func.vmap(func.jacrev(f, argnums=1), in_dims=(None, 0))(w, x) ** 2).sum()

    g = func.grad(loss)(w)
    # d/dw sum_{n,i} (w_i cos(w_i x_ni))^2
    wx = w.numpy() * x.numpy()
    expected = (2 * w.numpy() * np.cos(wx) * (np.cos(wx) - wx * np.sin(wx))).sum(0)
    assert_close(g, expected, "direct")
    assert not g.requires_grad
