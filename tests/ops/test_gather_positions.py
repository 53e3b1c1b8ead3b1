"""gather by flat positions (``np.take``) gives NumPy's indexing results exactly, for
C-contiguous sources and broadcast ones (a ``sum()``'s gradient), and leaves other layouts to
NumPy's indexing; gather and scatter_add keep reading their indices as they were."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops.indexing import (
    TAKE_MIN_SIZE,
    _flat_source,
    _gather_forward,
    _gather_key,
    gather_positions,
    scatter_add_into,
)

RNG = np.random.default_rng(0)


def _sources(shape):
    """Arrays of ``shape`` in each layout gather meets."""
    values = RNG.standard_normal(shape)
    yield "contiguous", values
    yield "one value", np.broadcast_to(np.float64(2.5), shape)
    yield "rows broadcast", np.broadcast_to(values[:1], shape)
    yield "columns broadcast", np.broadcast_to(values[:, :1], shape)
    yield "transposed", np.ascontiguousarray(values.T).T
    yield "flipped", values[::-1]


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_by_flat_positions_equals_numpy_indexing(dim):
    shape = (40, 50, 3)
    for _, x in _sources(shape):
        d = dim % x.ndim
        index_shape = list(x.shape)
        index_shape[d] = 60  # more picks than the dim has, with repeats
        index = RNG.integers(0, x.shape[d], index_shape)
        assert index.size >= TAKE_MIN_SIZE
        expected = x[_gather_key(index, d)]
        got = _gather_forward(x, dim=d, index=index)
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == x.dtype and got.flags.writeable


@pytest.mark.parametrize("shape", [(8, 1), (3, 4, 5), (6,), (1, 2, 1, 3)])
def test_gather_key_is_numpys_sparse_indices_with_the_index_at_dim(shape):
    for d in range(len(shape)):
        index = RNG.integers(0, 2, shape)
        expected = list(np.indices(shape, sparse=True))
        expected[d] = index
        key = _gather_key(index, d)
        assert len(key) == len(expected) and key[d] is index
        for got, want in zip(key, expected):
            np.testing.assert_array_equal(got, want, strict=True)
        if len(shape) > 1:  # the other dims' positions are kept, read-only
            other = key[d - 1]
            assert _gather_key(index, d)[d - 1] is other
            with pytest.raises(ValueError):
                other[...] = 0


def test_flat_source_strides_name_each_value_and_refuse_strided_layouts():
    x = RNG.standard_normal((4, 5))
    flat, strides = _flat_source(x)
    assert strides == [5, 1] and flat.base is not None
    flat, strides = _flat_source(np.broadcast_to(x[:, :1], (4, 5)))
    assert strides == [1, 0] and flat.tolist() == x[:, 0].tolist()
    flat, strides = _flat_source(np.broadcast_to(np.float64(7.0), (4, 5)))
    assert strides == [0, 0] and flat.tolist() == [7.0]
    assert _flat_source(x[::-1]) is None
    assert _flat_source(x.T) is None


def test_gather_positions_of_smaller_index_blocks():
    index = np.array([[2, 0], [1, 1], [0, 2]])
    # x of shape (4, 3), C strides (3, 1): rows 0..2, columns picked along dim 1
    assert gather_positions([3, 1], 1, index).tolist() == [[2, 0], [4, 4], [6, 8]]
    # along dim 0: index values are rows
    assert gather_positions([3, 1], 0, index).tolist() == [[6, 1], [3, 4], [0, 7]]


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
def test_large_gather_and_scatter_add_gradients_match_small_ones(dtype):
    """The flat path (large) and NumPy's indexing (small) agree, forward and backward."""
    x = lg.tensor(RNG.standard_normal((64, 40)), dtype=dtype, requires_grad=True)
    index = lg.tensor(RNG.integers(0, 40, (64, 50)))
    weights = lg.tensor(RNG.standard_normal((64, 50)), dtype=dtype)
    (x.gather(1, index) * weights).sum().backward()
    rows = [lg.tensor(x.detach()[i : i + 1].numpy().copy(), requires_grad=True) for i in range(64)]
    for i, row in enumerate(rows):  # one row each: below the flat path's size
        (row.gather(1, index[i : i + 1]) * weights[i : i + 1]).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.concatenate([r.grad.numpy() for r in rows]))
    src = lg.tensor(RNG.standard_normal((64, 50)), dtype=dtype, requires_grad=True)
    out = lg.zeros(64, 40, dtype=dtype).scatter_add(1, index, src)
    out.sum().backward()  # src's gradient: the broadcast ones gathered
    assert src.grad.tolist() == np.ones((64, 50)).tolist()


def test_gather_backward_refuses_indices_changed_in_place():
    x = lg.ones(64, 40, requires_grad=True)
    index = lg.tensor(RNG.integers(0, 40, (64, 50)))
    y = x.gather(1, index)
    index.fill_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scatter_add_by_positions_adds_in_numpys_order(dim, dtype):
    """Repeated places add up in np.add.at's order: the same bits."""
    start = RNG.standard_normal((6, 7, 30)).astype(dtype)
    index_shape = [6, 7, 30]
    index_shape[dim] = 40
    index = RNG.integers(0, start.shape[dim], index_shape)
    values = RNG.standard_normal(index_shape) * 10.0 ** RNG.integers(-3, 4, index_shape)
    values = values.astype(dtype)
    expected = start.copy()
    np.add.at(expected, _gather_key(index, dim), values)
    got = start.copy()
    scatter_add_into(got, dim, index, values)
    np.testing.assert_array_equal(got, expected)


def test_a_0d_index_gathers_from_a_1d_input_as_pytorch_does():
    # PyTorch takes a 0-d index as one of one entry: a 0-d result, its gradient one-hot.
    x = lg.tensor([1.0, 2.0, 3.0], dtype=lg.float64, requires_grad=True)
    out = x.gather(0, lg.tensor(1))
    assert out.shape == () and out.item() == 2.0
    assert type(out.grad_fn).__name__ == "GatherBackward0"
    (g,) = lg.autograd.grad(out, x, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [0.0, 1.0, 0.0])
    assert lg.autograd.gradgradcheck(lambda a: (a * a).gather(-1, lg.tensor(2)), (x,))
    added = lg.zeros(3, dtype=lg.float64).scatter_add(
        0, lg.tensor(1), lg.tensor(5.0, dtype=lg.float64)
    )
    np.testing.assert_array_equal(added.numpy(), [0.0, 5.0, 0.0])
