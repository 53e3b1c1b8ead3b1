"""sort, topk, argsort, msort, cummax and cummin under vmap (their indices come from the
values), with per-example gradients, against PyTorch."""

import pytest

from ._same import rand, same


@pytest.mark.parametrize("in_dim", [0, 1])
def test_sort_argsort_msort_under_vmap(pytorch, in_dim):
    def fn(m, x):
        def f(v):
            s = m.sort(v, dim=-1, descending=True)
            return s.values, s.indices, m.argsort(v, dim=0), m.msort(v)

        return m.vmap(f, in_dims=in_dim)(x)

    same(pytorch, fn, [rand(4, 3, 5)])


def test_topk_and_cumulative_extremes_under_vmap(pytorch):
    def fn(m, x):
        def f(v):
            t = m.topk(v, 2, dim=1)
            hi, lo = m.cummax(v, 0), m.cummin(v, dim=-1)
            return t.values, t.indices, hi.values, hi.indices, lo.values, lo.indices

        return m.vmap(f)(x)

    same(pytorch, fn, [rand(3, 4, 5)])


def test_sort_of_zero_dim_examples_and_nested_vmap(pytorch):
    def fn(m, x):
        zero_d = m.vmap(lambda s: m.sort(s).values * 2)(x[:, 0, 0])
        nested = m.vmap(m.vmap(lambda v: m.topk(v, 3).values))(x)
        return zero_d, nested

    same(pytorch, fn, [rand(3, 4, 5)])


def test_per_example_gradients_through_sort_and_cummax(pytorch):
    def fn(m, x):
        def loss(v):
            return (m.sort(v).values * m.arange(5.0, dtype=v.dtype)).sum() + m.cummax(
                v, 0
            ).values.pow(2).sum()

        return m.vmap(m.func.grad(loss))(x)

    same(pytorch, fn, [rand(4, 5)])


def test_out_is_refused_under_vmap(torch):
    with pytest.raises(RuntimeError):
        torch.vmap(
            lambda v: torch.cummax(v, 0, out=(torch.empty(3), torch.empty(3, dtype=torch.long)))
        )(torch.ones(2, 3))
