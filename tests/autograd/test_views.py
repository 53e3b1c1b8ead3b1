"""Views and in-place ops: memory layout, view regeneration, retain_grad, .data and the
in-place writes PyTorch refuses.

Every test runs with leafgrad and with PyTorch (the ``torch`` fixture).
"""

import numpy as np
import pytest

from ._helpers import assert_values

# ----- memory layout: contiguous() and view() -----


def test_contiguous_of_a_transposed_tensor_is_a_copy(torch):
    source = torch.arange(6.0).reshape(2, 3)
    assert source.contiguous() is source
    c = source.t().contiguous()
    c[0, 0] = 100.0
    assert c.is_contiguous() and not source.t().is_contiguous()
    assert_values(source, [[0, 1, 2], [3, 4, 5]])
    assert_values(c, [[100, 3], [1, 4], [2, 5]])
    assert c._base is None


def test_contiguous_copy_records_a_clone_and_gradients_reach_the_source(torch):
    root = torch.arange(6.0).reshape(2, 3).requires_grad_()
    c = root.t().contiguous()
    assert c.grad_fn.name() == "CloneBackward0"
    c[0, 0] = 100.0  # modifies the copy only: the source's gradient is untouched
    (c * torch.arange(6.0).reshape(3, 2)).sum().backward()
    assert_values(root.grad, [[0, 2, 4], [1, 3, 5]])
    assert_values(root, [[0, 1, 2], [3, 4, 5]])


@pytest.mark.parametrize(
    "make, refused, accepted",
    [
        (lambda torch: torch.arange(6.0).reshape(2, 3).t(), (6,), (3, 2, 1)),
        (lambda torch: torch.arange(6.0).reshape(2, 3).t(), (-1,), (1, 3, 2)),
        (lambda torch: torch.arange(24.0).reshape(2, 3, 4).permute(0, 2, 1), (2, 12),
         (2, 2, 2, 3)),
        (lambda torch: torch.arange(24.0).reshape(2, 3, 4)[:, :, :2], (12,), (6, 2)),
        (lambda torch: torch.arange(24.0).reshape(2, 3, 4)[:, :, :2], (2, 6), (2, 3, 1, 2)),
        (lambda torch: torch.ones(3).expand(2, 3), (6,), (2, 3, 1)),
    ],
    ids=["transposed", "transposed-infer", "permuted", "sliced-flat", "sliced-merge",
         "expanded"],
)  # fmt: skip
def test_view_follows_the_strides_and_refuses_what_they_cannot_express(
    torch, make, refused, accepted
):
    x = make(torch)
    with pytest.raises(RuntimeError, match="reshape"):
        x.view(*refused)
    assert x.reshape(*refused)._base is None  # reshape copies instead
    v = x.view(*accepted)
    assert tuple(v.shape) == tuple(x.reshape(*accepted).shape) and v._base is not None


# ----- .data: the same memory, hidden from the version counter -----


def test_changing_a_saved_result_through_data_does_not_stop_backward(torch):
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y.data.mul_(2)  # the saved result now holds 2e
    y.sum().backward()
    assert y._version == 0
    assert_values(x.grad, [2 * 2.718281828459045] * 3)


def test_changing_a_saved_input_through_data_does_not_stop_backward(torch):
    x = torch.ones(3, requires_grad=True)
    h = x * 2
    y = torch.sin(h)
    h.data.add_(1)  # the saved input now holds 3
    y.sum().backward()
    assert_values(x.grad, [2 * -0.9899924966004454] * 3)


def test_data_has_a_version_counter_of_its_own(torch):
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        x.add_(1)
    d = x.data
    assert (x._version, d._version) == (1, 0)
    d.add_(1)
    assert (x._version, d._version) == (1, 1)
    assert_values(x, [3, 3, 3])
    assert x[0:2].data._base is None


# ----- a view's history follows in-place changes of its base -----


def test_a_view_knows_it_is_one(torch):
    x = torch.ones(3)
    v = x[1:]
    assert v._is_view() and v._base is x and not x._is_view()
    assert not x.detach()._is_view() and not x.clone()._is_view()
    v.add_(1)
    assert x._version == v._version == 1


def test_a_view_sees_its_base_modified_in_place(torch):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    v = x[0]
    x.mul_(3)
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is x.grad_fn
    v.sum().backward()
    assert_values(root.grad, [[3, 3], [0, 0]])


@pytest.mark.parametrize(
    "other, expected",
    [(lambda x: x[0], [[3, 3], [0, 0]]), (lambda x: x[:, 0], [[3, 0], [1, 0]])],
    ids=["sibling", "overlapping"],
)
def test_a_view_sees_another_view_of_its_base_modified_in_place(torch, other, expected):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    v1, v2 = x[0], other(x)
    v1.mul_(3)
    assert v2.grad_fn.name() == "AsStridedBackward0"
    v2.sum().backward()
    assert_values(root.grad, expected)


def test_a_view_modified_in_place_is_regenerated_from_its_rebased_base(torch):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    v = x[0]
    v.mul_(3)
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert x.grad_fn.name().endswith("CopySlices")
    assert v.grad_fn.next_functions[0][0] is x.grad_fn
    (v.sum() + x.sum()).backward()
    assert_values(root.grad, [[6, 6], [1, 1]])


def test_a_view_requires_grad_once_its_base_does_through_an_in_place_op(torch):
    r = torch.ones(1, requires_grad=True)
    x = torch.ones(3)
    v = x[1]
    assert not v.requires_grad
    x.add_(r)
    assert v.requires_grad and not v.is_leaf
    assert v.grad_fn.name() == "AsStridedBackward0"
    (v * 5).backward()
    assert_values(r.grad, [5])


def test_a_view_of_a_view_and_a_broadcast_view_follow_their_base(torch):
    root = torch.ones(2, 3, requires_grad=True)
    x = root.clone()
    chained = x.t()[1:]
    broadcast = x[0].expand(4, 3)
    x.mul_(2)
    assert chained._base is x and broadcast._base is x
    (chained.sum() + broadcast.sum()).backward()
    assert_values(root.grad, [[8, 10, 10], [0, 2, 2]])


def test_views_are_regenerated_whatever_the_grad_mode_of_the_change(torch):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    v = x[0]
    with torch.no_grad():
        x.mul_(3)
    assert x.grad_fn.name() == "CloneBackward0"
    assert v.grad_fn.name() == "AsStridedBackward0"
    p = torch.ones(2, 2, requires_grad=True)
    row = p[0]
    with torch.no_grad():
        p.add_(1)  # an optimiser step
    assert row.grad_fn.name() == "AsStridedBackward0"
    assert row.grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")
    row.sum().backward()
    assert_values(p.grad, [[1, 1], [0, 0]])


def test_a_change_through_a_detached_alias_regenerates_the_views(torch):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    v = x[0]
    x.detach().mul_(2)
    assert v.grad_fn.name() == "AsStridedBackward0"


def test_double_backward_through_a_regenerated_view(torch):
    root = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    x = root * 1
    v = x[:, 1]
    x.mul_(root)
    (g,) = torch.autograd.grad((v**3).sum(), root, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), root)
    assert_values(g, [[0, 192], [0, 6144]])
    assert_values(h, [[0, 480], [0, 7680]])


# ----- retain_grad follows the tensor across in-place changes -----


def test_a_retained_gradient_is_that_of_the_modified_tensor(torch):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))  # a hook stays with the old version
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    assert_values(y.grad, [1, 1])
    assert seen == [[3.0, 3.0]]
    assert_values(x.grad, [6, 6])


def test_a_retained_gradient_follows_a_base_changed_through_its_view(torch):
    x = torch.ones(2, 2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y[0].mul_(3)
    y.sum().backward()
    assert_values(y.grad, [[1, 1], [1, 1]])


@pytest.mark.parametrize("modify", [lambda y, v: v.mul_(3), lambda y, v: y.mul_(3)],
                         ids=["view-changed", "base-changed"])  # fmt: skip
def test_a_retained_gradient_of_a_view_follows_its_regenerated_history(torch, modify):
    x = torch.ones(2, 2, requires_grad=True)
    y = x * 2
    v = y[0]
    v.retain_grad()
    modify(y, v)
    (v.sum() * 5).backward()
    assert_values(v.grad, [5, 5])
    assert_values(x.grad, [[30, 30], [0, 0]])


def test_a_retained_gradient_follows_one_output_of_a_multi_output_op(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 0.0]], requires_grad=True)
    values, _ = (x * 1).max(dim=1)
    values.retain_grad()
    values.mul_(3)
    (values.sum() * 5).backward()
    assert_values(values.grad, [5, 5])
    assert_values(x.grad, [[0, 15], [15, 0]])


# ----- in-place writes PyTorch refuses -----


@pytest.mark.parametrize(
    "pieces",
    [
        lambda x: x.unbind(),
        lambda x: x.split(1),
        lambda x: x.split([1, 1]),
        lambda x: x.chunk(2),
        lambda x: x.split(2),  # a single piece is still one of "several" views
        lambda x: list(x),
        lambda x: [x.unbind()[0][1:]],  # a view of such a view
    ],
    ids=["unbind", "split", "split_with_sizes", "chunk", "split-one-piece", "iter", "view-of"],
)
def test_modifying_an_output_of_unbind_or_split_in_place_raises(torch, pieces):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    first = pieces(x)[0]
    with pytest.raises(RuntimeError):
        first.mul_(2)
    with torch.no_grad():
        first.mul_(2)  # nothing is recorded: allowed
    plain = torch.ones(2, 2)
    pieces(plain)[0].mul_(2)  # nothing requires grad: allowed
    with pytest.raises(RuntimeError):
        pieces(plain)[0].mul_(torch.ones(2, requires_grad=True))


def test_using_an_output_of_unbind_after_its_base_changed_in_place_raises(torch):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    a, b = x.unbind()
    x.mul_(2)
    assert a.requires_grad
    with pytest.raises(RuntimeError):
        _ = a.grad_fn
    with pytest.raises(RuntimeError):
        a * 2
    with pytest.raises(RuntimeError):
        _ = b.is_leaf
    with torch.no_grad():
        assert_values(a * 2, [4, 4])
    assert "grad_fn=<Invalid>" in repr(a)
    plain = torch.ones(2, 2)
    c, _ = plain.unbind()
    plain.mul_(2)
    assert c.grad_fn is None and not c.requires_grad  # nothing requires grad: usable


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_modifying_a_view_made_without_recording_raises_where_gradients_are_recorded(torch, mode):
    root = torch.ones(2, 2, requires_grad=True)
    x = root.clone()
    with getattr(torch, mode)():
        v = x[0]
    assert v.requires_grad and v.grad_fn is None and not v.is_inference()
    with pytest.raises(RuntimeError):
        v.mul_(2)
    with pytest.raises(RuntimeError):
        v[1:].mul_(2)  # a view of such a view
    x.mul_(2)
    with pytest.raises(RuntimeError):
        _ = v.grad_fn  # its base changed in place
    plain = torch.ones(2, 2)
    with getattr(torch, mode)():
        w = plain[0]
    w.mul_(2)  # nothing requires grad: allowed
    with pytest.raises(RuntimeError):
        w.mul_(torch.ones(2, requires_grad=True))


def test_detaching_a_view_in_place_raises(torch):
    for base in (
        torch.ones(2, 2, requires_grad=True).clone(),
        torch.ones(2, 2, requires_grad=True),
        torch.ones(2, 2),
    ):
        with pytest.raises(RuntimeError):
            base[0].detach_()


# ----- which ops make views, and the grad_fn names PyTorch records -----


def test_diagonal_is_a_view_that_writes_through_to_its_base(torch):
    root = torch.arange(12.0).reshape(3, 4).requires_grad_()
    x = root * 1
    d = x.diagonal(1)
    assert d._base is x and d.grad_fn.name() == "DiagonalBackward0"
    d.mul_(2)
    assert_values(x[:, 1:].diagonal(), [2.0, 12.0, 22.0])
    (x * torch.arange(12.0).reshape(3, 4)).sum().backward()
    expected = np.arange(12.0).reshape(3, 4)
    expected[[0, 1, 2], [1, 2, 3]] *= 2
    assert_values(root.grad, expected)


@pytest.mark.parametrize(
    "make, name, is_view",
    [
        (lambda x: x.reshape(12), "ViewBackward0", True),
        (lambda x: x.t().reshape(4, 3), "ReshapeAliasBackward0", True),
        (lambda x: x[:, 0].reshape(3, 1), "ReshapeAliasBackward0", True),
        (lambda x: x.t().reshape(12), "UnsafeViewBackward0", False),
        (lambda x: x[::2].reshape(-1), "UnsafeViewBackward0", False),
    ],
)
def test_reshape_records_a_view_where_the_strides_allow_one(torch, make, name, is_view):
    root = torch.ones(3, 4, requires_grad=True)
    x = root * 1
    y = make(x)
    assert y.grad_fn.name() == name and (y._base is not None) == is_view
    x.mul_(3)  # a view sees it, a copy does not
    assert_values(y, np.full(y.shape, 3.0 if is_view else 1.0))


def test_clone_keeps_the_order_of_the_strides(torch):
    x = torch.arange(24.0).reshape(2, 3, 4)
    assert x.transpose(0, 1).clone().stride() == (4, 12, 1)
    assert x.permute(2, 0, 1).clone().stride() == (1, 12, 4)
    assert x.transpose(1, 2)[:, ::2].clone().stride() == (6, 1, 2)  # gaps closed
    assert x[0, :1].expand(3, 4).clone().stride() == (4, 1)
    t = x[0].t()
    assert not t.clone().is_contiguous() and t.contiguous().is_contiguous()


@pytest.mark.parametrize(
    "write, name",
    [
        (lambda x, w: x.__setitem__(0, w), "CopySlices"),
        (lambda x, w: x.__setitem__((slice(1, 3),), w), "CopySlices"),
        (lambda x, w: x.__setitem__(..., w), "FillBackward3"),
        (lambda x, w: x.__setitem__(slice(None), w), "FillBackward3"),
        (lambda x, w: x.__setitem__(..., w * torch_ones(x)), "CopyBackwards"),
        (lambda x, w: x.__setitem__(torch_index(x), w), "IndexPutBackward0"),
        (lambda x, w: x.fill_(3.0), "FillBackward2"),
        (lambda x, w: x.fill_(w), "FillBackward3"),
        (lambda x, w: x.zero_(), "ZeroBackward0"),
        (lambda x, w: x.copy_(w), "CopyBackwards"),
    ],
)
def test_writes_record_the_grad_fn_pytorch_records(torch, write, name):
    w = torch.tensor(0.5, requires_grad=True)
    x = torch.ones(3, 4) * w
    write(x, w)
    assert x.grad_fn.name().rsplit("::", 1)[-1] == name
    (g,) = torch.autograd.grad((x * torch.arange(12.0).reshape(3, 4)).sum(), w)
    _ = g.item()  # every write leaves a gradient for w (its value checked elsewhere)


def torch_ones(x):
    return x.detach() * 0 + 1


def torch_index(x):
    return (x.detach()[:2, 0] * 0 + 1).long()


def test_a_0d_target_takes_a_copy(torch):
    w = torch.tensor(0.5, requires_grad=True)
    x = torch.ones(3) * w
    x[1] = w * 4  # a 0-d view, the same size as the value: copy_ into it
    assert x.grad_fn.name().rsplit("::", 1)[-1] == "CopySlices"
    assert_values(x, [0.5, 2.0, 0.5])


def test_a_constant_write_zeroes_the_forward_mode_tangent_there(torch):
    fa = torch.autograd.forward_ad
    with fa.dual_level():
        x = fa.make_dual(
            torch.ones(3, 2, dtype=torch.float64), torch.ones(3, 2, dtype=torch.float64)
        )
        y = x * 2
        y[1].fill_(0.5)
        assert_values(fa.unpack_dual(y).tangent, [[2.0, 2.0], [0.0, 0.0], [2.0, 2.0]])
        y.zero_()
        assert_values(fa.unpack_dual(y).tangent, np.zeros((3, 2)))


def test_a_refused_view_requires_grad_once_its_base_does(torch):
    w = torch.tensor(0.5, requires_grad=True)
    base = torch.ones(3)
    with torch.no_grad():
        v = base[1:]
    base.mul_(w)
    assert v.requires_grad
    with pytest.raises(RuntimeError):
        _ = v.grad_fn


@pytest.mark.parametrize(
    ("change", "node"), [("t_()", "TBackward1"), ("transpose_(0, 1)", "TransposeBackward1")]
)
def test_in_place_layout_changes_name_their_nodes_as_pytorch(torch, change, node):
    a = torch.arange(6.0).reshape(2, 3).requires_grad_()
    b = a.clone()
    eval(f"b.{change}", {"b": b})
    assert type(b.grad_fn).__name__ == node and b.grad_fn.name() == node
    assert tuple(b.shape) == (3, 2)
    (b * torch.arange(6.0).reshape(3, 2)).sum().backward()
    assert_values(a.grad, [[0, 2, 4], [1, 3, 5]])
