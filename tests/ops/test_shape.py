"""Shape ops against PyTorch: values, shapes, dtypes, grad_fn chains, first and second
order grads, type promotion in cat/stack, and error types."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import names_to_leaves
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")


# ----- comparison helpers (test_indexing.py uses them too) -----


def pair(array, requires_grad=None):
    """The same data as a leafgrad and a torch tensor (floats require grad by default)."""
    arr = np.asarray(array)
    rg = arr.dtype.kind == "f" if requires_grad is None else requires_grad
    return lg.tensor(arr, requires_grad=rg), torch.tensor(arr, requires_grad=rg)


def chain(t) -> list:
    """Names of ``t.grad_fn`` and of each first parent down to the leaf."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def assert_same(ours, theirs) -> None:
    """Shape, dtype and requires_grad exactly; values exactly for integers and bools, else to
    the ``"direct"`` tolerance (copies are exact anyway; grads through sin, ** and sums are
    short chains)."""
    assert ours.shape == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.requires_grad == theirs.requires_grad
    assert_close(ours, theirs.detach().numpy(), "direct")


def assert_matches_torch(fn, *arrays, seed=0):
    """``fn(module, *tensors)`` agrees with torch: outputs, grad_fn chains, the first-order
    grads for random output grads, and the grads of their squared norm (second order)."""
    ours_in, theirs_in = zip(*(pair(a) for a in arrays))
    ours_out, theirs_out = as_tuple(fn(lg, *ours_in)), as_tuple(fn(torch, *theirs_in))
    assert len(ours_out) == len(theirs_out)
    for a, b in zip(ours_out, theirs_out):
        assert_same(a, b)
        assert chain(a) == chain(b)
    keep = [i for i, b in enumerate(theirs_out) if b.requires_grad]
    wrt = [i for i, b in enumerate(theirs_in) if b.requires_grad]
    if not keep or not wrt:
        return
    rng = np.random.default_rng(seed)
    seeds = [pair(rng.standard_normal(tuple(theirs_out[i].shape))) for i in keep]
    results = []
    for side, (outs, ins) in enumerate(((ours_out, ours_in), (theirs_out, theirs_in))):
        api = (lg, torch)[side]
        s = [p[side] for p in seeds]
        xs = [ins[i] for i in wrt]
        grads = api.autograd.grad(
            [outs[i] for i in keep],
            xs,
            s,
            create_graph=True,
            allow_unused=True,
            materialize_grads=True,
        )
        second = None
        if any(g.requires_grad for g in grads):
            norm = sum((g * g).sum() for g in grads)
            second = api.autograd.grad(norm, xs + s, allow_unused=True, materialize_grads=True)
        results.append((grads, second))
    (ours_g, ours_h), (theirs_g, theirs_h) = results
    for a, b in zip(ours_g, theirs_g):
        assert_same(a.detach(), b.detach())
    assert (ours_h is None) == (theirs_h is None)
    for a, b in zip(ours_h or (), theirs_h or ()):
        assert_same(a, b)


def _flat_sin(m, outs):
    """One tensor from every float output, through a nonlinearity (for second derivatives)."""
    return m.cat([o.reshape(-1).sin() for o in as_tuple(outs) if o.is_floating_point()])


def assert_forward_modes_match_torch(fn, *arrays, seed=3):
    """Forward-mode tangents of ``fn`` (for tangents on every float input) match torch's,
    and, for one input, so does the Taylor-mode second derivative of ``sin(fn(x))``."""
    from leafgrad.autograd import forward_ad as lg_fwd
    from leafgrad.autograd import taylor

    rng = np.random.default_rng(seed)
    floats = [np.asarray(a).dtype.kind == "f" for a in arrays]
    tangents = [rng.standard_normal(np.shape(a)) if f else None for a, f in zip(arrays, floats)]
    results = []
    for m, fwd in ((lg, lg_fwd), (torch, torch.autograd.forward_ad)):
        with fwd.dual_level():
            ins = [
                fwd.make_dual(m.tensor(a), m.tensor(t)) if t is not None else m.tensor(a)
                for a, t in zip(arrays, tangents)
            ]
            outs = as_tuple(fn(m, *ins))
            results.append([fwd.unpack_dual(o).tangent for o in outs])
    for ours, theirs in zip(*results):
        assert (ours is None) == (theirs is None)
        if theirs is not None:
            assert_same(ours, theirs)
    if len(arrays) != 1 or not floats[0]:
        return
    x, v = arrays[0], tangents[0]
    derivs = taylor.derivatives(lambda z: _flat_sin(lg, fn(lg, z)), lg.tensor(x), lg.tensor(v), 2)

    def first(z):
        return torch.func.jvp(lambda w: _flat_sin(torch, fn(torch, w)), (z,), (torch.tensor(v),))[1]

    second = torch.func.jvp(first, (torch.tensor(x),), (torch.tensor(v),))[1]
    assert_same(derivs[2], second)


def assert_same_error(fn, *arrays, match=None):
    """``fn`` raises the same exception type on torch as on leafgrad; ours matches ``match``."""
    ours_in, theirs_in = zip(*(pair(a) for a in arrays)) if arrays else ((), ())
    with pytest.raises(Exception) as theirs:
        fn(torch, *theirs_in)
    with pytest.raises(theirs.type, match=match):
        fn(lg, *ours_in)


def _r(*shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape)


X = _r(2, 3, 4)

# ----- behaviour matches torch -----

CASES = {
    "flatten": (lambda m, x: x.flatten(), X),
    "flatten-from-dim-1": (lambda m, x: m.flatten(x, 1), X),
    "flatten-negative-range": (lambda m, x: x.flatten(-3, -2), X),
    "flatten-0d-gives-1d": (lambda m, x: x.flatten(), np.array(2.5)),
    "unflatten-with-minus-one": (lambda m, x: x.unflatten(-1, (2, -1)), X),
    "view-as": (lambda m, x: x.view_as(x.reshape(4, 6)), X),
    "reshape-as": (lambda m, x: x.reshape_as(x.reshape(6, 4)), X),
    "squeeze-all": (lambda m, x: x.squeeze(), _r(1, 3, 1)),
    "squeeze-dim": (lambda m, x: m.squeeze(x, 0), _r(1, 3, 1)),
    "squeeze-negative-dim": (lambda m, x: x.squeeze(-1), _r(1, 3, 1)),
    "squeeze-non-singleton-is-no-op": (lambda m, x: x.squeeze(1), _r(1, 3, 1)),
    "squeeze-tuple": (lambda m, x: x.squeeze((0, 1, 2)), _r(1, 3, 1)),
    "squeeze-0d": (lambda m, x: x.squeeze(0), np.array(1.5)),
    "squeeze-varargs": (lambda m, x: x.squeeze(0, 2), _r(1, 3, 1)),
    "squeeze-dim-keyword": (lambda m, x: m.squeeze(x, dim=(0, 2)), _r(1, 3, 1)),
    "unsqueeze-front": (lambda m, x: x.unsqueeze(0), X),
    "unsqueeze-negative-end": (lambda m, x: m.unsqueeze(x, -1), X),
    "permute-varargs": (lambda m, x: x.permute(2, 0, 1), X),
    "permute-tuple": (lambda m, x: x.permute((1, 2, 0)), X),
    "permute-negative-dims": (lambda m, x: m.permute(x, (-1, -3, -2)), X),
    "permute-identity": (lambda m, x: x.permute(0, 1, 2), X),
    "transpose": (lambda m, x: x.transpose(0, 2), X),
    "transpose-same-dim": (lambda m, x: m.transpose(x, 1, -2), X),
    "swapaxes": (lambda m, x: x.swapaxes(0, -1), X),
    "swapdims": (lambda m, x: m.swapdims(x, 0, 1), X),
    "t-matrix": (lambda m, x: x.t(), _r(2, 3)),
    "t-vector": (lambda m, x: m.t(x), _r(3)),
    "T-matrix": (lambda m, x: x.T, _r(2, 3)),
    "mT": (lambda m, x: x.mT, X),
    "movedim-int": (lambda m, x: x.movedim(0, -1), X),
    "movedim-tuples": (lambda m, x: m.movedim(x, (0, 1), (2, 0)), X),
    "moveaxis": (lambda m, x: m.moveaxis(x, -1, 0), X),
    "expand": (lambda m, x: x.expand(2, 3, 4), _r(3, 1)),
    "expand-as": (lambda m, x: x[:, :1].expand_as(x), X),
    "repeat": (lambda m, x: x.repeat(2, 1, 3), _r(2, 3)),
    "repeat-list": (lambda m, x: x.repeat([1, 2]), _r(2, 3)),
    "repeat-0d": (lambda m, x: x.repeat(2, 3), np.array(0.5)),
    "tile-varargs": (lambda m, x: x.tile(2, 1), _r(2, 3)),
    "tile-short-tuple": (lambda m, x: m.tile(x, (2,)), _r(2, 3)),
    "tile-keyword": (lambda m, x: m.tile(x, dims=[1, 2]), _r(2, 3)),
    "broadcast-to-varargs": (lambda m, x: x.broadcast_to(2, 2, 3), _r(2, 3)),
    "broadcast-to-keyword": (lambda m, x: m.broadcast_to(x, size=(4, 2, 3)), _r(2, 3)),
    "flip-one-dim": (lambda m, x: x.flip(0), X),
    "flip-varargs": (lambda m, x: x.flip(0, -1), X),
    "flip-list": (lambda m, x: m.flip(x, [1, 2]), X),
    "roll-dim": (lambda m, x: x.roll(1, 0), X),
    "roll-flattened": (lambda m, x: m.roll(x, -5), X),
    "roll-tuples": (lambda m, x: x.roll((1, -2), (2, 1)), X),
    "narrow": (lambda m, x: x.narrow(1, 1, 2), X),
    "narrow-negative-start": (lambda m, x: m.narrow(x, -1, -3, 2), X),
    "narrow-empty": (lambda m, x: x.narrow(1, 3, 0), X),
    "cat-dim-0": (lambda m, x, y: m.cat([x, y]), _r(2, 3), _r(1, 3)),
    "cat-negative-dim": (lambda m, x, y: m.cat((x, y), -1), _r(2, 3), _r(2, 2)),
    "cat-same-tensor-twice": (lambda m, x: m.cat([x, x * 2], 1), _r(2, 3)),
    "cat-single": (lambda m, x: m.cat([x]), _r(2, 3)),
    "concat": (lambda m, x, y: m.concat([x, y], dim=1), _r(2, 3), _r(2, 1)),
    "concatenate": (lambda m, x, y: m.concatenate([x, y]), _r(2), _r(3)),
    "cat-skips-legacy-empty-1d": (lambda m, x, y: m.cat([x, y]), np.zeros(0), _r(2, 2)),
    "stack": (lambda m, x, y: m.stack([x, y]), _r(2, 3), _r(2, 3)),
    "stack-last-dim": (lambda m, x, y: m.stack((x, y), dim=-1), _r(2, 3), _r(2, 3)),
    "stack-0d": (lambda m, x, y: m.stack([x, y]), np.array(1.0), np.array(2.0)),
    "split-size": (lambda m, x: x.split(2, dim=2), X),
    "split-size-uneven": (lambda m, x: m.split(x, 2, 1), X),
    "split-size-larger-than-dim": (lambda m, x: x.split(5), X),
    "split-sections": (lambda m, x: x.split([1, 3], -1), X),
    "split-sections-with-zero": (lambda m, x: m.split(x, [0, 2, 1], 1), X),
    "split-one-output-used": (lambda m, x: x.split(1, 1)[2], X),
    "chunk": (lambda m, x: x.chunk(3, -1), X),
    "chunk-more-than-size": (lambda m, x: m.chunk(x, 5, 0), X),
    "chunk-empty-dim": (lambda m, x: x.chunk(2), np.zeros((0, 3))),
    "unbind": (lambda m, x: x.unbind(1), X),
    "unbind-one-output-used": (lambda m, x: m.unbind(x, -1)[1], X),
    "unbind-size-1": (lambda m, x: x.unbind(0), _r(1, 3)),
    "iterate": (lambda m, x: tuple(iter(x)), _r(3, 2)),
    "split-then-cat": (lambda m, x: m.cat(x.split([2, 1], 1)[::-1], 1) ** 2, X),
    "stack-of-unbind": (lambda m, x: m.stack(x.unbind(2), 0).sin(), X),
    "int-tensor-permute": (lambda m, x: x.permute(1, 0), np.arange(6).reshape(2, 3)),
    "bool-tensor-flip": (lambda m, x: x.flip(1), np.array([[True, False, False]])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_shape_op_values_grad_fn_and_grads_match_torch(case):
    fn, *arrays = CASES[case]
    assert_matches_torch(fn, *arrays)


@pytest.mark.parametrize("case", list(CASES))
def test_shape_op_forward_and_taylor_mode_match_torch(case):
    fn, *arrays = CASES[case]
    assert_forward_modes_match_torch(fn, *arrays)


def test_repeat_zero_times_gives_an_empty_result_and_zero_grads():
    x = lg.tensor(_r(2, 3), requires_grad=True)
    y = x.repeat(0, 2)
    assert y.shape == (0, 6) and y.grad_fn.name() == "RepeatBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))


def test_flatten_of_a_single_dim_returns_the_input_itself():
    x = lg.tensor(X, requires_grad=True)
    assert x.flatten(1, 1) is x
    assert x.flatten(-1, 2) is x


def test_split_outputs_share_one_node_with_output_numbers_like_torch():
    x, tx = pair(X)
    ours, theirs = x.split([1, 2], 1), tx.split([1, 2], 1)
    assert ours[0].grad_fn is ours[1].grad_fn
    assert [o.output_nr for o in ours] == [o.output_nr for o in theirs] == [0, 1]
    assert ours[0].grad_fn.name() == "SplitWithSizesBackward0"
    pieces = x.unbind(2)
    assert all(p.grad_fn is pieces[0].grad_fn for p in pieces)
    assert [p.output_nr for p in pieces] == [0, 1, 2, 3]


def test_backward_through_one_split_output_gives_zero_grad_elsewhere():
    x = lg.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    _, b = x.split([1, 2])
    (b * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [3, 3], [3, 3]])


def test_split_and_chunk_return_tuples_like_torch():
    x = lg.tensor(X)
    assert isinstance(x.split(5), tuple) and len(x.split(5)) == 1
    assert isinstance(x.chunk(2), tuple)
    assert lg.zeros(0, 3).unbind() == ()


@pytest.mark.parametrize(
    "dtypes, expected",
    [
        (("float32", "int64"), "float32"),
        (("float32", "float64"), "float64"),
        (("bool", "int32"), "int32"),
        (("int32", "int64", "bool"), "int64"),
        (("float16", "float32"), "float32"),
    ],
)
def test_cat_and_stack_promote_dtypes_like_torch(dtypes, expected):
    ours = [lg.ones(2, dtype=getattr(lg, d)) for d in dtypes]
    theirs = [torch.ones(2, dtype=getattr(torch, d)) for d in dtypes]
    for op in ("cat", "stack"):
        out, ref = getattr(lg, op)(ours), getattr(torch, op)(theirs)
        assert str(out.dtype) == str(ref.dtype) == f"torch.{expected}"
        np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_stack_of_0d_tensors_promotes_fully():
    out = lg.stack([lg.tensor(1.0), lg.tensor(2.0, dtype=lg.float64)])
    assert out.dtype == lg.float64 == lg.float64


def test_cat_grads_come_back_in_each_input_dtype():
    a = lg.ones(2, dtype=lg.float32, requires_grad=True)
    b = lg.ones(3, dtype=lg.float64, requires_grad=True)
    out = lg.cat([a, b])
    assert out.dtype == lg.float64
    (out * lg.arange(5.0, dtype=lg.float64)).sum().backward()
    assert a.grad.dtype == lg.float32 and b.grad.dtype == lg.float64
    np.testing.assert_array_equal(a.grad.numpy(), [0, 1])
    np.testing.assert_array_equal(b.grad.numpy(), [2, 3, 4])


def test_cat_gives_a_skipped_empty_1d_input_an_empty_grad():
    e = lg.zeros(0, requires_grad=True)
    x = lg.ones(2, 2, requires_grad=True)
    lg.cat([e, x]).sum().backward()
    assert e.grad.shape == (0,)
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 2)))


def test_views_share_memory_with_their_input_and_copies_do_not():
    x = lg.tensor(X)
    for view in (
        x.permute(2, 0, 1),
        x.transpose(0, 1),
        x.unsqueeze(0),
        x.narrow(1, 0, 2),
        x.split(1)[0],
        x.unbind(2)[0],
        x.flatten(),
    ):
        assert np.shares_memory(view.numpy(), x.numpy())
    for copy in (x.flip(0), x.roll(1, 0), x.repeat(1, 1, 1), lg.cat([x, x]), lg.stack([x, x])):
        assert not np.shares_memory(copy.numpy(), x.numpy())


def test_integer_tensors_go_through_shape_ops_without_grad():
    x = lg.arange(6).reshape(2, 3)
    for out in (x.t(), x.flip(0), x.repeat(2, 1), lg.cat([x, x]), x.split(1)[0], x.unsqueeze(0)):
        assert out.dtype == lg.int64 and not out.requires_grad and out.grad_fn is None


def test_shape_ops_under_no_grad_record_nothing_but_views_still_require_grad():
    x = lg.tensor(X, requires_grad=True)
    with lg.no_grad():
        outs = [x.permute(1, 0, 2), lg.cat([x, x]), x.chunk(2)[0], x.unbind()[0], x.roll(1)]
    assert all(o.grad_fn is None and o.is_leaf for o in outs)
    # As in PyTorch: views keep requires_grad=True, copies do not.
    assert [o.requires_grad for o in outs] == [True, False, True, True, False]
    y = (outs[0] * 2).sum()
    assert y.requires_grad
    y.backward()  # gradients reaching a no-grad view go nowhere
    assert x.grad is None and outs[0].grad is None


def test_double_backward_through_cat_of_a_nonlinear_function_matches_torch():
    def fn(m, x):
        y = m.cat([x.sin(), x * x], 0)
        (g,) = m.autograd.grad((y**3).sum(), x, create_graph=True)
        return g

    assert_matches_torch(fn, _r(3, 2))


# ----- errors: the exception type torch raises, with a message naming the op -----

ERRORS = {
    "permute-too-few-dims": (lambda m, x: x.permute(0, 1), "permute"),
    "permute-repeated-dim": (lambda m, x: x.permute(0, 0, 1), "permute"),
    "permute-dim-out-of-range": (lambda m, x: x.permute(0, 1, 3), "permute"),
    "transpose-dim-out-of-range": (lambda m, x: x.transpose(0, 3), "transpose"),
    "t-of-3d": (lambda m, x: x.t(), "t"),
    "unsqueeze-dim-out-of-range": (lambda m, x: x.unsqueeze(4), "unsqueeze"),
    "squeeze-dim-out-of-range": (lambda m, x: x.squeeze(-4), "squeeze"),
    "squeeze-repeated-dims": (lambda m, x: x.squeeze((0, 0)), "squeeze"),
    "flatten-dim-out-of-range": (lambda m, x: x.flatten(0, 3), "flatten"),
    "flatten-start-after-end": (lambda m, x: x.flatten(2, 1), "flatten"),
    "unflatten-wrong-product": (lambda m, x: x.unflatten(2, (3, 2)), "unflatten"),
    "view-wrong-numel": (lambda m, x: x.view(5, 5), "view"),
    "expand-as-smaller": (lambda m, x: x.expand_as(x[0]), "expand"),
    "repeat-fewer-than-dims": (lambda m, x: x.repeat(2, 2), "repeat"),
    "repeat-negative": (lambda m, x: x.repeat(1, -1, 1), "repeat"),
    "repeat-nothing": (lambda m, x: x.repeat(), "repeat"),
    "flip-repeated-dim": (lambda m, x: x.flip(0, 0), "flip"),
    "flip-dim-out-of-range": (lambda m, x: x.flip(3), "flip"),
    "roll-shifts-dims-mismatch": (lambda m, x: x.roll((1, 2), 0), "roll"),
    "roll-two-shifts-no-dims": (lambda m, x: x.roll((1, 2)), "roll"),
    "roll-dim-out-of-range": (lambda m, x: x.roll(1, 3), "roll"),
    "movedim-repeated": (lambda m, x: x.movedim((0, 0), (1, 2)), "movedim"),
    "movedim-length-mismatch": (lambda m, x: x.movedim((0, 1), (1,)), "movedim"),
    "movedim-out-of-range": (lambda m, x: x.movedim(3, 0), "movedim"),
    "narrow-start-out-of-range": (lambda m, x: x.narrow(1, 5, 1), "narrow"),
    "narrow-past-the-end": (lambda m, x: x.narrow(1, 2, 5), "narrow"),
    "narrow-negative-length": (lambda m, x: x.narrow(1, 0, -1), "narrow"),
    "cat-empty-list": (lambda m, x: m.cat([]), "cat"),
    "cat-a-tensor-not-a-list": (lambda m, x: m.cat(x), "cat"),
    "cat-different-ndim": (lambda m, x: m.cat([x, x[0]]), "cat"),
    "cat-size-mismatch": (lambda m, x: m.cat([x, x[:, :2]], 2), "cat"),
    "cat-dim-out-of-range": (lambda m, x: m.cat([x, x], 3), "cat"),
    "cat-0d": (lambda m, x: m.cat([x[0, 0, 0], x[0, 0, 1]]), "cat"),
    "cat-non-tensor-element": (lambda m, x: m.cat([x, 1]), "cat"),
    "stack-empty-list": (lambda m, x: m.stack([]), "stack"),
    "stack-size-mismatch": (lambda m, x: m.stack([x, x[:1]]), "stack"),
    "stack-dim-out-of-range": (lambda m, x: m.stack([x, x], 4), "stack"),
    "split-sections-wrong-sum": (lambda m, x: x.split([1, 1], 1), "split"),
    "split-size-zero": (lambda m, x: x.split(0, 1), "split"),
    "split-size-negative": (lambda m, x: x.split(-1, 1), "split"),
    "split-0d": (lambda m, x: x[0, 0, 0].split(1), "split"),
    "chunk-zero": (lambda m, x: x.chunk(0), "chunk"),
    "chunk-0d": (lambda m, x: x[0, 0, 0].chunk(1), "chunk"),
    "unbind-0d": (lambda m, x: x[0, 0, 0].unbind(), "unbind"),
    "unbind-dim-out-of-range": (lambda m, x: x.unbind(3), "unbind"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_shape_op_arguments_raise_torchs_exception_type_naming_the_op(case):
    fn, op = ERRORS[case]
    assert_same_error(fn, X, match=op)


_SQUEEZES = {
    "all": lambda x: x.squeeze(),
    "dim": lambda x: x.squeeze(0),
    "dim-kept": lambda x: x.squeeze(1),
    "dims": lambda x: x.squeeze((0, 2)),
    "negative": lambda x: x.squeeze(-1),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "in-place": lambda x: x.clone().squeeze_(0),
}


@pytest.mark.parametrize("name", list(_SQUEEZES))
def test_squeeze_gradients_unsqueeze_as_pytorchs_unsqueeze_to(name):
    """squeeze's backward is PyTorch's ``unsqueeze_to`` (an unsqueeze per dropped dim), so a
    gradient through it records UnsqueezeBackward0 nodes, as PyTorch's does."""
    x = np.random.default_rng(0).standard_normal((1, 3, 1))
    graphs = []
    for m in (lg, torch):
        t = m.tensor(x, requires_grad=True)
        y = _SQUEEZES[name](t)
        (g,) = m.autograd.grad((y * y).sum(), t, create_graph=True)
        graphs.append((names_to_leaves(y.grad_fn), names_to_leaves(g.grad_fn), g.detach().numpy()))
    assert graphs[0][:2] == graphs[1][:2]
    np.testing.assert_allclose(graphs[0][2], graphs[1][2], rtol=1e-15)


# ----- common calls (Python ints, one dtype) take a shorter path than other spellings -----

# (the common call, the same call spelt so that it takes the general path)
_SPELLINGS = {
    "permute": (lambda m, x: x.permute(2, 0, 1), lambda m, x: x.permute((2, 0, 1))),
    "permute-negative": (lambda m, x: x.permute(-1, 0, 1), lambda m, x: x.permute([-1, 0, 1])),
    "flip": (lambda m, x: x.flip(0), lambda m, x: x.flip((0,))),
    "flip-negative-dims": (lambda m, x: x.flip(-1, 0), lambda m, x: x.flip(dims=[-1, 0])),
    "roll": (lambda m, x: x.roll(2, -1), lambda m, x: x.roll((2,), (-1,))),
    "repeat": (lambda m, x: x.repeat(2, 1, 3), lambda m, x: x.repeat((2, 1, 3))),
    "repeat-leading": (lambda m, x: x.repeat(2, 1, 1, 2), lambda m, x: x.repeat([2, 1, 1, 2])),
    "squeeze": (lambda m, x: x[:1].squeeze(0), lambda m, x: x[:1].squeeze(dim=0)),
    "squeeze-kept": (lambda m, x: x.squeeze(-2), lambda m, x: x.squeeze(dim=-2)),
    "unsqueeze": (lambda m, x: x.unsqueeze(3), lambda m, x: x.unsqueeze(np.int64(3))),
    "flatten": (lambda m, x: x.flatten(), lambda m, x: x.flatten(np.int64(0), np.int64(-1))),
    "expand": (
        lambda m, x: x[:, :1].expand(3, 2, 5, 4),
        lambda m, x: x[:, :1].expand([3, 2, 5, 4]),
    ),
    "cat": (lambda m, x: m.cat([x, x[:, :2]], 1), lambda m, x: m.cat([x, x[:, :2]], np.int64(1))),
    "stack": (lambda m, x: m.stack((x, x), -1), lambda m, x: m.stack((x, x), np.int64(-1))),
    "chunk": (lambda m, x: x.chunk(2, 2), lambda m, x: x.chunk(np.int64(2), np.int64(2))),
    "split": (lambda m, x: x.split(2, 1), lambda m, x: x.split(np.int64(2), 1)),
}


def _recorded(out) -> list:
    """What a result shows of itself and its node: values, layout, graph and saved values."""
    seen = []
    for t in as_tuple(out):
        node = t.grad_fn
        saved = {n: repr(getattr(node, n)) for n in dir(node) if n.startswith("_saved_")}
        seen.append((t.detach().numpy().tolist(), t.stride(), t._is_view(), node.name(), saved))
    return seen


@pytest.mark.parametrize("dim", [1, -2, 0, (0, 1), (1,), (-2, 0), (2, 0, 1), [np.int64(1)]])
@pytest.mark.parametrize("inplace", [False, True])
def test_squeeze_shows_the_dims_asked_for_as_pytorch_does(dim, inplace):
    # PyTorch's node keeps the dims as given (a negative one as its uint64 bits), also those
    # of size other than 1 that the squeeze keeps.
    torch = pytest.importorskip("torch")
    shown = []
    for lib in (torch, lg):
        x = lib.ones(3, 1, 4, requires_grad=True)
        y = x.clone().squeeze_(dim) if inplace else x.squeeze(dim)
        shown.append((type(y.grad_fn).__name__, y.grad_fn._saved_dim))
    assert shown[0] == shown[1]


@pytest.mark.parametrize("name", list(_SPELLINGS))
def test_common_call_records_what_the_general_spelling_records(name):
    common, general = _SPELLINGS[name]
    x = lg.tensor(X, requires_grad=True)
    assert _recorded(common(lg, x)) == _recorded(general(lg, x))
    assert_matches_torch(common, X)


def test_repeat_tiles_as_numpy_tile_in_a_row_major_result():
    base = np.arange(24.0).reshape(2, 3, 4)
    for x in (base, base.transpose(2, 0, 1), base[:, ::2], base[0]):
        for repeats in ((2, 1, 3), (1, 1, 2, 1), (3,) * (x.ndim + 1), (1,) * x.ndim):
            if len(repeats) < x.ndim:
                continue
            out = lg.from_numpy(x).repeat(*repeats)  # (x's own layout)
            np.testing.assert_array_equal(out.numpy(), np.tile(x, repeats))
            assert out.numpy().flags.c_contiguous  # as PyTorch's, even where nothing repeats


def test_flip_reverses_as_numpy_flip_on_strided_inputs():
    base = np.arange(24.0).reshape(2, 3, 4)
    for x in (base, base.transpose(2, 0, 1), base[:, ::2]):
        for dims in ((0,), (-1,), (2, 0), (-1, -3, 1)):
            np.testing.assert_array_equal(lg.tensor(x).flip(*dims).numpy(), np.flip(x, dims))


def test_split_and_chunk_plans_are_remembered_but_a_bad_call_raises_every_time():
    x = lg.tensor(X, requires_grad=True)
    first, again = x.chunk(2, 2), x.chunk(2, 2)
    assert first[0] is not again[0] and first[0].grad_fn is not again[0].grad_fn
    for _ in range(2):
        with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0"):
            x.chunk(0, 1)
        with pytest.raises(IndexError, match="split"):
            x.split(2, 3)


@pytest.mark.parametrize("args", [(1, 0), (1, -1), ((1,), (0,))])
def test_roll_of_a_0d_tensor_along_a_dim_raises_pytorchs_index_error(args):
    with pytest.raises(
        IndexError, match=r"Dimension specified as -?[01] but tensor has no dimensions"
    ):
        lg.tensor(5.0).roll(*args)
    assert lg.tensor(5.0).roll(1).item() == 5.0  # (dims=None: the one value)
