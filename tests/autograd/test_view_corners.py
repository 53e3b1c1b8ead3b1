"""Views of a base that starts requiring grad after they were made, and writes into an
expanded tensor, as PyTorch has them.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import pytest

from ._helpers import assert_values

_OVERLAP = "more than one element of the written-to tensor"


def test_an_op_on_a_view_made_before_its_base_required_grad_records(torch):
    x = torch.ones(3)
    v = x[:2]
    x.requires_grad_()
    assert v.requires_grad and v.grad_fn is None and v.is_leaf
    y = v * 2
    assert y.requires_grad and type(y.grad_fn).__name__ == "MulBackward0"
    assert y.grad_fn.next_functions[0] == (None, 0)  # no gradient reaches the base
    w = v[:1]
    assert type(w.grad_fn).__name__ == "SliceBackward0"
    y.sum().backward()
    assert x.grad is None and v.grad is None
    with pytest.raises(RuntimeError):
        v.mul_(2)  # a view of a leaf that requires grad
    x.requires_grad_(False)
    assert not v.requires_grad


@pytest.mark.parametrize("change", ["view", "base"])
def test_a_view_whose_memory_changed_before_its_base_required_grad_is_regenerated(torch, change):
    x = torch.ones(3)
    v = x[:2]
    if change == "view":
        v.mul_(2)
    else:
        x.add_(1)
    x.requires_grad_()
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is torch.autograd.graph.get_gradient_edge(x).node
    (v * 3).sum().backward()
    assert_values(x.grad, [3.0, 3.0, 0.0])


def test_only_the_views_of_the_tensor_that_starts_requiring_grad_follow_it(torch):
    x = torch.ones(2, 2)
    v = x.squeeze()
    d = x.detach()  # shares x's memory and version counter, but is not its view's base
    w = d[0]
    d.requires_grad_()
    assert not v.requires_grad and not (x / v).requires_grad
    assert w.requires_grad


def test_a_change_before_the_view_was_made_does_not_regenerate_it(torch):
    x = torch.ones(3)
    x.mul_(3)
    v = x[:2]
    x.requires_grad_()
    assert v.grad_fn is None and v.requires_grad


@pytest.mark.parametrize(
    "key", [slice(None), Ellipsis, slice(1, None)], ids=["all", "ellipsis", "part"]
)
def test_assigning_into_an_expanded_tensor_refuses_overlap(torch, key):
    e = torch.ones(1).expand(3)
    with pytest.raises(RuntimeError, match=_OVERLAP):
        e[key] = 3
    with pytest.raises(RuntimeError, match=_OVERLAP):
        e[key] = torch.tensor(3.0)
    e2 = torch.ones(2, 1).expand(2, 3)
    with pytest.raises(RuntimeError, match=_OVERLAP):
        e2[0] = 3  # a row of e2 is one element
    e2[:, 0] = 5  # a column is two distinct elements
    assert_values(e2, [[5.0] * 3] * 2)


def test_fill_may_overlap_but_a_later_write_is_checked_again(torch):
    e = torch.ones(1).expand(3)
    e[0] = 2  # one element
    e.fill_(4)  # one value everywhere
    assert_values(e, [4.0] * 3)
    with pytest.raises(RuntimeError, match=_OVERLAP):
        e.add_(1)
    assert_values(e, [4.0] * 3)


@pytest.mark.parametrize(
    "code",
    [
        "v = b[1:]; v.exp_(); v.sub_(1); b.sum().backward()",
        "v = b[1:]; v.exp_(); b.mul_(2); b.sum().backward()",
        "v = b[0]; v.sigmoid_(); b.abs_(); (a * b).sum().backward()",
        "v = b.reshape(-1); v.tanh_(); v.clamp_(-0.5, 0.5); (v * v).sum().backward()",
    ],
)
def test_a_result_saved_through_a_view_is_version_checked(torch, code):
    """exp_ on a view saves its result, which now lives in the view: changing the view or
    its base in place afterwards makes backward raise, as for a plain tensor."""
    a = torch.linspace(-1, 1, 12).reshape(4, 3).requires_grad_()
    b = a * 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        exec(code, {"a": a, "b": b})


def test_writes_through_a_part_of_an_expanded_view_reach_backward(torch):
    a = torch.linspace(-1, 1, 12).reshape(4, 3).requires_grad_()
    b = a * 1
    v = b.expand(2, 4, 3)[0]  # repeats no element: PyTorch writes through it
    v.mul_(2)
    b.neg_()
    (b.sum() + v.sum()).backward()
    assert a.grad.tolist() == [[-4.0] * 3] * 4


def test_overwritten_values_get_zeros_not_nan(torch):
    """zero_/fill_/copy_ give the values they overwrite a zero gradient, as PyTorch's
    zeros_like: not ``grad * 0``, which keeps an infinite or NaN gradient from downstream."""
    a = torch.linspace(0.1, 1, 12).reshape(4, 3).requires_grad_()
    b = a * 1
    v = b[0]
    v.zero_()
    v.reciprocal_()  # inf, whose exp's gradient is inf
    b.exp().sum().backward()
    assert a.grad[0].tolist() == [0.0, 0.0, 0.0]
    assert a.grad[1:].isfinite().all()


def test_a_view_with_overlapping_windows_sums_its_gradient_after_a_write(torch):
    """unfold's windows overlap; once the base is written in place the view is regenerated
    from it, and its gradient reaches each base element once per window holding it."""
    a = torch.linspace(0.1, 1, 12).reshape(4, 3).requires_grad_()
    b = a.clone()
    v = b.unfold(0, 2, 1)
    b.mul_(2)
    v.sum().backward()
    assert a.grad.tolist() == [[2.0] * 3, [4.0] * 3, [4.0] * 3, [2.0] * 3]


@pytest.mark.parametrize(
    "layout", ["b.t_()", "b.transpose_(0, 1)", "b.unsqueeze_(0)", "b.swapdims_(0, 1)"]
)
def test_views_keep_their_elements_when_the_base_changes_layout_in_place(torch, layout):
    """A view made before ``b.t_()`` (and the like) still looks at the same elements: a
    later write to the base reaches it, and its gradient reaches the right places."""
    a = torch.linspace(0.1, 1, 12).reshape(4, 3).requires_grad_()
    b = a.clone()
    v = b[1:, :2]
    exec(layout, {"b": b})
    b.mul_(2)
    (v * torch.tensor([[1.0, 10.0]])).sum().backward()
    assert_values(v, (a[1:, :2] * 2).detach())
    expected = torch.zeros(4, 3)
    expected[1:, 0], expected[1:, 1] = 2.0, 20.0
    assert_values(a.grad, expected)
