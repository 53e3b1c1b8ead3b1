"""Storages and layout ops as PyTorch's: untyped_storage()/storage(), as_strided (and its
gradient), resize_, resize_as_, transpose_ and t_.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest

from ._helpers import assert_values

# ----- storages -----


def test_views_share_one_storage_and_copies_do_not(torch):
    x = torch.arange(6.0).reshape(2, 3)
    row, transposed = x[1], x.t()
    pointer = x.untyped_storage().data_ptr()
    assert row.untyped_storage().data_ptr() == pointer == transposed.untyped_storage().data_ptr()
    assert row.data_ptr() != x.data_ptr()
    assert x.clone().untyped_storage().data_ptr() != pointer
    assert x.untyped_storage().nbytes() == row.untyped_storage().nbytes() == 24


def test_typed_storage_is_deprecated_and_lists_the_elements(torch):
    x = torch.arange(6.0).reshape(2, 3)
    with pytest.warns(UserWarning):
        storage = x[1].storage()
    assert (storage.size(), len(storage), storage.dtype) == (6, 6, torch.float32)
    assert storage.data_ptr() == x.data_ptr()
    assert storage.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and storage[4] == 4.0


# ----- as_strided -----


def test_as_strided_views_the_storage_and_sums_gradients_back(torch):
    x = torch.arange(6.0, requires_grad=True)
    y = x.as_strided((2, 2), (1, 2), 1)
    assert y.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert (y.grad_fn.name(), y._base is x, y.stride(), y.storage_offset()) == (
        "AsStridedBackward0",
        True,
        (1, 2),
        1,
    )
    y.sum().backward()
    assert_values(x.grad, [0.0, 1.0, 1.0, 1.0, 1.0, 0.0])


def test_as_strided_with_overlapping_elements_accumulates_their_gradients(torch):
    x = torch.arange(4.0, requires_grad=True)
    x.as_strided((2, 2), (1, 1)).sum().backward()
    assert_values(x.grad, [1.0, 2.0, 1.0, 0.0])


def test_as_strided_offsets_count_from_the_storage(torch):
    b = torch.arange(6.0, requires_grad=True) * 1
    assert b[2:].as_strided((2,), (1,), 1).tolist() == [1.0, 2.0]
    assert torch.as_strided(b, (2, 3), (3, 1)).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_writes_through_as_strided_views_backpropagate(torch):
    """CopySlices replays the as_strided view on a gradient that owns its memory: a sum's
    broadcast gradient, or a slice of a larger one, places the view like the base."""
    a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = a.clone()
    b.as_strided((2,), (2,)).mul_(3)
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    b.sum().backward()  # a broadcast gradient
    assert_values(a.grad, [3.0, 1.0, 3.0, 1.0])
    a.grad = None
    b = a.clone()
    b.as_strided((2,), (2,)).mul_(3)
    torch.cat([b, b])[1:5].sum().backward()  # a gradient sliced from a larger one
    assert_values(a.grad, [3.0, 1.0, 3.0, 1.0])
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    y.as_strided((2, 2), (4, 1), 5).pow_(2)
    y.sum().backward()
    assert_values(x.grad, [[1.0] * 4, [1.0, 10.0, 12.0, 1.0], [1.0, 18.0, 20.0, 1.0]])


def test_writes_through_as_strided_views_differentiate_twice(torch):
    a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = a * 1
    b.as_strided((2,), (2,)).mul_(a[1:3])
    (g,) = torch.autograd.grad((b * b).sum(), a, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), a)
    assert_values(g, [8.0, 8.0, 108.0, 8.0])
    assert_values(g2, [16.0, 12.0, 108.0, 2.0])


def test_as_strided_past_the_storage_raises(torch):
    with pytest.raises(RuntimeError):
        torch.arange(6.0).as_strided((10,), (1,))


# ----- resize_ -----


def test_resize_keeps_the_leading_elements(torch):
    x = torch.arange(6.0)
    assert x.resize_(2, 2) is x
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0]] and x._version == 1
    y = torch.arange(4.0)
    y.resize_(2, 3)
    assert tuple(y.shape) == (2, 3) and y[0].tolist() == [0.0, 1.0, 2.0]
    z = torch.empty(0)
    z.resize_as_(torch.arange(6.0))
    assert tuple(z.shape) == (6,)


def test_resize_refuses_tensors_that_require_grad(torch):
    with pytest.raises(RuntimeError):
        torch.arange(4.0, requires_grad=True).resize_(2, 2)
    with pytest.raises(RuntimeError):
        (torch.arange(4.0, requires_grad=True) * 1).resize_(2, 2)


# ----- transpose_ and t_ -----


def test_transpose_in_place_changes_the_layout_not_the_memory(torch):
    x = torch.arange(6.0).reshape(2, 3)
    pointer = x.data_ptr()
    assert x.transpose_(0, 1) is x
    assert tuple(x.shape) == (3, 2) and x.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert (x.is_contiguous(), x._version, x.data_ptr()) == (False, 1, pointer)


def test_t_in_place_records_the_transpose(torch):
    a = torch.ones(2, 3, requires_grad=True)
    x = a * 2
    x.t_()
    (x * torch.arange(6.0).reshape(3, 2)).sum().backward()
    assert_values(a.grad, [[0.0, 4.0, 8.0], [2.0, 6.0, 10.0]])


def test_transpose_in_place_refuses_leaves_and_their_views(torch):
    with pytest.raises(RuntimeError):
        torch.ones(2, 3, requires_grad=True).transpose_(0, 1)
    with pytest.raises(RuntimeError):
        torch.arange(6.0, requires_grad=True).reshape(2, 3).transpose_(0, 1)


# ----- out= -----


def test_out_refuses_inputs_that_require_grad_while_grad_mode_is_on(torch):
    a = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="out="):
        torch.exp(a, out=torch.empty(2))
    with pytest.raises(RuntimeError, match="out="):
        torch.exp(torch.ones(2), out=torch.empty(2, requires_grad=True))
    with pytest.raises(RuntimeError, match="out="):
        torch.cat([a, a], out=torch.empty(4))
    with torch.no_grad():
        out = torch.empty(2)
        assert torch.exp(a, out=out) is out
    assert not out.requires_grad and out._version == 1


def test_out_receives_the_result_in_its_dtype(torch):
    a = torch.ones(2)
    out = torch.zeros(2, dtype=torch.float64)
    assert torch.exp(a, out=out) is out and out.dtype == torch.float64
    assert abs(out[0].item() - 2.718281828459045) < 1e-6  # computed in float32, then cast
    buffer = torch.empty(4)
    assert torch.cat([a, a * 2], out=buffer) is buffer
    assert buffer.tolist() == [1.0, 1.0, 2.0, 2.0]
    stacked = torch.empty(2, 2)
    assert torch.stack([a, a], out=stacked) is stacked and stacked.tolist() == [[1.0, 1.0]] * 2
    with pytest.raises(RuntimeError):
        torch.exp(a, out=torch.zeros(2, dtype=torch.int64))


def test_out_of_another_shape_is_resized_with_a_warning(torch):
    out = torch.empty(3)
    with pytest.warns(UserWarning):
        torch.exp(torch.zeros(2), out=out)
    assert tuple(out.shape) == (2,) and out.tolist() == [1.0, 1.0]
