"""as_strided under vmap: each example's layout is its part of the batch value's memory, as
PyTorch reports and uses it; views reaching outside the example raise, as in PyTorch."""

import pytest

from ._same import rand, same


def test_strides_and_offsets_of_examples_are_their_part_of_the_value(pytorch):
    def fn(m, x):
        seen = []

        def f(a):
            seen.append((a.stride(), a.stride(-1), a.storage_offset()))
            return a * 1

        m.vmap(f)(x)
        m.vmap(f, in_dims=1)(x)
        m.vmap(f)(x[:, 1:])
        return m.tensor([v for s, d, o in seen for v in (*s, d, o)])

    same(pytorch, fn, [rand(3, 6)])


@pytest.mark.parametrize("in_dims", [0, 1])
def test_as_strided_of_examples(pytorch, in_dims):
    def fn(m, x):
        def f(a):
            return a.as_strided((2, 2), (1, 2)), a.as_strided((2,), (2,), a.storage_offset() + 1)

        return m.vmap(f, in_dims=in_dims)(x)

    same(pytorch, fn, [rand(5, 5)])


def test_as_strided_of_a_sliced_example_nested_and_its_gradient(pytorch):
    def fn(m, x):
        sliced = m.vmap(lambda a: a[1:].as_strided((2,), (2,)))(x[0])
        nested = m.vmap(m.vmap(lambda r: r.as_strided((2,), (1,), r.storage_offset() + 1)))(x)
        grads = m.vmap(m.func.grad(lambda a: (a.as_strided((2, 2), (1, 1)) ** 2).sum()))(x[0])
        return sliced, nested, grads

    same(pytorch, fn, [rand(2, 3, 4)])


def test_as_strided_reaching_into_another_example_raises(torch):
    x = torch.arange(18.0).reshape(3, 6)
    with pytest.raises(RuntimeError):
        torch.vmap(lambda a: a.as_strided((2,), (1,), 5))(x)
