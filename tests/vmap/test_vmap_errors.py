"""vmap's errors and randomness modes, asserted for leafgrad and PyTorch alike."""

import pytest


def test_mismatched_batch_sizes_raise_value_error(torch):
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        torch.vmap(lambda a, b: a + b)(torch.ones(3, 4), torch.ones(2, 4))


def test_item_inside_vmap_raises(torch):
    with pytest.raises(RuntimeError, match=r"\.item\(\)"):
        torch.vmap(lambda a: a.sum().item())(torch.ones(3, 4))


def test_float_of_a_batched_tensor_raises(torch):
    with pytest.raises(RuntimeError, match=r"\.item\(\)"):
        torch.vmap(lambda a: float(a.sum()))(torch.ones(3, 4))


def test_data_dependent_control_flow_raises(torch):
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        torch.vmap(lambda a: a if a.sum() > 0 else -a)(torch.ones(3, 4))


def test_writing_a_batched_value_into_an_unbatched_tensor_raises(torch):
    with pytest.raises(RuntimeError):
        torch.vmap(lambda a: torch.zeros(4).add_(a))(torch.ones(3, 4))


def test_in_place_into_a_batched_tensor_writes_each_example(torch):
    x = torch.arange(12.0).reshape(3, 4)

    def f(a):
        b = a.clone()
        b[0] = -1.0
        b.mul_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        return b

    out = torch.vmap(f)(x)
    assert out.tolist() == [
        [-1.0, 2 * 1.0, 3 * 2.0, 4 * 3.0],
        [-1.0, 2 * 5.0, 3 * 6.0, 4 * 7.0],
        [-1.0, 2 * 9.0, 3 * 10.0, 4 * 11.0],
    ]


def test_in_place_on_an_input_changes_the_callers_tensor(torch):
    x = torch.zeros(3, 2)
    torch.vmap(lambda a: a.add_(1.0))(x)
    assert x.tolist() == [[1.0, 1.0]] * 3


def test_random_op_in_error_mode_raises(torch):
    with pytest.raises(RuntimeError, match="randomness"):
        torch.vmap(lambda a: a + torch.rand(4))(torch.ones(3, 4))


def test_random_like_in_error_mode_raises(torch):
    with pytest.raises(RuntimeError, match="randomness"):
        torch.vmap(lambda a: torch.randn_like(a))(torch.ones(3, 4))


def test_randomness_different_draws_per_example(torch):
    torch.manual_seed(0)
    out = torch.vmap(lambda a: a * 0 + torch.rand(4), randomness="different")(torch.ones(3, 4))
    assert out.shape == (3, 4)
    assert len({tuple(row) for row in out.tolist()}) == 3
    like = torch.vmap(torch.randn_like, randomness="different")(torch.ones(3, 4))
    assert len({tuple(row) for row in like.tolist()}) == 3


def test_randomness_same_draws_once(torch):
    torch.manual_seed(0)
    out = torch.vmap(lambda a: a * 0 + torch.rand(4), randomness="same")(torch.ones(3, 4))
    assert len({tuple(row) for row in out.tolist()}) == 1


def test_dropout_with_randomness_different_masks_examples_differently(torch):
    torch.manual_seed(0)
    drop = torch.vmap(lambda a: torch.nn.functional.dropout(a, 0.5), randomness="different")(
        torch.ones(8, 64)
    )
    assert len({tuple(row) for row in (drop == 0).tolist()}) == 8


def test_unknown_randomness_raises(torch):
    with pytest.raises(RuntimeError, match="randomness"):
        torch.vmap(lambda a: a, randomness="foo")(torch.ones(3))


@pytest.mark.parametrize("in_dims", [2, -3])
def test_in_dim_out_of_range_raises(torch, in_dims):
    with pytest.raises(ValueError, match="in_dim"):
        torch.vmap(lambda a: a, in_dims=in_dims)(torch.ones(3, 4))


@pytest.mark.parametrize("in_dims", [None, 1.0, [0]])
def test_in_dims_of_a_wrong_type_raise(torch, in_dims):
    with pytest.raises(ValueError, match="in_dims"):
        torch.vmap(lambda a: a, in_dims=in_dims)(torch.ones(3, 4))


def test_in_dims_not_matching_the_inputs_raise(torch):
    with pytest.raises(ValueError, match="in_dims is not compatible"):
        torch.vmap(lambda a: a, in_dims=(0, 0))(torch.ones(3, 4))


def test_tuple_in_dims_for_a_list_input_raise(torch):
    with pytest.raises(ValueError, match="in_dims is not compatible"):
        torch.vmap(lambda p: p[0], in_dims=((0, 0),))([torch.ones(3), torch.ones(3)])


def test_mapping_a_non_tensor_raises(torch):
    with pytest.raises(ValueError, match="non-Tensor"):
        torch.vmap(lambda a, n: a * n)(torch.ones(3), 2)


def test_returning_a_non_tensor_raises(torch):
    with pytest.raises(ValueError, match="must only return Tensors"):
        torch.vmap(lambda a: 3)(torch.ones(3))


def test_out_dim_out_of_range_raises_index_error(torch):
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.vmap(lambda a: a, out_dims=3)(torch.ones(3, 4))


def test_chunk_size_zero_raises(torch):
    with pytest.raises(ValueError, match="chunk_size"):
        torch.vmap(lambda a: a, chunk_size=0)(torch.ones(3))


def test_batched_out_with_out_dim_none_raises(torch):
    with pytest.raises(ValueError, match="out_dim is None"):
        torch.vmap(lambda a: a * 2, out_dims=None)(torch.ones(3))


def test_backward_inside_vmap_raises(torch):
    def f(a):
        return torch.func.grad(lambda v: (v * v).sum())(a)

    assert torch.vmap(f)(torch.ones(2, 3)).tolist() == [[2.0] * 3] * 2
    with pytest.raises(RuntimeError):
        torch.vmap(lambda a: a.sum().backward())(torch.ones(2, 3, requires_grad=True))


def test_data_of_a_batched_tensor_raises(torch):
    with pytest.raises(RuntimeError, match="data"):
        torch.vmap(lambda a: a.data * 2)(torch.ones(3, 2))


def test_nested_randomness_different_outside_same_inside(torch):
    torch.manual_seed(0)

    def inner(a):
        return a * 0 + torch.rand(())

    f = torch.vmap(torch.vmap(inner, randomness="same"), randomness="different")
    out = f(torch.ones(3, 4))
    rows = out.tolist()
    assert all(len(set(r)) == 1 for r in rows)  # the same across the inner batch
    assert len({r[0] for r in rows}) == 3  # different across the outer one
