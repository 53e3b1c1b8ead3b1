"""What a backward without retain_graph leaves of each node: the saved values are dropped
(their arrays freed), shapes stay for what displays them, and anything that would read the
values again raises the error that points to retain_graph=True, as in PyTorch.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import gc
import weakref

import numpy as np
import pytest


def _second_backward(y):
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


def test_a_second_backward_through_saved_inputs_and_results_raises(torch):
    x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    w = torch.tensor([2.0, 3.0, 4.0], requires_grad=True)
    _second_backward(x * w)  # both inputs saved
    _second_backward(x.tanh())  # the result saved
    _second_backward((x - 1.0).exp() * 0.5)  # a result and a number saved


def test_nodes_that_saved_nothing_run_again_and_keep_their_number_operands(torch):
    x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    y = (x + 2.0 - 3.0).sum()
    y.backward()
    y.backward()  # add and sub saved nothing: a second backward runs
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_saved_attributes_after_backward_raise_pointing_to_retain_graph(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    p, t = x * w, x.tanh()
    (p + t).sum().backward()
    for read in (lambda: p.grad_fn._saved_self, lambda: t.grad_fn._saved_result):
        with pytest.raises(RuntimeError, match="retain_graph=True"):
            read()


def test_retain_graph_keeps_the_saves_for_another_backward(torch):
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    y = (x * x).tanh().sum()
    y.backward(retain_graph=True)
    first = x.grad.clone()
    y.backward()
    assert np.allclose(x.grad.tolist(), (2 * first).tolist())
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_release_drops_the_saved_arrays(torch):
    x = torch.tensor(np.ones((4, 3)), requires_grad=True)
    w = torch.tensor(np.full((3, 2), 0.5), requires_grad=True)
    p = x @ w
    y = (p * p).sum()  # the product saves p
    array = weakref.ref(p) if torch.__name__ == "torch" else weakref.ref(p._data)
    del p
    gc.collect()
    assert array() is not None  # held by the product's node
    y.backward()
    gc.collect()
    assert array() is None  # released with the graph
    assert np.allclose(w.grad.tolist(), np.full((3, 2), 12.0).tolist())


def test_index_arrays_among_the_parameters_are_released_and_numbers_kept(torch):
    x = torch.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    index = np.array([[0, 2], [1, 0], [2, 2], [0, 1]])
    picked = x.gather(1, torch.tensor(index))
    y = (picked * picked).sum() + x.sum(dim=(0,))[0] + x[:, 1:2].sum()
    y.backward()
    expected = np.zeros((4, 3))
    values = np.arange(12.0).reshape(4, 3)
    np.add.at(expected, (np.arange(4)[:, None], index), 2 * np.take_along_axis(values, index, 1))
    expected[:, :2] += 1.0  # the column sums
    assert x.grad.tolist() == expected.tolist()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()  # gather saved its index
    if torch.__name__ == "torch":
        return
    nodes, stack = [], [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in nodes:
            nodes.append(node)
            stack.extend(n for n, _ in node.next_functions)
    params = {n.name(): n._saved.params for n in nodes if getattr(n, "_saved", None)}
    index = params["GatherBackward0"]["index"]  # an array, or a tensor of one
    freed = index._data if type(index).__name__ == "Tensor" else index
    assert type(freed).__name__ == "_FreedArray"
    assert params["SumBackward1"]["dim"] == (0,)
    assert params["SliceBackward0"] == {"dim": 1, "start": 1, "stop": 2, "step": 1}
