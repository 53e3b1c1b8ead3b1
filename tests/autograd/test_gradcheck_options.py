"""gradcheck's options as PyTorch's: which modes it checks (check_backward_ad,
check_forward_ad), fast_mode, and outputs that do not require grad.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest

import leafgrad


def _double(torch, backward_factor, jvp_factor):
    """``2 * t`` with a backward and a jvp that may be wrong (factor != 2)."""

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * backward_factor

        @staticmethod
        def jvp(ctx, tangent):
            return tangent * jvp_factor

    return Double


def _x(torch):
    return torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)


def test_a_wrong_backward_passes_when_only_forward_mode_is_checked(torch):
    wrong_backward = _double(torch, 3, 2).apply
    assert torch.autograd.gradcheck(
        wrong_backward, (_x(torch),), check_backward_ad=False, check_forward_ad=True
    )
    with pytest.raises(RuntimeError):
        torch.autograd.gradcheck(wrong_backward, (_x(torch),))


@pytest.mark.parametrize("fast_mode", [False, True])
def test_a_wrong_jvp_fails_when_forward_mode_is_checked(torch, fast_mode):
    wrong_jvp = _double(torch, 2, 5).apply
    assert torch.autograd.gradcheck(wrong_jvp, (_x(torch),), fast_mode=fast_mode)
    with pytest.raises(RuntimeError):
        torch.autograd.gradcheck(
            wrong_jvp, (_x(torch),), check_forward_ad=True, fast_mode=fast_mode
        )
    assert not torch.autograd.gradcheck(
        wrong_jvp,
        (_x(torch),),
        check_forward_ad=True,
        check_backward_ad=False,
        fast_mode=fast_mode,
        raise_exception=False,
    )


def test_checking_neither_mode_is_refused(torch):
    with pytest.raises(AssertionError):
        torch.autograd.gradcheck(lambda t: t * 2, (_x(torch),), check_backward_ad=False)


def test_outputs_that_do_not_require_grad_are_skipped(torch):
    def f(t):
        return t * 2, t.detach() * 3, torch.arange(3)

    assert torch.autograd.gradcheck(f, (_x(torch),))
    assert torch.autograd.gradcheck(f, (_x(torch),), check_forward_ad=True)


def test_without_differentiable_outputs_the_numerical_gradient_must_be_zero(torch):
    def constant(t):
        return torch.ones(2, dtype=torch.float64)

    def detached(t):
        return t.detach() * 3

    assert torch.autograd.gradcheck(constant, (_x(torch),))
    with pytest.raises(RuntimeError):
        torch.autograd.gradcheck(detached, (_x(torch),))
    assert not torch.autograd.gradcheck(detached, (_x(torch),), raise_exception=False)


def _next_draws_after_gradgradcheck(lib):
    """What a seeded script draws after a gradgradcheck that drew its own grad_outputs."""
    lib.manual_seed(0)
    x = lib.rand(2, 3, dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradgradcheck(lambda t: (t * t).sum(1), x)
    return lib.rand(3).tolist()


def test_gradgradcheck_leaves_the_generator_where_pytorch_leaves_it(pytorch):
    """PyTorch draws the grad_outputs with make_tensor from the global generator."""
    ours = _next_draws_after_gradgradcheck(leafgrad)
    assert ours == _next_draws_after_gradgradcheck(pytorch)
