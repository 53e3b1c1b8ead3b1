"""``torch.autograd.graph``: nodes, gradient edges, hooks over several tensors, version
counters.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest

from ._helpers import assert_values


def _as_lists(grads):
    return [None if g is None else g.tolist() for g in grads]


# ----- Node -----


def test_every_grad_fn_and_accumulator_is_a_graph_node(torch):
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = Twice.apply(y)
    accumulator = y.grad_fn.next_functions[0][0]
    for node in (y.grad_fn, z.grad_fn, accumulator):
        assert isinstance(node, torch.autograd.graph.Node)
    assert (y.grad_fn.name(), accumulator.name()) == (
        "ExpBackward0",
        "torch::autograd::AccumulateGrad",
    )
    assert accumulator.next_functions == ()
    assert z.grad_fn.next_functions[0][0] is y.grad_fn
    assert y.grad_fn._sequence_nr() < z.grad_fn._sequence_nr()
    # An accumulator carries the largest number, after every op's (it runs first once ready).
    assert accumulator._sequence_nr() == 2**64 - 1
    y.grad_fn.metadata["tag"] = "exp"
    assert y.grad_fn.metadata == {"tag": "exp"} and accumulator.metadata == {}


def test_each_kind_of_node_has_a_class_of_its_own(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.exp()
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert type(z.grad_fn).__name__ == "ExpBackward0"
    assert type(y.grad_fn) is type((x * 3).grad_fn) and type(y.grad_fn) is not type(z.grad_fn)
    y[0].mul_(2)
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert type(y.grad_fn).__name__ == "CopySlices" and "grad_fn=<CopySlices>" in repr(y)


# ----- gradient edges -----


def test_gradient_edge_of_a_leaf_is_its_accumulator(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    edge = torch.autograd.graph.get_gradient_edge(x)
    assert type(edge).__name__ == "GradientEdge"
    assert edge.node is y.grad_fn.next_functions[0][0] and edge.output_nr == 0
    assert tuple(edge)[:2] == (edge.node, 0)


def test_gradient_edge_of_a_non_leaf_is_its_grad_fn_and_output_number(torch):
    _, second = torch.tensor([1.0, 2.0], requires_grad=True).unbind()
    edge = torch.autograd.graph.get_gradient_edge(second)
    assert edge.node is second.grad_fn and edge.output_nr == 1


def test_gradient_edge_of_a_tensor_without_grad_raises(torch):
    with pytest.raises(RuntimeError):
        torch.autograd.graph.get_gradient_edge(torch.tensor([1.0]))


def test_grad_with_respect_to_an_edge_equals_grad_with_respect_to_the_tensor(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.exp()
    edge = torch.autograd.graph.get_gradient_edge(y)
    (by_edge,) = torch.autograd.grad(z.sum(), edge, retain_graph=True)
    (by_tensor,) = torch.autograd.grad(z.sum(), y)
    assert by_edge.tolist() == by_tensor.tolist()


def test_grad_of_an_edge_needs_its_gradient_given(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = (x * 2).exp()
    edge = torch.autograd.graph.get_gradient_edge(z)
    (g,) = torch.autograd.grad(edge, x, torch.ones(2), retain_graph=True)
    assert_values(g, [2 * 2.718281828459045**2, 2 * 2.718281828459045**4])
    with pytest.raises(RuntimeError):
        torch.autograd.grad(edge, x)


def test_backward_accumulates_only_into_the_given_edges(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    (x * w).sum().backward(inputs=[torch.autograd.graph.get_gradient_edge(x)])
    assert_values(x.grad, [3.0, 4.0])
    assert w.grad is None


def test_materialize_grads_refuses_an_edge_input(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    edge = torch.autograd.graph.get_gradient_edge(w)
    with pytest.raises(RuntimeError):
        torch.autograd.grad((x * 2).sum(), [x, edge], allow_unused=True, materialize_grads=True)


# ----- increment_version -----


def test_increment_version_invalidates_saved_values(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = y * y
    torch.autograd.graph.increment_version(y)
    with pytest.raises(RuntimeError):
        z.sum().backward()


def test_increment_version_takes_several_tensors(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    before = (x._version, y._version)
    torch.autograd.graph.increment_version([y, x])
    assert (x._version - before[0], y._version - before[1]) == (1, 1)


# ----- register_multi_grad_hook -----


def test_multi_grad_hook_all_sees_the_gradients_each_backward_computes(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    d = a * b
    seen = []
    handle = torch.autograd.graph.register_multi_grad_hook(
        (a, b, c, d), lambda grads: seen.append(_as_lists(grads))
    )
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    torch.autograd.grad((c * 1).sum(), c, retain_graph=True)
    (c.sum() + d.sum()).backward(retain_graph=True)
    assert seen == [
        [[3.0, 4.0], [1.0, 2.0], [1.0, 1.0], None],  # d is not in this graph
        [[3.0, 4.0], None, [1.0, 1.0], None],  # b's gradient is not needed
        [None, None, [1.0, 1.0], None],  # grad() stops at c
        [[6.0, 8.0], [2.0, 4.0], [1.0, 1.0], [1.0, 1.0]],
    ]
    handle.remove()
    c.sum().backward()
    assert len(seen) == 4


def test_multi_grad_hook_all_runs_with_the_last_tensor_hook(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    events = []
    torch.autograd.graph.register_multi_grad_hook(
        (a, b), lambda grads: events.append(("both", _as_lists(grads)))
    )
    a.register_hook(lambda g: events.append(("a", g.tolist())))
    b.register_hook(lambda g: events.append(("b", g.tolist())))
    (a * 2 + b * 3).sum().backward()
    assert events == [("b", [3.0, 3.0]), ("both", [[2.0, 2.0], [3.0, 3.0]]), ("a", [2.0, 2.0])]


def test_multi_grad_hook_any_sees_the_first_gradient_of_each_backward(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    torch.autograd.graph.register_multi_grad_hook(
        (a, b), lambda g: seen.append(g.tolist()), mode="any"
    )
    (a * 2 + b * 3).sum().backward()
    (a * 5).sum().backward()
    assert seen == [[3.0, 3.0], [5.0, 5.0]]


def test_multi_grad_hook_refuses_an_unknown_mode_and_tensors_without_grad(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError):
        torch.autograd.graph.register_multi_grad_hook((a,), lambda g: None, mode="some")
    with pytest.raises(AssertionError):
        torch.autograd.graph.register_multi_grad_hook((a, torch.tensor([1.0])), lambda g: None)
