"""Backward calls nested inside backward calls (a custom Function whose backward runs
backward) may nest deeper than Python's recursion limit allows, as PyTorch lets them; the
modes in force and errors raised deep inside still reach the caller."""

import pytest


def _countdown(torch, seen, fail=False):
    class Countdown(torch.autograd.Function):
        """Each backward runs one more backward, until the counter drops below zero."""

        @staticmethod
        def forward(ctx, x):
            with torch.enable_grad():
                ctx.x = x.detach().requires_grad_() - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, grad):
            seen.append(torch.is_grad_enabled())
            if ctx.x < 0:
                if fail:
                    raise ValueError("deep failure")
                return grad
            with torch.enable_grad():
                Countdown.apply(ctx.x).sum().backward()
            return grad

    return Countdown


def test_a_thousand_nested_backward_calls(torch):
    seen = []
    v = torch.tensor(1000.0, requires_grad=True)
    _countdown(torch, seen).apply(v).sum().backward()
    assert len(seen) == 1001
    assert v.grad.item() == 1.0
    assert not any(seen)  # grad mode off inside each backward, at every depth


def test_an_error_deep_inside_reaches_the_caller(torch):
    v = torch.tensor(300.0, requires_grad=True)
    with pytest.raises(ValueError, match="deep failure"):  # raised by the innermost backward
        _countdown(torch, [], fail=True).apply(v).sum().backward()
