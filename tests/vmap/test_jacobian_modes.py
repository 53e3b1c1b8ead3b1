"""jacrev's chunk_size and jacfwd's randomness, as torch.func: jacrev's rows are one vmap
(chunk_size rows at a time), jacfwd's columns a vmap with that randomness."""

import pytest

from ._same import rand, same


def _f(m):
    def f(x, w):
        return m.tanh(w @ x) * x.sum(), (x**2).sum(0)

    return f


@pytest.mark.parametrize("chunk_size", [None, 1, 2, 5])
def test_jacrev_chunk_size_gives_the_same_jacobians(pytorch, chunk_size):
    def fn(m, x, w):
        return m.func.jacrev(_f(m), argnums=(0, 1), chunk_size=chunk_size)(x, w)

    same(pytorch, fn, [rand(3, 2), rand(4, 3, seed=1)])


def test_jacrev_chunk_size_under_vmap_and_with_a_graph(pytorch):
    def fn(m, x, w):
        j = m.vmap(m.func.jacrev(lambda v: m.sin(w @ v), chunk_size=2))(x)
        wg = w.detach().requires_grad_()
        (g,) = m.autograd.grad(m.func.jacrev(lambda v: m.sin(wg @ v), chunk_size=3)(x[0]).sum(), wg)
        return j, g

    same(pytorch, fn, [rand(5, 3), rand(4, 3, seed=1)])


@pytest.mark.parametrize("chunk_size", [0, -1])
def test_jacrev_chunk_size_below_one_raises(torch, chunk_size):
    with pytest.raises(ValueError):
        torch.func.jacrev(torch.sin, chunk_size=chunk_size)(torch.ones(3))


@pytest.mark.parametrize("randomness", ["error", "same", "different"])
def test_jacfwd_randomness_modes_agree_on_deterministic_functions(pytorch, randomness):
    def fn(m, x, w):
        return m.func.jacfwd(_f(m), argnums=(0, 1), randomness=randomness)(x, w)

    same(pytorch, fn, [rand(3, 2), rand(4, 3, seed=1)])


def test_jacfwd_randomness_under_vmap_and_with_aux(pytorch):
    def fn(m, x):
        def f(v):
            return m.sin(v) * v.sum(), v.cos()

        return m.vmap(m.func.jacfwd(f, has_aux=True, randomness="same"))(x)

    same(pytorch, fn, [rand(4, 3)])


def test_jacfwd_refuses_random_ops_by_default(torch):
    with pytest.raises(RuntimeError, match="randomness"):
        torch.func.jacfwd(lambda x: x * torch.rand(3))(torch.ones(3))
    with pytest.raises(RuntimeError, match="randomness"):
        torch.func.hessian(lambda x: (x * torch.randn(3)).sum())(torch.ones(3))


def test_jacfwd_same_draws_once_and_different_per_column(torch):
    x = torch.ones(6)
    torch.manual_seed(0)
    j_same = torch.func.jacfwd(lambda v: v + torch.rand(()), randomness="same")(x)
    assert torch.equal(j_same, torch.eye(6))  # the draw is a constant: its derivative is 0
    d_same = torch.func.jacfwd(lambda v: v * torch.rand(()), randomness="same")(x)
    diag = d_same.diagonal()
    assert torch.equal(diag, diag[0].expand(6)) and torch.equal(d_same, torch.diag(diag))
    d_diff = torch.func.jacfwd(lambda v: v * torch.rand(()), randomness="different")(x)
    values = d_diff.diagonal().tolist()
    assert len(set(values)) == 6 and all(0 <= v < 1 for v in values)
    assert torch.equal(d_diff, torch.diag(d_diff.diagonal()))


def test_a_looping_jacfwd_leaves_random_ops_allowed_afterwards(torch):
    with pytest.raises(RuntimeError):
        torch.func.jacfwd(lambda x: x * torch.rand(3))(torch.ones(3))
    assert tuple(torch.rand(2).shape) == (2,)
