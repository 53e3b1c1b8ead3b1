"""vmap's signature against PyTorch: in_dims, out_dims, kwargs, chunk_size, nesting."""

import pytest

from ._same import rand, same


def test_vmap_of_elementwise_and_reduction_matches_pytorch(pytorch):
    def fn(m, x, y):
        return m.vmap(lambda a, b: (m.sin(a) * b + 1.5).sum())(x, y)

    same(pytorch, fn, [rand(4, 3), rand(4, 3)])


def test_examples_have_per_example_shapes(torch):
    seen = []

    def f(a):
        seen.append((tuple(a.shape), a.dim(), a.size(0), a.numel(), len(a)))
        return a

    torch.vmap(f)(torch.zeros(5, 3, 2))
    assert seen == [((3, 2), 2, 3, 6, 3)]


@pytest.mark.parametrize("in_dims", [0, 1, -1, (1, None), (0, 0)])
def test_in_dims_ints_and_none(pytorch, in_dims):
    def fn(m, x, y):
        return m.vmap(lambda a, b: a * b.sum() - b.mean(), in_dims=in_dims)(x, y)

    same(pytorch, fn, [rand(4, 4), rand(4, 4, seed=1)])


def test_in_dims_nested_tuples_lists_and_dicts(pytorch):
    def fn(m, x, y, z):
        def f(pair, d):
            return pair[0] * pair[1] + d["w"].sum() * d["b"]

        return m.vmap(f, in_dims=([0, 1], {"w": None, "b": 0}))([x, y], {"w": z, "b": x})

    same(pytorch, fn, [rand(3, 2), rand(2, 3), rand(5)])


def test_out_dims_ints_none_and_nested(pytorch):
    def fn(m, x, c):
        def f(a):
            return {"p": a * 2, "q": (a.sum(), c * 3)}

        return m.vmap(f, out_dims={"p": 1, "q": (0, None)})(x)

    same(pytorch, fn, [rand(4, 3), rand(2)])


def test_out_dims_negative_and_unbatched_output_expanded(pytorch):
    def fn(m, x, c):
        return m.vmap(lambda a: (a.unsqueeze(0) * 2, c + 1), out_dims=(-1, 0))(x)

    same(pytorch, fn, [rand(4, 3), rand(2)])


def test_out_dims_none_passes_non_tensor_outputs_through(torch):
    x = torch.ones(4, 3)
    out = torch.vmap(lambda a: (a * 2, None, 3, "s"), out_dims=(0, None, None, None))(x)
    assert tuple(out[0].shape) == (4, 3) and out[1:] == (None, 3, "s")
    assert torch.vmap(lambda a: 2.5, out_dims=None)(x) == 2.5
    with pytest.raises(ValueError):  # a non-Tensor with an out_dim still raises
        torch.vmap(lambda a: (a, 3), out_dims=(0, 0))(x)


def test_keyword_arguments_are_not_mapped(pytorch):
    def fn(m, x, y):
        return m.vmap(lambda a, b=None: a + b)(x, b=y)

    same(pytorch, fn, [rand(3, 4), rand(3, 4)])


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 10])
def test_chunk_size_gives_the_same_result(pytorch, chunk_size):
    def fn(m, x, y):
        f = m.vmap(lambda a, b: (a @ b, a.sum()), in_dims=(1, None), chunk_size=chunk_size)
        return f(x, y)

    same(pytorch, fn, [rand(3, 5), rand(3, 2)])


def test_vmap_of_vmap(pytorch):
    def fn(m, x, y):
        inner = m.vmap(lambda a, b: (a * b).sum(), in_dims=(0, None))
        return m.vmap(inner, in_dims=(1, 0))(x, y)

    same(pytorch, fn, [rand(3, 4, 2), rand(4, 2)])


def test_vmap_of_vmap_with_matmul_and_unbatched_weights(pytorch):
    def fn(m, x, w):
        return m.vmap(m.vmap(lambda a: m.tanh(w @ a).sum()))(x)

    same(pytorch, fn, [rand(2, 3, 4), rand(5, 4)])


def test_vmap_is_torch_func_vmap(torch):
    assert torch.func.vmap is torch.vmap


def test_empty_batch(pytorch):
    same(pytorch, lambda m, x: m.vmap(lambda a: a * 2)(x), [rand(0, 3)])


def test_gradients_flow_through_vmap(pytorch):
    def fn(m, x, w):
        out = m.vmap(lambda a: m.tanh(w @ a).sum())(x)
        return m.autograd.grad(out.sum(), (x, w), create_graph=True)

    same(pytorch, fn, [rand(4, 3), rand(2, 3)], requires_grad=True)
