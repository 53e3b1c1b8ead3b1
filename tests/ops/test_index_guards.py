"""Index tensors changed in place after an op used them: PyTorch saves them and its backward
refuses to run (RuntimeError, "modified by an inplace operation"); leafgrad's ops keep a copy
of their values and refuse likewise, where they once read the changed indices and returned
a wrong gradient. Where PyTorch's backward does not watch them (``take_along_dim`` along a
dim), the gradient is the one of the indices as they were."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

# (the op on x and the index tensor i, the index's values, its in-place change)
CASES = {
    "getitem-long": (lambda m, x, i: x[i], [0, 2], lambda i: i.__setitem__(0, 1)),
    "getitem-mask": (lambda m, x, i: x[i], [True, False, True], lambda i: i.__setitem__(1, True)),
    "getitem-two-tensors": (
        lambda m, x, i: x.reshape(3, 1)[i, i * 0],
        [0, 2],
        lambda i: i.add_(0),
    ),
    "getitem-after-slice": (lambda m, x, i: x.reshape(1, 3)[:, i], [0, 2], lambda i: i.mul_(1)),
    "setitem": (lambda m, x, i: _setitem(x, i), [0, 2], lambda i: i.__setitem__(0, 1)),
    "setitem-mask": (
        lambda m, x, i: _setitem(x, i),
        [True, True, False],
        lambda i: i.__setitem__(0, False),
    ),
    "index_select": (lambda m, x, i: x.index_select(0, i), [0, 2], lambda i: i.fill_(1)),
    "gather": (lambda m, x, i: x.gather(0, i), [0, 2], lambda i: i.__setitem__(0, 1)),
    "take": (lambda m, x, i: x.take(i), [0, 2], lambda i: i.__setitem__(0, 1)),
    "take_along_dim-flat": (
        lambda m, x, i: x.take_along_dim(i),
        [0, 2],
        lambda i: i.__setitem__(0, 1),
    ),
    "scatter": (lambda m, x, i: (x * 1).scatter(0, i, 2.0), [0, 2], lambda i: i.zero_()),
    "scatter_add": (
        lambda m, x, i: m.zeros(3).scatter_add(0, i, x[:2]),
        [0, 2],
        lambda i: i.zero_(),
    ),
    "scatter_reduce": (
        lambda m, x, i: m.zeros(3).scatter_reduce(0, i, x[:2], "sum"),
        [0, 2],
        lambda i: i.zero_(),
    ),
    "index_add_": (lambda m, x, i: (x * 1).index_add_(0, i, x[:2]), [0, 2], lambda i: i.zero_()),
    "index_copy": (
        lambda m, x, i: (x * 1).index_copy(0, i, x[:2] * 3),
        [0, 2],
        lambda i: i.zero_(),
    ),
    "index_fill": (lambda m, x, i: (x * 1).index_fill(0, i, 5.0), [0, 2], lambda i: i.zero_()),
    "index_put": (
        lambda m, x, i: (x * 1).index_put((i,), x[:2] * 3, accumulate=True),
        [0, 2],
        lambda i: i.zero_(),
    ),
    "put": (lambda m, x, i: (x * 1).put(i, x[:2]), [0, 2], lambda i: i.zero_()),
    "masked_select": (
        lambda m, x, i: x.masked_select(i),
        [True, False, True],
        lambda i: i.__setitem__(1, True),
    ),
    "masked_scatter": (
        lambda m, x, i: (x * 1).masked_scatter(i, x * 2),
        [True, False, True],
        lambda i: i.__setitem__(1, True),
    ),
}


def _setitem(x, i):
    y = x * 1
    y[i] = x[:2] * 2  # both indices select two entries
    return y


def _run(m, case, change):
    fn, values, modify = CASES[case]
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    i = m.tensor(values)
    y = fn(m, x, i)
    if change:
        modify(i)
    y.sum().backward()
    return x.grad


@pytest.mark.parametrize("case", list(CASES))
def test_a_changed_index_tensor_makes_the_backward_raise_as_in_pytorch(case):
    for m in (torch, lg):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _run(m, case, change=True)


@pytest.mark.parametrize("case", list(CASES))
def test_unchanged_index_tensors_give_pytorchs_gradients(case):
    np.testing.assert_allclose(_run(lg, case, False).numpy(), _run(torch, case, False).numpy())


def test_an_index_changed_after_the_backward_is_no_error():
    for m in (torch, lg):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        i = m.tensor([0, 2])
        x[i].sum().backward()
        i[0] = 1
        assert x.grad.tolist() == [1.0, 0.0, 1.0]


def test_a_0d_index_tensor_is_an_int_and_not_watched():
    for m in (torch, lg):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        i = m.tensor(1)
        y = x[i]
        i.fill_(2)
        y.backward()
        assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_take_along_a_dim_uses_the_indices_as_they_were():
    for m in (torch, lg):
        x = m.ones(2, 3, requires_grad=True)
        i = m.tensor([[0, 2], [1, 1]])
        y = x.take_along_dim(i, 1)
        i[0, 0] = 1
        y.sum().backward()
        assert x.grad.tolist() == [[1.0, 0.0, 1.0], [0.0, 2.0, 0.0]]
