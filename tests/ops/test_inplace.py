"""In-place ops, version counters and views against PyTorch: values, grads and errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")


def _both(fn):
    """Run ``fn(lib)`` with leafgrad and torch; returns both results."""
    return fn(lg), fn(torch)


def _same(ours, theirs):
    if theirs is None:
        assert ours is None
        return
    assert str(ours.dtype) == str(theirs.dtype)
    assert_close(ours, theirs.detach().numpy(), "direct")


def _grads(lib, body):
    """The output and the input's gradient, or the type of the error backward raised."""
    w = lib.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]], dtype=lib.float64, requires_grad=True)
    out = body(lib, w)
    try:
        out.sum().backward()
    except RuntimeError as exc:
        return out, type(exc)
    return out, w.grad


SCENARIOS = {
    "add_scalar": lambda lib, w: (w * 1).add_(2.0),
    "mul_self": lambda lib, w: (lambda y: y.mul_(y))(w * 2),
    "chain": lambda lib, w: (w * 1).sub_(1).mul_(3).div_(2).pow_(2),
    "unary_chain": lambda lib, w: (w * 1).sin_().exp_().tanh_(),  # raises: exp's output changed
    "unary_chain_ok": lambda lib, w: (w * 1).sin_().mul_(2).tanh_(),
    "mul_other_keeps_original_self": lambda lib, w: (w * 2).mul_(w * w),
    "clamp": lambda lib, w: (w * 1).clamp_(-1.0, 1.0),
    "neg_": lambda lib, w: (w * 1).neg_(),
    "iadd": lambda lib, w: _iadd(w * 1, w),
    "imul_broadcast": lambda lib, w: _imul(w * 1, w[0]),
    "copy_": lambda lib, w: (w * 1).copy_(w[1] * 5),
    "fill_": lambda lib, w: (w * 2).fill_(3.0),
    "zero_": lambda lib, w: (w * 2).zero_() + w,
    "setitem_int": lambda lib, w: _set(w * 1, 0, w[1] * 10),
    "setitem_slice": lambda lib, w: _set(w * 1, (slice(None), slice(0, 2)), 7.0),
    "setitem_mask": lambda lib, w: _set(w * 1, w > 0, 0.0),
    "setitem_index_tensor": lambda lib, w: _set(w * 1, lib.tensor([1]), w[0] ** 2),
    "view_row_mul_": lambda lib, w: _through_view(w * 1, lambda v: v[0], lambda v: v.mul_(3)),
    "view_slice_add_": lambda lib, w: _through_view(w * 1, lambda v: v[:, 1:], lambda v: v.add_(v)),
    "view_transpose_mul_": lambda lib, w: _through_view(
        w * 1, lambda v: v.t(), lambda v: v.mul_(2)
    ),
    "view_reshape_exp_": lambda lib, w: _through_view(
        w * 1, lambda v: v.view(3, 2), lambda v: v.exp_()
    ),
    "view_of_view": lambda lib, w: _through_view(w * 1, lambda v: v[1][1:], lambda v: v.mul_(4)),
}


def _iadd(y, w):
    y += w * w
    return y


def _imul(y, row):
    y *= row
    return y


def _set(y, key, value):
    y[key] = value
    return y


def _through_view(base, make_view, modify):
    modify(make_view(base))
    return base


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_inplace_values_and_grads_match_torch(name):
    (ya, ga), (yb, gb) = _both(lambda lib: _grads(lib, SCENARIOS[name]))
    _same(ya, yb)
    if isinstance(gb, type):
        assert ga is gb, f"torch raised {gb.__name__} in backward, leafgrad did not"
    else:
        _same(ga, gb)
    assert (ya.grad_fn is None) == (yb.grad_fn is None)


def test_inplace_on_leaf_requiring_grad_raises_runtime_error():
    x = lg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x.add_(1)
    with pytest.raises(RuntimeError):
        x += 1
    with pytest.raises(RuntimeError):
        x[0] = 2.0
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0


def test_inplace_on_view_of_leaf_requiring_grad_raises():
    x = lg.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="view"):
        x[0].mul_(2)


def test_inplace_on_leaf_under_no_grad_updates_and_bumps_version():
    x = lg.ones(3, requires_grad=True)
    with lg.no_grad():
        x.mul_(2)
        x -= 0.5
    assert x.tolist() == [1.5, 1.5, 1.5]
    assert x._version == 2 and x.is_leaf and x.requires_grad


def test_modifying_a_saved_input_makes_backward_raise_naming_the_op():
    a = lg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b.sin()
    b.add_(1)
    with pytest.raises(RuntimeError, match=r"version 1; expected version 0.*SinBackward0"):
        c.sum().backward()


def test_modifying_a_saved_output_makes_backward_raise():
    a = lg.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match="ExpBackward0"):
        y.sum().backward()
    b = torch.tensor([1.0, 2.0], requires_grad=True)
    z = b.exp()
    z.add_(1)
    with pytest.raises(RuntimeError):
        z.sum().backward()


def test_views_share_the_version_counter_with_their_base():
    base = lg.zeros(2, 3)
    view = base[0]
    t = base.t()
    view.add_(1)
    assert base._version == view._version == t._version == 1
    assert base.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    assert t.tolist() == [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]


def test_fills_that_record_nothing_bump_versions_and_reach_views_and_bases():
    """``zero_``/``fill_`` of a tensor not requiring grad take a short path (no op); what they
    leave is PyTorch's: the values, one version step shared with views and base."""
    base = lg.ones(3, 4)
    view = base[1]
    assert view.zero_() is view
    assert base.tolist() == [[1.0] * 4, [0.0] * 4, [1.0] * 4]
    assert (base._version, view._version) == (1, 1)
    base.fill_(2.5)
    assert view.tolist() == [2.5] * 4 and view._version == 2
    ints = lg.ones(2, dtype=lg.int32).fill_(2.7)
    assert ints.dtype == lg.int32 and ints.tolist() == [2, 2]
    flags = lg.ones(2, dtype=lg.bool).zero_()
    assert flags.tolist() == [False, False]
    # A view made with grad of a base that requires it still gets its history rebuilt.
    leaf = lg.ones(3, requires_grad=True)
    parent = leaf * 2
    part = parent[:2]
    with lg.no_grad():
        part.zero_()
    assert parent.tolist() == [0.0, 0.0, 2.0]
    parent.sum().backward()
    assert leaf.grad.tolist() == [2.0, 2.0, 2.0]


def test_detach_shares_memory_and_version():
    a = lg.tensor([1.0, 2.0], requires_grad=True)
    d = a.detach()
    d.zero_()
    assert a.tolist() == [0.0, 0.0] and a._version == 1


def test_inplace_result_that_cannot_broadcast_into_target_raises_and_leaves_it_unchanged():
    x = lg.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"\[2, 3\]"):
        x.add_(lg.ones(4, 2, 3))
    with pytest.raises(RuntimeError):
        x.add_(lg.ones(3, 1))
    assert x.tolist() == [[0.0] * 3] * 2 and x._version == 0


def test_inplace_cast_from_float_into_int_raises():
    i = lg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="cast"):
        i.mul_(1.5)
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).mul_(1.5)


def test_inplace_returns_self_and_keeps_identity():
    x = lg.ones(2)
    assert x.add_(1) is x
    y = x
    y += 1
    assert y is x and x.tolist() == [3.0, 3.0]


def test_setitem_with_every_index_kind_matches_torch():
    def run(lib):
        x = lib.arange(24.0).reshape(2, 3, 4)
        x[0] = -1.0
        x[1, 2] = lib.tensor([9.0, 8.0, 7.0, 6.0])
        x[..., 0] = 5.0
        x[:, None, 1, 1:3] = 4.0
        x[x > 20] = 0.0
        x[lib.tensor([1]), lib.tensor([0]), lib.tensor([3])] = 100.0
        x[[0, 1], 1] = 3.0
        return x

    a, b = _both(run)
    _same(a, b)


def test_uniform_and_normal_fill_in_place_with_the_seed():
    lg.manual_seed(3)
    a = lg.empty(1000).uniform_(-2, 2)
    lg.manual_seed(3)
    b = lg.empty(1000).uniform_(-2, 2)
    assert a.tolist() == b.tolist() and -2 <= a.min().item() and a.max().item() <= 2
    n = lg.empty(20000, dtype=lg.float64).normal_(1.0, 0.5)
    assert abs(n.mean().item() - 1.0) < 0.02 and abs(n.std().item() - 0.5) < 0.02


def test_double_backward_through_inplace_ops_matches_torch():
    def run(lib):
        x = lib.tensor([0.3, -0.7, 1.2], dtype=lib.float64, requires_grad=True)
        y = x * 1
        y.mul_(x).sin_()
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return g, h

    (ga, ha), (gb, hb) = _both(run)
    _same(ga, gb)
    _same(ha, hb)


def test_a_view_of_a_base_detached_in_place_is_a_view_of_a_leaf_as_pytorch():
    # After b.detach_(), b is a leaf that does not require grad; its views made before still
    # do, and PyTorch refuses to modify them in place ("a view of a leaf Variable ...").
    a = lg.rand(4, 3, requires_grad=True)
    b = a * 1
    v = b[1:]
    b.detach_()
    assert v.requires_grad and not b.requires_grad and b.is_leaf
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        v.mul_(2)
    b.mul_(2)  # the base itself is a plain leaf now


@pytest.mark.parametrize(
    "shape, wrap",
    [((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), True), ((2, 2, 2), False)],
)
def test_fill_diagonal_in_a_graph_is_copy_slices_as_pytorch(shape, wrap):
    results = []
    for m in (lg, torch):
        x = m.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 10)
        x.requires_grad_()
        y = x * 1
        y.fill_diagonal_(2.0, wrap=wrap)
        (y * y).sum().backward()
        results.append((y.grad_fn.name(), y.detach().numpy(), x.grad.numpy()))
    (ours, *ours_arrays), (theirs, *their_arrays) = results
    assert ours == theirs == "torch::autograd::CopySlices"
    for a, b in zip(ours_arrays, their_arrays):
        np.testing.assert_array_equal(a, b)
