"""Calling a grad_fn runs its rule: ``y.grad_fn(*grad_outputs)`` gives the gradients for its
``next_functions``, as PyTorch's nodes do; each body runs on leafgrad and on PyTorch."""

import pytest

from ._helpers import assert_values


def test_a_node_with_two_edges_gives_a_tuple(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 5.0], requires_grad=True)
    gx, gw = (x * w).grad_fn(torch.tensor([1.0, 10.0]))
    assert_values(gx, [3.0, 50.0])
    assert_values(gw, [1.0, 20.0])
    assert gx.requires_grad  # recorded: grad mode is on while the rule runs


def test_a_node_with_one_edge_gives_the_gradient_itself(torch):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    g = x.exp().grad_fn(torch.ones(2))
    assert_values(g, [1.0, 2.718281828459045])
    assert_values(x.sum().grad_fn(torch.tensor(2.0)), [2.0, 2.0])
    assert_values(x[:1].expand(3).grad_fn(torch.ones(3)), [3.0])


def test_under_no_grad_the_results_record_nothing(torch):
    x = torch.ones(2, requires_grad=True)
    node = (x * x).grad_fn
    with torch.no_grad():
        gx, _ = node(torch.ones(2))
    assert not gx.requires_grad


def test_no_gradient_gives_none_for_each_edge(torch):
    x = torch.ones(2, requires_grad=True)
    assert (x * x).grad_fn(None) == (None, None)


def test_a_multi_output_node_takes_one_gradient_per_output(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    first = x.unbind()[0]
    assert_values(first.grad_fn(torch.tensor(1.0), torch.tensor(2.0)), [1.0, 2.0])
    with pytest.raises(TypeError, match="expected 2 arguments, got 1 instead"):
        first.grad_fn(torch.tensor(1.0))


def test_the_wrong_number_of_gradients_raises(torch):
    x = torch.ones(1, requires_grad=True)
    y = x**2
    with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
        y.grad_fn(x.detach(), x.detach())
    with pytest.raises(TypeError, match="expected 1 arguments, got 0 instead"):
        y.grad_fn()
    with pytest.raises(TypeError, match="argument 0 is not a Variable"):
        y.grad_fn(3)
    assert_values(y.grad_fn(x.detach()), [2.0])


def test_a_freed_node_raises_when_called(torch):
    x = torch.ones(2, requires_grad=True)
    y = x * x
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        y.grad_fn(torch.ones(2))


def test_calling_an_accumulator_adds_into_grad(torch):
    x = torch.ones(2, requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    assert acc(torch.tensor([1.0, 2.0])) == ()
    assert acc(torch.tensor([1.0, 2.0])) == ()
    assert_values(x.grad, [2.0, 4.0])
    assert seen == [[1.0, 2.0], [2.0, 4.0]]
    with pytest.raises(TypeError, match="expected 1 arguments, got 0 instead"):
        acc()


def test_torch_level_detach(torch):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    d = torch.detach(y)
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)  # shares the data
    assert_values(y.detach(), [3.0, 3.0])
    z = x * 3
    assert torch.detach_(z) is z and z.grad_fn is None
