"""Hessian-vector products three ways, and why you never need the Hessian itself.

    python examples/hessian_vector_products.py

For f(w) = sum(log(1 + exp(X w))) - y.(X w) (a logistic-regression loss) in n dimensions,
H v costs a few gradient evaluations however large n is; forming H costs n of them and n^2
memory. The three ways agree with each other and, at small n, with the full Hessian.
"""

import leafgrad as torch
from leafgrad.autograd import grad
from leafgrad.autograd.functional import hessian, hvp
from leafgrad.func import grad as grad_of
from leafgrad.func import jvp

torch.manual_seed(0)
n, m = 6, 40
X = torch.randn(m, n, dtype=torch.float64)
y = (torch.rand(m, dtype=torch.float64) > 0.5).double()


def loss(w):
    z = X @ w
    return torch.nn.functional.softplus(z).sum() - (y * z).sum()


def hvp_double_backward(w, v):
    """Reverse over reverse: differentiate g(w).v, where g is taken with create_graph."""
    w = w.detach().requires_grad_()
    (g,) = grad(loss(w), w, create_graph=True)
    (hv,) = grad(g @ v, w)
    return hv


def hvp_forward_over_reverse(w, v):
    """The JVP of the gradient: one forward-mode pass over one reverse pass."""
    return jvp(grad_of(loss), (w,), (v,))[1]


def main():
    w = torch.randn(n, dtype=torch.float64)
    v = torch.randn(n, dtype=torch.float64)
    a = hvp_double_backward(w, v)
    b = hvp_forward_over_reverse(w, v)
    c = hvp(loss, w, v)[1]
    full = hessian(loss, w) @ v
    for name, got in (("double backward", a), ("forward over reverse", b), ("functional.hvp", c)):
        assert torch.allclose(got, full), name
        print(f"{name:22s} H v = {[round(t, 4) for t in got.tolist()]}")
    # The Hessian of this loss is X^T diag(s(1-s)) X, with s = sigmoid(X w): check one more way.
    s = torch.sigmoid(X @ w)
    assert torch.allclose(full, X.T @ ((s * (1 - s)) * (X @ v)))
    print("all agree with the full Hessian (formed only to check, at n =", n, ")")


if __name__ == "__main__":
    main()
