"""linalg.lstsq and linalg.pinv under vmap (their ranks and tolerances come from values, so
each batches as a whole), every output and per-example gradients, against PyTorch (its
own vmap refuses lstsq with a vector right side: there, against its per-example results)."""

import pytest

import leafgrad

from ._same import rand, same


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
def test_lstsq_every_output_under_vmap(pytorch, driver):
    def fn(m, a, b):
        return tuple(m.vmap(lambda x, y: m.linalg.lstsq(x, y, driver=driver))(a, b))

    same(pytorch, fn, [rand(3, 5, 2), rand(3, 5, 2, seed=1)])


def _per_example(m, fn, in_dims, *args):
    """vmap for leafgrad; for PyTorch, whose vmap refuses lstsq with a vector right side,
    the stacked per-example results."""
    if m is leafgrad:
        return m.vmap(fn, in_dims=in_dims)(*args)
    size = next(a.shape[0] for a, d in zip(args, in_dims) if d == 0)
    rows = [fn(*(a[i] if d == 0 else a for a, d in zip(args, in_dims))) for i in range(size)]
    if isinstance(rows[0], tuple):
        return tuple(m.stack(col) for col in zip(*rows))
    return m.stack(rows)


@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0)])
def test_lstsq_with_vector_right_sides_and_unbatched_operands(pytorch, in_dims):
    def fn(m, a, b):
        a_ = a if in_dims[0] == 0 else a[0]
        b_ = b if in_dims[1] == 0 else b[0]
        return _per_example(m, lambda x, y: m.linalg.lstsq(x, y).solution, in_dims, a_, b_)

    same(pytorch, fn, [rand(3, 2, 4, 3), rand(3, 2, 4, seed=1)])


def test_lstsq_per_example_gradients(pytorch):
    def fn(m, a, b):
        def loss(x, y):
            return (m.linalg.lstsq(x, y).solution ** 2).sum()

        return _per_example(m, m.func.grad(loss, argnums=(0, 1)), (0, 0), a, b)

    same(pytorch, fn, [rand(3, 5, 2), rand(3, 5, seed=1)])


def test_pinv_forms_under_vmap(pytorch):
    def fn(m, a, tol):
        plain = m.vmap(m.linalg.pinv)(a)
        wide = m.vmap(lambda x: m.linalg.pinv(x.mT, rtol=0.1))(a)
        herm = m.vmap(lambda x: m.linalg.pinv(x.mT @ x, hermitian=True))(a)
        tensor_tol = m.vmap(lambda x, t: m.linalg.pinv(x, atol=t))(a, tol)
        nested = m.vmap(m.vmap(m.linalg.pinv))(a.reshape(2, 2, 4, 3))
        return plain, wide, herm, tensor_tol, nested, m.vmap(m.pinverse)(a)

    same(pytorch, fn, [rand(4, 4, 3), rand(4, seed=1).__abs__()])


def test_pinv_per_example_gradients_and_jacfwd(pytorch):
    def fn(m, a):
        g = m.vmap(m.func.grad(lambda x: m.linalg.pinv(x).sin().sum()))(a)
        j = m.vmap(m.func.jacfwd(m.linalg.pinv))(a)
        return g, j

    same(pytorch, fn, [rand(3, 4, 2)])
