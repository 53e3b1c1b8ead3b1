"""``__setitem__`` as PyTorch's: the basic indices of a mixed index select a view that the
advanced ones are written into (CopySlices), a 0-d integer tensor is a basic index, the
value's leading dims of size 1 are dropped, an empty list selects nothing, and a value that
does not broadcast is a RuntimeError."""

import numpy as np
import pytest

import leafgrad as lg

W = np.arange(12.0).reshape(3, 4) + 1


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _written(m, key, value):
    y = m.arange(12.0).reshape(3, 4).requires_grad_()
    z = y * 1
    z[key(m)] = value(m)
    (z * m.tensor(W)).sum().backward()
    return type(z.grad_fn).__name__, z.detach().numpy().tolist(), y.grad.numpy().tolist()


KEYS = {
    "advanced only": lambda m: [0, 2],
    "full slice and list": lambda m: (slice(None), [1]),
    "int and list": lambda m: (0, m.tensor([1])),
    "slice and list": lambda m: (slice(1, None), [1]),
    "list and slice": lambda m: ([1], slice(1, None)),
    "None and list": lambda m: (None, [1]),
    "0-d tensor": lambda m: m.tensor(1),
    "0-d tensor and int": lambda m: (m.tensor(1), 1),
    "int and mask": lambda m: (1, m.tensor([True, False, True, False])),
    "list and 0-d tensor": lambda m: ([1], m.tensor(1)),
    "strided slice and list": lambda m: (slice(None, None, 2), [1, 0]),
    "int, ellipsis, list": lambda m: (1, Ellipsis, [2]),
}
EXPECTED_NODES = {
    "advanced only": "IndexPutBackward0",
    "full slice and list": "IndexPutBackward0",
}


class _NumPy:
    """The keys' ``m.tensor`` as NumPy arrays: NumPy's indexing says what gets written."""

    tensor = staticmethod(np.array)


@pytest.mark.parametrize("name", KEYS)
def test_mixed_indices_write_into_the_view_of_the_basic_ones(name):
    node, values, grad = _written(lg, KEYS[name], lambda m: 2.0)
    assert node == EXPECTED_NODES.get(name, "CopySlices")
    written = np.zeros((3, 4), dtype=bool)
    written[KEYS[name](_NumPy)] = True
    assert np.array_equal(values, np.where(written, 2.0, np.arange(12.0).reshape(3, 4)))
    assert np.array_equal(grad, np.where(written, 0.0, W))


@pytest.mark.parametrize("name", KEYS)
def test_mixed_indices_match_torch(torch, name):
    for value in (lambda m: 2.0, lambda m: m.tensor(3.0), lambda m: m.tensor([[5.0]])):
        assert _written(lg, KEYS[name], value) == _written(torch, KEYS[name], value)


def test_leading_ones_of_the_value_are_dropped():
    z = lg.zeros(3, 4)
    z[1] = lg.ones(1, 4)
    z[2, 1] = lg.tensor([[7.0]])
    z[[0, 0]] = lg.full((1, 1, 4), 3.0)
    assert z.tolist() == [[3.0] * 4, [1.0] * 4, [0.0, 7.0, 0.0, 0.0]]
    y = lg.zeros(3, 4, requires_grad=True)
    z = y * 1
    v = lg.ones(1, 4, requires_grad=True)
    z[0] = v
    assert [type(f).__name__ for f, _ in z.grad_fn.next_functions] == [
        "MulBackward0",
        "ViewBackward0",
    ]
    z.sum().backward()
    assert v.grad.shape == (1, 4) and v.grad.tolist() == [[1.0] * 4]


def test_an_empty_list_index_writes_nothing():
    z = lg.zeros(3, 4)
    z[[]] = 1.0
    z[[]] = lg.ones(4)
    assert not z.any()


@pytest.mark.parametrize(
    "key", [[0, 2], (slice(None), [1, 2]), ([0, 1], [1, 2])], ids=["list", "slice-list", "pair"]
)
def test_a_value_that_does_not_broadcast_is_a_runtime_error(key):
    z = lg.zeros(3, 4)
    with pytest.raises(RuntimeError):
        z[key] = lg.ones(5)
    with pytest.raises(RuntimeError):
        z[z >= 0] = lg.ones(2, 1)
    with pytest.raises(IndexError):
        z[[5]] = 1.0
