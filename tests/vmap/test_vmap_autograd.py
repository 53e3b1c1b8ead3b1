"""What autograd builds on vmap: jacobian/hessian(vectorize=True), autograd.grad(...,
is_grads_batched=True) and gradcheck(check_batched_grad=True), against PyTorch."""

import pytest

from ._same import rand, same


def _f(m):
    def f(x, w):
        return m.tanh(w @ x) * x.sum(), (x * x).sum() + w.sum()

    return f


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_vectorized_equals_looped_and_pytorch(pytorch, create_graph):
    def fn(m, x, w):
        jac = m.autograd.functional.jacobian
        looped = jac(_f(m), (x, w), create_graph=create_graph)
        vectorized = jac(_f(m), (x, w), create_graph=create_graph, vectorize=True)
        return looped, vectorized

    ours = same(pytorch, fn, [rand(3), rand(4, 3, seed=1)], requires_grad=True)
    for a, b in zip(ours[0], ours[1]):
        for p, q in zip(a, b):
            assert (p - q).abs().max().item() == 0.0  # the same products, batched
            # Vectorized, an input's blocks are views of one tensor, in the graph together
            # (the constant d out1 / d w too), as in PyTorch; looped, each on its own.
            assert q.requires_grad == create_graph
    assert [[p.requires_grad for p in row] for row in ours[0]] == [
        [create_graph, create_graph],
        [create_graph, False],
    ]


def test_jacobian_forward_mode_vectorized(pytorch):
    def fn(m, x, w):
        jac = m.autograd.functional.jacobian
        return jac(_f(m), (x, w), vectorize=True, strategy="forward-mode")

    same(pytorch, fn, [rand(3), rand(4, 3, seed=1)])


@pytest.mark.parametrize("outer", ["reverse-mode", "forward-mode"])
def test_hessian_vectorized(pytorch, outer):
    def fn(m, x, w):
        def f(x, w):
            return (m.tanh(w @ x) ** 2).sum()

        hess = m.autograd.functional.hessian
        return hess(f, (x, w), vectorize=True, outer_jacobian_strategy=outer), hess(f, (x, w))

    same(pytorch, fn, [rand(3), rand(2, 3, seed=1)])


def test_is_grads_batched_gives_each_rows_gradient(pytorch):
    def fn(m, x, w, v):
        y = m.tanh(w @ x)
        z = (x**2).sum()
        batched = m.autograd.grad((y, z), (x, w), (v, m.ones(5, dtype=v.dtype)),
                                  is_grads_batched=True, retain_graph=True)  # fmt: skip
        rows = [m.autograd.grad((y, z), (x, w), (v[k], m.ones((), dtype=v.dtype)),
                                retain_graph=True) for k in range(5)]  # fmt: skip
        for k in range(5):
            for a, b in zip(batched, rows[k]):
                assert (a[k] - b).abs().max().item() < 1e-12
        return batched

    same(pytorch, fn, [rand(3), rand(4, 3, seed=1), rand(5, 4, seed=2)], requires_grad=True)


def test_is_grads_batched_with_create_graph_is_differentiable(pytorch):
    def fn(m, x):
        y = m.sin(x) * x
        (g,) = m.autograd.grad(y, x, m.eye(3, dtype=x.dtype), is_grads_batched=True,
                               create_graph=True)  # fmt: skip
        return m.autograd.grad(g.sum(), x)

    same(pytorch, fn, [rand(3)], requires_grad=True)


def test_is_grads_batched_needs_a_batch_dim(torch):
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(torch.sin(x), x, torch.ones(3), is_grads_batched=True)


def test_gradcheck_with_batched_grad_passes_for_correct_rules(torch):
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([[1.0, 2.0, 0.5], [0.1, -0.3, 0.7]], dtype=torch.float64, requires_grad=True)

    def f(x, w):
        return torch.softmax(w @ torch.tanh(x), 0), (x.unsqueeze(0) * w).sum(1)

    assert torch.autograd.gradcheck(f, (x, w), check_batched_grad=True)
    assert torch.autograd.gradgradcheck(f, (x, w), check_batched_grad=True)


def test_gradcheck_with_batched_grad_catches_a_backward_that_cannot_batch(torch):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return torch.tensor(g.detach().numpy() * 2)  # leaves the tensor world

    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(Double.apply, (x,))
    with pytest.raises(RuntimeError, match="batched gradients"):  # GradcheckError
        torch.autograd.gradcheck(Double.apply, (x,), check_batched_grad=True)
