"""vmap composed with grad, jacrev, jacfwd, hessian, jvp, vjp and functional_call, in both
orders, against PyTorch's torch.func."""

import pytest

from ._same import rand, same


def _net(m, w1, w2):
    def f(x):
        return (m.tanh(x @ w1.T) @ w2).sum()

    return f


def test_vmap_of_grad(pytorch):
    def fn(m, x, w1, w2):
        return m.vmap(m.func.grad(_net(m, w1, w2)))(x)

    same(pytorch, fn, [rand(5, 2), rand(4, 2, seed=1), rand(4, seed=2)])


def test_vmap_of_grad_with_respect_to_an_unbatched_argument_is_per_example(pytorch):
    def fn(m, x, w):
        def loss(x, w):
            return (m.sin(x * w) ** 2).sum()

        return m.vmap(m.func.grad(loss, argnums=1), in_dims=(0, None))(x, w)

    same(pytorch, fn, [rand(5, 3), rand(3, seed=1)])


def test_vmap_of_jacrev_and_jacfwd(pytorch):
    def fn(m, x, w):
        def f(v):
            return m.tanh(w @ v) * v.sum()

        return m.vmap(m.func.jacrev(f))(x), m.vmap(m.func.jacfwd(f))(x)

    same(pytorch, fn, [rand(4, 3), rand(3, 3, seed=1)])


def test_jacrev_and_jacfwd_of_vmap(pytorch):
    def fn(m, x, w):
        g = m.vmap(lambda v: m.tanh(w @ v).sum())
        return m.func.jacrev(g)(x), m.func.jacfwd(g)(x)

    same(pytorch, fn, [rand(4, 3), rand(2, 3, seed=1)])


def test_vmap_of_hessian_is_the_per_point_hessian(pytorch):
    def fn(m, x, w1, w2):
        return m.vmap(m.func.hessian(_net(m, w1, w2)))(x)

    same(pytorch, fn, [rand(6, 2), rand(5, 2, seed=1), rand(5, seed=2)])


def test_hessian_of_a_vmapped_sum(pytorch):
    def fn(m, x, w1, w2):
        return m.func.hessian(lambda v: m.vmap(_net(m, w1, w2))(v).sum())(x)

    same(pytorch, fn, [rand(3, 2), rand(4, 2, seed=1), rand(4, seed=2)])


def test_vmap_of_jvp_and_vjp(pytorch):
    def fn(m, x, t, w):
        def f(v):
            return m.sin(w @ v)

        jvps = m.vmap(lambda v, tv: m.func.jvp(f, (v,), (tv,)))(x, t)

        def pullback(v, ct):
            out, vjp_fn = m.func.vjp(f, v)
            return out, vjp_fn(ct)

        return jvps, m.vmap(pullback)(x, m.cos(x @ w.T))

    same(pytorch, fn, [rand(4, 3), rand(4, 3, seed=1), rand(3, 3, seed=2)])


def test_vmap_over_a_vjp_function_gives_the_jacobian_rows(pytorch):
    def fn(m, x, w):
        out, vjp_fn = m.func.vjp(lambda v: m.tanh(w @ v), x)
        return m.vmap(vjp_fn)(m.eye(out.shape[0], dtype=out.dtype))

    same(pytorch, fn, [rand(3), rand(4, 3, seed=1)])


def test_vmap_of_vmap_of_grad(pytorch):
    def fn(m, x, w1, w2):
        return m.vmap(m.vmap(m.func.grad(_net(m, w1, w2))))(x)

    same(pytorch, fn, [rand(2, 3, 2), rand(4, 2, seed=1), rand(4, seed=2)])


def test_per_example_gradients_with_functional_call(pytorch):
    def fn(m, x, y):
        m.manual_seed(0)
        model = m.nn.Linear(3, 1).double()
        with m.no_grad():
            model.weight.copy_(m.tensor([[0.5, -1.0, 2.0]], dtype=m.float64))
            model.bias.fill_(0.25)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, xi, yi):
            pred = m.func.functional_call(model, p, (xi.unsqueeze(0),))
            return ((pred.squeeze() - yi) ** 2).mean()

        return m.vmap(m.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)

    same(pytorch, fn, [rand(5, 3), rand(5, seed=1)])


def test_grad_of_a_vmapped_function_of_parameters(pytorch):
    def fn(m, x, w):
        return m.func.grad(lambda w: m.vmap(lambda v: m.tanh(w @ v).sum())(x).mean())(w)

    same(pytorch, fn, [rand(4, 3), rand(2, 3, seed=1)])


def test_requires_grad_inside_vmap_raises(torch):
    def f(v):
        return v.detach().requires_grad_()

    with pytest.raises(RuntimeError, match="requires_grad_"):
        torch.vmap(f)(torch.ones(2, 3))


def test_jvp_and_vjp_of_a_vmapped_function(pytorch):
    def fn(m, x, t, ct, w):
        g = m.vmap(lambda v: m.sin(w @ v) * v.sum())
        primal, tangent = m.func.jvp(g, (x,), (t,))
        out, vjp_fn = m.func.vjp(g, x)
        return primal, tangent, out, vjp_fn(ct)

    same(pytorch, fn, [rand(4, 3), rand(4, 3, seed=1), rand(4, 3, seed=2), rand(3, 3, seed=3)])


def test_print_of_a_batched_tensor_shows_its_level_and_value(torch):
    seen = []
    torch.vmap(lambda a: seen.append(repr(a)) or a)(torch.zeros(2, 2))
    assert seen[0].startswith("BatchedTensor(lvl=") and "bdim=0" in seen[0]
