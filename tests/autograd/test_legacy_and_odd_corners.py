"""Corners of PyTorch's autograd that its own test files check: deprecated spellings,
attributes that may not be deleted, views of a base that starts requiring grad later,
writes through an expanded tensor, Functions returning one tensor twice, once_differentiable's
graph. Each body runs on leafgrad and on PyTorch."""

import warnings

import pytest

from ._helpers import assert_values


def _id_function(torch):
    class Id(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            (_x,) = ctx.saved_variables
            return grad

    return Id


def test_attributes_that_may_not_be_deleted(torch):
    x = torch.randn(3, requires_grad=True)
    x.grad = torch.ones(3)
    del x.grad  # allowed: no gradient any more
    assert x.grad is None
    for name in ("data", "requires_grad", "_grad_fn", "_backward_hooks"):
        with pytest.raises(RuntimeError):
            delattr(x, name)
    with pytest.raises(TypeError):
        x.data = None
    assert x.requires_grad and x._grad_fn is None


def test_volatile_is_gone_but_still_answers(torch):
    v = torch.autograd.torch.randn(2)
    with pytest.warns(UserWarning, match="volatile"):
        assert v.volatile is False
    with pytest.warns(UserWarning, match="volatile was removed"):
        w = torch.autograd.Variable(torch.ones(2), volatile=True)
    assert not w.requires_grad
    with pytest.raises(ValueError):
        torch.autograd.Variable(torch.ones(2), requires_grad=True, volatile=True)


def test_legacy_variable_and_function_spellings_raise(torch):
    class Legacy(torch.autograd.Function):
        def forward(self, x):
            return x

        def backward(self, grad):
            return grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # instantiating a Function
        with pytest.raises(RuntimeError, match="_grad_fn argument to legacy Variable"):
            torch.autograd.Variable(torch.zeros(1), _grad_fn=Legacy())
        with pytest.raises(RuntimeError, match="Legacy autograd function with non-static"):
            Legacy()(torch.zeros(1))


def test_saved_variables_works_but_is_deprecated(torch):
    x = torch.ones(2, requires_grad=True)
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated"):
        _id_function(torch).apply(x).sum().backward()
    assert_values(x.grad, [1.0, 1.0])


def test_a_view_made_before_its_base_required_grad(torch):
    a = torch.zeros(2, 3)
    b = a[:]
    a.requires_grad = True
    assert b.requires_grad and b.is_leaf and b.grad_fn is None
    with pytest.raises(RuntimeError):
        b.add_(5)
    with pytest.raises(RuntimeError):
        a.add_(5)
    a.sum().backward()
    assert_values(a.grad, [[1.0] * 3] * 2)


def test_writing_into_one_row_of_an_expanded_tensor(torch):
    x = torch.zeros(3, 1)
    e = x.expand(3, 4)
    e[:, 0] = torch.tensor([1.0, 2.0, 3.0])  # each row of e is one element of x
    assert_values(x.flatten(), [1.0, 2.0, 3.0])
    assert_values(e[1], [2.0] * 4)
    g = torch.ones(1).expand(4)
    g[0] = 0
    assert_values(g, [0.0] * 4)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e[0].mul_(2)
    e[0].fill_(-1.0)  # one value everywhere: PyTorch allows overlap here
    assert_values(x.flatten(), [-1.0, 2.0, 3.0])


def test_new_with_an_empty_size_is_zero_dimensional(torch):
    x = torch.ones(5)
    assert x.new(torch.Size([])).shape == torch.Size([])
    assert x.new().shape == torch.Size([0])
    assert torch.Tensor(torch.Size([2, 3])).shape == torch.Size([2, 3])
    y = x * 2
    value = x.new(x[3].size()).fill_(7)
    value.requires_grad = True
    y[3] = value
    y.backward(torch.ones(5))
    assert_values(value.grad, 1.0)


def test_a_function_returning_one_tensor_twice(torch):
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            return out, out

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = torch.ones(2, requires_grad=True)
    a, b = Twice.apply(x)
    assert a is b and a.output_nr == 1  # one tensor, numbered by its last place
    a.sum().backward()
    assert_values(x.grad, [3.0, 3.0])  # the gradient reached output 1 only


def _desc(fn):
    if fn is None:
        return "None"
    inner = ", ".join(_desc(n) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({inner})"


def test_once_differentiable_adds_one_error_node_over_all_results(torch):
    class Scaled(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b):
            ctx.k = k
            return a * k + b

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, grad):
            assert not torch.is_grad_enabled()
            return grad * ctx.k, None, grad

    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    Scaled.apply(a, 3.0, b).sum().backward(torch.ones((), requires_grad=True), create_graph=True)
    assert _desc(a.grad.grad_fn) == (
        "CopyBackwards(None, Error(AccumulateGrad(), None, AccumulateGrad()))"
    )
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        a.grad.sum().backward()
