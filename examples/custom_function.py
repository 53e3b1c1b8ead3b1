"""A custom autograd.Function: a numerically stable log(1 + exp(x)) with its own derivative.

    python examples/custom_function.py

Written the PyTorch way (static forward/backward, ctx.save_for_backward). The backward is
written in leafgrad ops, so it is itself differentiable: gradgradcheck passes and
autograd.grad with create_graph=True gives second derivatives through it.
"""

import numpy as np

import leafgrad as torch
from leafgrad.autograd import Function, grad, gradcheck, gradgradcheck


class Softplus(Function):
    """log(1 + exp(x)), computed without overflow for large x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        # log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): exp never overflows.
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)  # d/dx softplus = sigmoid, in leafgrad ops


def main():
    x = torch.tensor([-800.0, -1.0, 0.0, 2.0, 800.0], dtype=torch.float64, requires_grad=True)
    y = Softplus.apply(x)
    assert np.isfinite(y.detach().numpy()).all()
    print("softplus:", y.detach())

    (dy,) = grad(y.sum(), x, create_graph=True)
    assert torch.allclose(dy, torch.sigmoid(x.detach()))
    (d2y,) = grad(dy.sum(), x)
    s = torch.sigmoid(x.detach())
    assert torch.allclose(d2y, s * (1 - s))  # the second derivative, through our backward
    print("first derivative:", dy.detach())

    probe = torch.tensor([-1.5, 0.3, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(Softplus.apply, (probe,))
    assert gradgradcheck(Softplus.apply, (probe,))
    print("gradcheck and gradgradcheck: ok;", y.grad_fn.name())


if __name__ == "__main__":
    main()
