"""median, nanmedian, quantile and nanquantile under vmap, against PyTorch: values, ties
sharing the whole-example median's gradient within each example, NaNs, every dim form, a
1-D q, nested vmaps and per-example derivatives."""

import numpy as np
import pytest

from ._same import rand, same

# PyTorch itself loops over the examples for the quantiles (its fallback) and says so.
pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop")

NAN = float("nan")
TIES = np.array(
    [
        [[1.0, 2.0, 2.0], [3.0, 0.5, 7.0]],
        [[4.0, 4.0, 4.0], [0.0, 4.0, 9.0]],
        [[NAN, 1.0, NAN], [2.0, 5.0, 1.0]],
    ]
)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_whole_example_medians_share_the_gradient_among_ties_per_example(pytorch, name):
    def fn(m, x):
        op = getattr(m, name)
        return (
            m.vmap(op)(x),
            m.vmap(m.func.grad(op))(x),
            m.vmap(m.func.jacfwd(op))(x),
            m.vmap(m.vmap(op))(x),
            m.vmap(op, in_dims=2)(x),
        )

    same(pytorch, fn, [TIES])


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_medians_along_a_dim_under_vmap(pytorch, name):
    def fn(m, x):
        op = getattr(m, name)
        values, indices = m.vmap(lambda v: op(v, 1, keepdim=True))(x)
        return values, indices, m.vmap(m.func.grad(lambda v: op(v, -1).values.sum()))(x)

    same(pytorch, fn, [rand(3, 2, 5)])


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"dim": 1},
        {"dim": 0, "keepdim": True},
        {"keepdim": True},
        {"dim": -1, "interpolation": "midpoint"},
        {"interpolation": "nearest"},
        {"dim": 1, "interpolation": "lower"},
    ],
)
def test_quantiles_under_vmap(pytorch, name, kwargs):
    def fn(m, x, q):
        op = getattr(m, name)
        scalar = m.vmap(lambda v: op(v, 0.3, **kwargs))(x)
        several = m.vmap(lambda v: op(v, q, **kwargs))(x)
        grads = m.vmap(m.func.grad(lambda v: op(v, q, **kwargs).sum()))(x)
        return scalar, several, grads

    x = rand(4, 3, 5)
    x[1, 0, 2] = NAN
    x[2] = NAN
    same(pytorch, fn, [x, np.array([0.1, 0.5, 0.75])])


def test_quantiles_of_zero_dim_examples_and_nested_vmaps(pytorch):
    def fn(m, x):
        per_value = m.vmap(m.vmap(lambda v: m.quantile(v, 0.4, dim=0)))(x)
        per_row = m.vmap(m.vmap(lambda v: m.nanquantile(v, 0.4)), in_dims=1)(x)
        return per_value, per_row

    same(pytorch, fn, [rand(3, 2, 4)])


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantiles_with_each_examples_own_q(pytorch, name):
    def fn(m, x, q, qs):
        op = getattr(m, name)
        own = m.vmap(op)(x.flatten(1), q)
        several = m.vmap(lambda v, q: op(v, q, dim=1, keepdim=True))(x, qs)
        only_q = m.vmap(lambda q: op(x[0], q, dim=0, interpolation="midpoint"))(qs)
        nested = m.vmap(m.vmap(op), in_dims=(1, None))(x, q)
        grads = m.vmap(m.func.grad(lambda v, q: op(v, q).sum(), argnums=(0, 1)))(x, qs)
        return own, several, only_q, nested, grads

    x = rand(4, 2, 5)
    x[1, 0, 3] = NAN
    q = np.array([0.1, 0.5, 0.8, 1.0])
    qs = np.random.default_rng(3).random((4, 3))
    same(pytorch, fn, [x, q, qs])


def test_a_q_out_of_range_in_one_example_raises(torch):
    x, q = torch.rand(3, 5), torch.tensor([0.2, 1.5, 0.3])
    with pytest.raises(RuntimeError, match="range"):
        torch.vmap(torch.quantile)(x, q)
