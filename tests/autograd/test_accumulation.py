"""Gradients arriving at one tensor from many uses are summed, never into a gradient that
hooks or ``grad()`` have handed out (a guard for in-place summing in the engine)."""

from __future__ import annotations

import numpy as np

from tests._tolerance import assert_close


def test_gradients_from_many_uses_are_summed(torch):
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    h = x.exp()
    h.retain_grad()
    y = h + h * 2.0 + h * 3.0 + h.sin() + h
    y.sum().backward()
    e = np.exp([0.5, -1.0, 2.0])
    assert_close(h.grad, 7.0 + np.cos(e))
    assert_close(x.grad, (7.0 + np.cos(e)) * e)


def test_a_gradient_passed_to_two_edges_is_not_changed_by_the_sum(torch):
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    c = x * 3.0
    seen = []
    s = c + c  # add passes its one gradient to both edges: the same tensor arrives twice
    s.register_hook(lambda g: seen.append(g))
    t = s * 1.0 + c + c * 2.0 + c  # c's buffer sums five gradients
    t.register_hook(lambda g: seen.append(g))
    t.sum().backward()
    assert_close(x.grad, [3.0 * 6.0, 3.0 * 6.0])
    for g in seen:  # the gradients hooks saw are still all ones
        assert_close(g, [1.0, 1.0])


def test_grads_captured_by_grad_are_not_aliased_by_later_sums(torch):
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    h = x * 2.0
    outs = [h * k for k in (1.0, 2.0, 3.0, 4.0)]
    (gh,) = torch.autograd.grad(sum(o.sum() for o in outs), h)
    assert_close(gh, [10.0, 10.0])
    (gx,) = torch.autograd.grad((h * h).sum() + h.sum() + h.sum() + h.sum(), x)
    assert_close(gx, 2.0 * (2.0 * h.detach().numpy() + 3.0))
    assert_close(gh, [10.0, 10.0])
