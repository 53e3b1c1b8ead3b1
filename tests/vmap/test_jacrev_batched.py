"""jacrev under an enclosing vmap: all rows of the Jacobian in one backward pass, the
identity's rows a vmap level the outputs are not batched at (nested levels), against
PyTorch's torch.func; and autograd.grad with gradients batched where the outputs are not."""

import pytest

import leafgrad as lg
from leafgrad._engine import entry

from ._same import rand, same


def _f(m, w):
    def f(v):
        return m.tanh(w @ v) * v.sum()

    return f


def test_vmap_of_jacrev_matches_pytorch(pytorch):
    def fn(m, x, w):
        return m.vmap(m.func.jacrev(_f(m, w)))(x)

    same(pytorch, fn, [rand(5, 3), rand(4, 3, seed=1)])


def test_vmap_of_jacrev_with_argnums_aux_and_chunks(pytorch):
    def fn(m, x, w):
        def f(v, w):
            y = m.sin(w @ v)
            return {"y": y, "sq": (y * y).reshape(2, 2)}, y.sum()

        by_rows = m.func.jacrev(f, argnums=(0, 1), has_aux=True, chunk_size=3)
        return m.vmap(by_rows, in_dims=(0, None))(x, w)

    same(pytorch, fn, [rand(5, 3), rand(4, 3, seed=1)])


def test_nested_vmaps_and_reverse_over_reverse_hessians(pytorch):
    def fn(m, x, w):
        def g(v):
            return (m.tanh(w @ v) ** 2).sum()

        hess = m.vmap(m.vmap(m.func.jacrev(m.func.jacrev(g))))(x)
        jac = m.vmap(m.vmap(m.func.jacrev(_f(m, w))))(x)
        return hess, jac

    same(pytorch, fn, [rand(2, 3, 3), rand(4, 3, seed=1)])


def test_jacrev_of_a_function_with_captured_batched_values(pytorch):
    """The rows' level meets values batched at the enclosing vmap inside the function."""

    def fn(m, x, y):
        def per_point(v, u):
            return m.func.jacrev(lambda a: m.exp(a * u) + a.sum() * u)(v)

        return m.vmap(per_point)(x, y)

    same(pytorch, fn, [rand(4, 3), rand(4, 3, seed=1)])


def test_jacrev_under_vmap_runs_one_backward_pass_for_all_rows(monkeypatch):
    """Batched, not row by row: a 4-element output under vmap takes one engine pass."""
    passes = []
    execute = entry.execute

    def counting(*args, **kwargs):
        passes.append(1)
        return execute(*args, **kwargs)

    monkeypatch.setattr(entry, "execute", counting)
    x, w = lg.randn(5, 3), lg.randn(4, 3)
    jac = lg.vmap(lg.func.jacrev(lambda v: lg.tanh(w @ v)))(x)
    assert len(passes) == 1
    assert tuple(jac.shape) == (5, 4, 3)


@pytest.mark.parametrize("create_graph", [False, True])
def test_autograd_grad_with_gradients_batched_where_the_output_is_not(pytorch, create_graph):
    def fn(m, x, seeds):
        x = x.detach().requires_grad_()
        y = m.sin(x) * x

        def vjp(seed):
            (g,) = m.autograd.grad(y, x, seed, retain_graph=True, create_graph=create_graph)
            return g

        rows = m.vmap(vjp)(seeds)
        if create_graph:
            (second,) = m.autograd.grad(rows.sum(), x)
            return rows, second
        return rows

    same(pytorch, fn, [rand(3), rand(4, 3, seed=1)])
