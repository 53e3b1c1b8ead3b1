"""Grad mode in ``step``: off in leafgrad's own optimisers, the caller's in a user's subclass."""

from __future__ import annotations

import pytest

import leafgrad
from leafgrad import optim

from .._tolerance import assert_close
from . import problems


def _curvature_step_optimizer(lib):
    """A user's optimiser whose step differentiates, like DeepXDE's NNCG.

    Each step moves along the gradient ``g`` by the exact line minimiser of the local quadratic,
    ``t = g.g / g.H.g``, with ``H g`` from a Hessian-vector product (double backward).
    """

    class CurvatureStep(lib.optim.Optimizer):
        def __init__(self, params, damping=1.0):
            super().__init__(params, {"damping": damping})
            self.grad_modes = []

        def step(self, closure):
            self.grad_modes.append(lib.is_grad_enabled())
            params = self.param_groups[0]["params"]
            loss = closure()
            grads = lib.autograd.grad(loss, params, create_graph=True)
            g_dot_v = sum((g * g.detach()).sum() for g in grads)
            hvps = lib.autograd.grad(g_dot_v, params)
            g_g = sum((g.detach() * g.detach()).sum() for g in grads)
            g_h_g = sum((g.detach() * h).sum() for g, h in zip(grads, hvps))
            t = self.param_groups[0]["damping"] * g_g / g_h_g
            with lib.no_grad():
                for p, g in zip(params, grads):
                    p.sub_(t * g.detach())
            return loss

    return CurvatureStep


def _run_curvature_steps(lib, steps=20):
    params = problems.mlp_params(lib)
    opt = _curvature_step_optimizer(lib)(params, damping=0.5)
    losses = [opt.step(lambda: problems.mlp_loss(lib, params)).item() for _ in range(steps)]
    return opt.grad_modes, losses, [p.detach().numpy().copy() for p in params]


def test_user_subclass_step_differentiates_in_the_callers_grad_mode():
    modes, losses, _ = _run_curvature_steps(leafgrad, steps=3)
    assert modes == [True, True, True]
    assert losses[-1] < losses[0]


def test_user_subclass_hessian_vector_steps_match_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = _run_curvature_steps(leafgrad), _run_curvature_steps(torch)
    assert ours[0] == theirs[0]
    assert_close(ours[1], theirs[1], "iterative")
    for a, b in zip(ours[2], theirs[2]):
        assert_close(a, b, "iterative")


def test_user_subclass_step_under_no_grad_keeps_it_off():
    class Recording(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {})
            self.modes = []

        def step(self, closure=None):
            self.modes.append(leafgrad.is_grad_enabled())

    opt = Recording([leafgrad.ones(2, requires_grad=True)])
    opt.step()
    with leafgrad.no_grad():
        opt.step()
    assert opt.modes == [True, False]


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: optim.SGD(ps, lr=0.1),
        lambda ps: optim.Adam(ps),
        lambda ps: optim.RMSprop(ps),
        lambda ps: optim.Adagrad(ps),
        lambda ps: optim.Adadelta(ps),
        lambda ps: optim.Adamax(ps),
        lambda ps: optim.NAdam(ps),
        lambda ps: optim.RAdam(ps),
        lambda ps: optim.ASGD(ps),
    ],
    ids=["sgd", "adam", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "radam", "asgd"],
)
def test_builtin_step_runs_with_grad_off_and_restores_the_mode(make):
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = make([x])
    seen = []
    opt.register_step_pre_hook(lambda *args: seen.append(leafgrad.is_grad_enabled()))
    x.grad = leafgrad.tensor([0.5, -0.5])
    opt.step()
    assert seen == [True]  # hooks run in the caller's mode, around the grad-off step
    assert x.grad_fn is None and x.is_leaf
    assert leafgrad.is_grad_enabled()


def test_subclass_calling_super_step_differentiates_before_it():
    class ScaledSGD(optim.SGD):
        def step(self, closure=None):
            (x,) = self.param_groups[0]["params"]
            (g,) = leafgrad.autograd.grad((x**3).sum(), [x], create_graph=True)
            self.second = leafgrad.autograd.grad(g.sum(), [x])[0]
            return super().step(closure)

    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    x.grad = leafgrad.tensor([1.0, 1.0])
    opt = ScaledSGD([x], lr=0.5)
    opt.step()
    assert opt.second.tolist() == [6.0, 12.0]
    assert x.tolist() == [0.5, 1.5] and x.grad_fn is None
