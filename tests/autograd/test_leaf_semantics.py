"""Leaves, requires_grad, .grad, grad_fn / next_functions, retain_grad, detach and .data.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import re
import warnings

import numpy as np
import pytest

from ._helpers import assert_same_as_pytorch, assert_values, no_warnings

# ----- requires_grad -----


@pytest.mark.parametrize(
    "make",
    [
        lambda torch: torch.tensor([1, 2], requires_grad=True),
        lambda torch: torch.tensor([True], requires_grad=True),
        lambda torch: torch.tensor([1, 2]).requires_grad_(),
        lambda torch: torch.ones(2, dtype=torch.long, requires_grad=True),
        lambda torch: torch.arange(3, requires_grad=True),
        lambda torch: setattr(torch.tensor([1, 2]), "requires_grad", True),
    ],
    ids=["tensor-int", "tensor-bool", "requires_grad_", "ones-long", "arange", "setter"],
)
def test_integer_tensor_requiring_grad_raises(torch, make):
    with pytest.raises(RuntimeError):
        make(torch)


def test_integer_tensor_may_say_it_does_not_require_grad(torch):
    t = torch.tensor([1, 2])
    t.requires_grad = False
    assert t.requires_grad_(False).requires_grad is False


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_tensors_can_require_grad(torch, dtype):
    dt = getattr(torch, dtype)
    for t in (
        torch.tensor([1.0], dtype=dt, requires_grad=True),
        torch.zeros(2, dtype=dt, requires_grad=True),
        torch.ones(2, 3, dtype=dt).requires_grad_(),
    ):
        assert t.requires_grad is True and t.is_leaf is True and t.grad_fn is None
        assert t.grad is None and t.dtype == dt


def test_requires_grad_defaults_to_false(torch):
    t = torch.tensor([1.0])
    assert t.requires_grad is False and t.is_leaf is True and t.grad_fn is None


# ----- is_leaf propagation -----


def test_results_of_tensors_not_requiring_grad_are_leaves(torch):
    c = torch.tensor([5.0, 6.0])
    for d in (c * c, torch.sin(c), c.sum(), c + 1, c.reshape(2, 1), (c * 2).exp()):
        assert d.requires_grad is False and d.is_leaf is True and d.grad_fn is None


def test_result_requires_grad_when_any_input_does(torch):
    a = torch.tensor([3.0], requires_grad=True)
    c = torch.tensor([5.0])
    for d in (a * c, c * a, a + c, torch.sin(c * a), (a * c).sum()):
        assert d.requires_grad is True and d.is_leaf is False and d.grad_fn is not None


def test_results_computed_under_no_grad_are_leaves(torch):
    a = torch.tensor([3.0], requires_grad=True)
    with torch.no_grad():
        d = a * 2
        e = torch.sin(a).sum()
    for t in (d, e):
        assert t.requires_grad is False and t.is_leaf is True and t.grad_fn is None
    assert (a * 2).is_leaf is False  # recording resumes after the block


def test_non_float_results_leave_the_graph(torch):
    a = torch.tensor([-1.0, 2.0], requires_grad=True)
    for d in (a > 0, a == 2, a.long()):
        assert d.requires_grad is False and d.is_leaf is True and d.grad_fn is None


def test_leaf_that_stops_requiring_grad_records_nothing(torch):
    a = torch.tensor([3.0], requires_grad=True)
    a.requires_grad_(False)
    b = a * a
    assert b.requires_grad is False and b.is_leaf is True
    a.requires_grad = True
    assert (a * a).requires_grad is True


# ----- .grad of non-leaves -----


def test_reading_grad_of_non_leaf_warns(torch):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    with pytest.warns(UserWarning, match="not a leaf"):
        assert b.grad is None
    b.backward()
    with pytest.warns(UserWarning, match="retain_grad"):
        assert b.grad is None


def test_reading_grad_of_leaf_or_retained_or_constant_does_not_warn(torch):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    c = torch.tensor([1.0]) * 2
    with no_warnings():
        assert a.grad is None and b.grad is None and c.grad is None
        b.backward()
        assert a.grad.item() == 6 and b.grad.item() == 1


def test_grad_of_detached_non_leaf_does_not_warn(torch):
    a = torch.tensor([3.0], requires_grad=True)
    with no_warnings():
        assert (a * 2).detach().grad is None
        assert (a * 2).data.grad is None


# ----- grad_fn and next_functions -----


def test_grad_fn_of_leaves_is_none(torch):
    assert torch.tensor([1.0], requires_grad=True).grad_fn is None
    assert torch.tensor([1.0]).grad_fn is None


def test_next_functions_of_product_with_a_number(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    fn = (a * 2).grad_fn
    assert fn.name() == "MulBackward0"
    (acc, nr), (none, nr2) = fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and nr == 0
    assert acc.variable is a
    assert acc.next_functions == ()
    assert none is None and nr2 == 0


def test_next_functions_follow_the_graph(torch):
    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([2.0], requires_grad=True)
    c = torch.tensor([3.0])
    d = torch.sin(a * b * c)
    assert d.grad_fn.name() == "SinBackward0"
    ((mul2, _),) = d.grad_fn.next_functions
    assert mul2.name() == "MulBackward0"
    (mul1, _), (none, _) = mul2.next_functions
    assert none is None  # c does not require grad
    assert [n.variable for n, _ in mul1.next_functions] == [a, b]


def test_accumulate_grad_node_is_shared_between_uses(torch):
    a = torch.tensor([1.0], requires_grad=True)
    x, y = a * 2, a * 3
    assert x.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[0][0]
    sq = a * a
    (n1, _), (n2, _) = sq.grad_fn.next_functions
    assert n1 is n2


def test_grad_fn_repr_names_the_node(torch):
    a = torch.tensor([1.0], requires_grad=True)
    assert repr((a * 2).grad_fn).startswith("<MulBackward0 object at 0x")
    assert "grad_fn=<MulBackward0>" in repr(a * 2)


def test_node_classes_print_as_pytorchs(torch):
    """PyTorch's nodes are C++ classes (module ``builtins``): ``print(next_functions)`` shows
    ``<AccumulateGrad object at 0x...>``, ``type(grad_fn)`` ``<class 'SumBackward0'>``; a
    custom Function's node is a Python class, printed with its module."""

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    (acc, _), _ = (a * 2).grad_fn.next_functions
    assert re.fullmatch(r"<AccumulateGrad object at 0x[0-9a-f]+>", repr(acc))
    assert re.fullmatch(
        r"\(\(<AccumulateGrad object at 0x[0-9a-f]+>, 0\),\)", str(a.sum().grad_fn.next_functions)
    )
    assert repr(type(a.sum().grad_fn)) == "<class 'SumBackward0'>"
    assert repr(type(acc)) == "<class 'AccumulateGrad'>"
    b = a.clone()
    b[0] = 5.0
    assert re.fullmatch(r"<CopySlices object at 0x[0-9a-f]+>", repr(b.grad_fn))
    module = torch.__name__ + ".autograd.function"
    assert re.fullmatch(
        rf"<{module}\.DoubleBackward object at 0x[0-9a-f]+>", repr(Double.apply(a).grad_fn)
    )
    assert type(Double.apply(a).grad_fn).__module__ == module


_EXPRESSIONS = {
    "x+y": lambda x, y: x + y,
    "x+1": lambda x, y: x + 1,
    "x-y": lambda x, y: x - y,
    "x*y": lambda x, y: x * y,
    "x*2": lambda x, y: x * 2,
    "x/y": lambda x, y: x / y,
    "x/2": lambda x, y: x / 2,
    "x**2": lambda x, y: x**2,
    "x**y": lambda x, y: x**y,
    "-x": lambda x, y: -x,
    "abs": lambda x, y: x.abs(),
    "sqrt": lambda x, y: x.sqrt(),
    "exp": lambda x, y: x.exp(),
    "log": lambda x, y: x.log(),
    "sin": lambda x, y: x.sin(),
    "cos": lambda x, y: x.cos(),
    "tanh": lambda x, y: x.tanh(),
    "sigmoid": lambda x, y: x.sigmoid(),
    "relu": lambda x, y: x.relu(),
    "sum": lambda x, y: x.sum(),
    "sum-dim": lambda x, y: x.sum(0),
    "mean": lambda x, y: x.mean(),
    "reshape": lambda x, y: x.reshape(2, 1),
    "view": lambda x, y: x.view(2, 1),
    "expand": lambda x, y: x.expand(3, 2),
    "to": lambda x, y: x.double(),
    "clone": lambda x, y: x.clone(),
    "broadcast": lambda x, y: x * y.reshape(2, 1).expand(2, 2),
}
# Differences that belong to the op families (ops/), not to the engine.
_OP_DIFFERENCES: dict = {}
_EXPRESSIONS.update(
    {
        "1+x": lambda x, y: 1 + x,
        "1-x": lambda x, y: 1 - x,
        "2/x": lambda x, y: 2 / x,
        "2**x": lambda x, y: 2**x,
    }
)


def _graph_facts(fn):
    def run(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.tensor([3.0, 4.0], requires_grad=True)
        out = fn(x, y)
        node = out.grad_fn
        edges = [(None if n is None else n.name(), nr) for n, nr in node.next_functions]
        return node.name(), edges, out.requires_grad, out.is_leaf

    return run


@pytest.mark.parametrize(
    "expr",
    [
        pytest.param(k, marks=pytest.mark.xfail(reason=_OP_DIFFERENCES[k], strict=False))
        if k in _OP_DIFFERENCES
        else k
        for k in _EXPRESSIONS
    ],
)
def test_grad_fn_and_next_functions_match_pytorch(pytorch, expr):
    assert_same_as_pytorch(_graph_facts(_EXPRESSIONS[expr]), pytorch)


# ----- retain_grad / retains_grad -----


def test_retain_grad_on_a_leaf_is_a_no_op(torch):
    a = torch.tensor([3.0], requires_grad=True)
    a.retain_grad()
    assert a.retains_grad is False
    (a * a).backward()
    assert a.grad.item() == 6


def test_retain_grad_on_a_tensor_not_requiring_grad_raises(torch):
    with pytest.raises(RuntimeError):
        torch.tensor([3.0]).retain_grad()
    a = torch.tensor([3.0], requires_grad=True)
    with torch.no_grad():
        b = a * 2
    with pytest.raises(RuntimeError):
        b.retain_grad()


def test_retain_grad_marks_the_non_leaf(torch):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    assert b.retains_grad is False
    b.retain_grad()
    b.retain_grad()  # twice is the same as once
    assert b.retains_grad is True
    (b * 4).backward()
    assert b.grad.item() == 4 and a.grad.item() == 24


def test_retained_grad_accumulates_and_does_not_require_grad(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    b.retain_grad()
    (b * b).sum().backward(retain_graph=True)
    first = b.grad
    assert_values(first, [6.0, 12.0])
    (b * b).sum().backward()
    assert_values(b.grad, [12.0, 24.0])
    assert_values(first, [6.0, 12.0])  # a retained grad is replaced, never updated in place
    assert b.grad.requires_grad is False and b.grad.is_leaf is True


def test_retain_grad_keeps_the_grad_of_each_view(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.reshape(2, 1)
    c = b * 2
    b.retain_grad()
    c.retain_grad()
    c.sum().backward()
    assert_values(b.grad, [[2.0], [2.0]])
    assert_values(c.grad, [[1.0], [1.0]])


# ----- requires_grad_ -----


def test_requires_grad_underscore_returns_self_and_defaults_to_true(torch):
    a = torch.tensor([1.0])
    assert a.requires_grad_() is a and a.requires_grad is True
    assert a.requires_grad_(False) is a and a.requires_grad is False


def test_requires_grad_of_a_non_leaf_cannot_be_switched_off(torch):
    a = torch.tensor([1.0], requires_grad=True)
    b = a * 2
    with pytest.raises(RuntimeError):
        b.requires_grad_(False)
    with pytest.raises(RuntimeError):
        b.requires_grad = False
    with pytest.raises(RuntimeError):
        b.requires_grad = True  # the setter refuses any change on a non-leaf
    assert b.requires_grad_(True) is b  # but asking for what it already is, is fine
    assert b.requires_grad is True and b.is_leaf is False


# ----- detach, detach_, .data -----


def test_detach_gives_a_leaf_sharing_memory(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    for src in (a, b):
        d = src.detach()
        assert d.requires_grad is False and d.is_leaf is True and d.grad_fn is None
        assert np.shares_memory(d.numpy(), src.detach().numpy())
    assert a.requires_grad is True and b.grad_fn is not None  # the originals are untouched


def test_detach_stops_the_gradient(torch):
    x = torch.tensor([3.0], requires_grad=True)
    y = x * x.detach()
    y.backward()
    assert x.grad.item() == 3  # d/dx of x * const, not 2x


def test_detach_underscore_turns_a_non_leaf_into_a_leaf(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    assert b.detach_() is b
    assert b.requires_grad is False and b.is_leaf is True and b.grad_fn is None
    assert_values(b, [2.0, 4.0])
    with no_warnings():
        assert b.grad is None


def test_detach_underscore_on_a_leaf_stops_it_requiring_grad(torch):
    a = torch.tensor([1.0], requires_grad=True)
    a.detach_()
    assert a.requires_grad is False and a.is_leaf is True


def test_data_is_a_leaf_view_outside_the_graph(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    d = a.data
    assert d.requires_grad is False and d.is_leaf is True and d.grad_fn is None
    assert np.shares_memory(d.numpy(), a.detach().numpy())
    b = a * 2
    assert b.data.requires_grad is False and b.data.is_leaf is True


def test_setting_data_swaps_the_values_the_graph_uses(torch):
    a = torch.tensor([3.0], requires_grad=True)
    b = a * a
    a.data = torch.tensor([4.0])
    assert a.requires_grad is True and a.is_leaf is True
    b.backward()
    assert b.item() == 9
    assert a.grad.item() == 8  # the saved input is a itself, now holding 4


def test_setting_integer_data_on_a_tensor_requiring_grad_raises(torch):
    a = torch.tensor([3.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        a.data = torch.tensor([1, 2])
    assert a.item() == 3
    c = torch.tensor([3.0])
    c.data = torch.tensor([1, 2])  # fine when no gradient is wanted
    assert c.tolist() == [1, 2]


def test_in_place_change_of_a_detached_view_shows_in_the_original(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    a.detach().add_(1)
    assert_values(a, [2.0, 3.0])


# ----- assigning .grad -----


def test_grad_can_be_assigned_and_deleted(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    a.grad = torch.tensor([5.0, 5.0])
    (a * 2).sum().backward()
    assert_values(a.grad, [7.0, 7.0])
    a.grad = None
    assert a.grad is None
    (a * 2).sum().backward()
    del a.grad
    assert a.grad is None


def test_assigning_a_grad_of_the_wrong_shape_or_dtype_raises(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        a.grad = torch.ones(3)
    with pytest.raises(RuntimeError):
        a.grad = torch.ones(2, dtype=torch.float64)
    with pytest.raises(TypeError):
        a.grad = [1.0, 2.0]


def test_grad_of_a_leaf_is_a_leaf_without_grad(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    (a * a).sum().backward()
    g = a.grad
    assert g.requires_grad is False and g.is_leaf is True and g.grad_fn is None
    assert g.dtype == a.dtype and tuple(g.shape) == (2,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g.grad is None
