"""Indexing against PyTorch: ``__getitem__`` (ints, slices, None, ..., masks, index tensors
and lists), gather, index_select, masked_fill, take_along_dim and nonzero: values, shapes,
grad_fn chains, first and second order grads, and error types."""

import warnings

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

from .test_shape import (
    assert_forward_modes_match_torch,
    assert_matches_torch,
    assert_same,
    assert_same_error,
    pair,
)

X = np.random.default_rng(2).standard_normal((2, 3, 4))
MASK_2D = np.array([[True, False, True], [False, True, True]])
MASK_1D = np.array([True, False, True])

# Index objects are built per library (torch needs torch tensors).
KEYS = {
    "int": lambda m: 0,
    "negative-int": lambda m: -1,
    "ints": lambda m: (1, 2, 3),
    "numpy-int": lambda m: np.int64(1),
    "0d-int-tensor": lambda m: m.tensor(1),
    "slice": lambda m: slice(0, 1),
    "full-slice-alone": lambda m: slice(None),
    "full-slices-in-tuple": lambda m: (slice(None), slice(None)),
    "explicit-full-slice-in-tuple": lambda m: (slice(None), slice(0, 3)),
    "slice-stop-past-end-in-tuple": lambda m: (slice(None), slice(0, 10)),
    "slice-negative-start-in-tuple": lambda m: (slice(None), slice(-3, None)),
    "slice-step": lambda m: (Ellipsis, slice(None, None, 2)),
    "slice-empty": lambda m: slice(2, 1),
    "slice-tensor-bounds": lambda m: (slice(None), slice(m.tensor(0), m.tensor(2))),
    "int-then-slice": lambda m: (0, slice(1, 3)),
    "ellipsis": lambda m: Ellipsis,
    "ellipsis-int": lambda m: (Ellipsis, 1),
    "int-ellipsis-int": lambda m: (0, Ellipsis, 1),
    "none": lambda m: None,
    "none-ellipsis-none": lambda m: (None, Ellipsis, None),
    "slice-none-slice": lambda m: (slice(None), None, slice(1, None)),
    "true": lambda m: True,
    "false": lambda m: False,
    "0d-bool-tensor": lambda m: m.tensor(True),
    "list": lambda m: [0, 1, 0],
    "list-repeated-negative": lambda m: [-1, -1, 0],
    "empty-list": lambda m: [],
    "long-tensor": lambda m: m.tensor([1, 0]),
    "int32-tensor": lambda m: m.tensor([1, 1], dtype=m.int32),
    "2d-index": lambda m: m.tensor([[0, 1], [1, 1]]),
    "numpy-index": lambda m: np.array([1, 0, 1]),
    "tuple-inside-tuple": lambda m: ((0, 1),),
    "list-inside-tuple": lambda m: ([0, 1],),
    "two-adjacent-lists": lambda m: (slice(None), [0, 1], [1, 2]),
    "two-lists-split-by-slice": lambda m: ([0, 1], slice(None), [1, 2]),
    "two-lists-split-by-ellipsis": lambda m: ([0, 1], Ellipsis, [1, 2]),
    "lists-broadcast": lambda m: ([[0], [1]], [[0, 1, 2]]),
    "int-then-list-after-slice": lambda m: (0, slice(None), [1, 2]),
    "list-then-int": lambda m: ([0, 1], 1),
    "list-int-list": lambda m: ([0, 1], 1, [0, 1]),
    "slice-list-int": lambda m: (slice(None), [0, 1], 1),
    "list-none-list": lambda m: ([0, 1], None, [0, 1]),
    "int-list-slice-none": lambda m: (1, [0, 1], slice(None), None),
    "slice-list-none": lambda m: (slice(1, None), [0, 2], None),
    "mask-2d": lambda m: m.tensor(MASK_2D),
    "mask-inner-dim": lambda m: (slice(None), m.tensor(MASK_1D)),
    "mask-then-int": lambda m: (m.tensor(MASK_2D), 0),
    "int-mask-list": lambda m: (0, m.tensor(MASK_1D), [1, 2]),
    "bool-list": lambda m: [True, False],
    "all-false-mask": lambda m: m.tensor([False, False]),
    "range": lambda m: range(2),
    "range-then-int": lambda m: (range(1, -1, -1), 1),
    "slice-range": lambda m: (slice(None), range(-1, 1)),
    "empty-range": lambda m: range(0),
}


@pytest.mark.parametrize("key", list(KEYS))
def test_getitem_matches_torch_in_values_shape_grad_fn_and_grads(key):
    make = KEYS[key]
    assert_matches_torch(lambda m, x: x[make(m)] * 1.5, X)
    assert_matches_torch(lambda m, x: x[make(m)], X)


@pytest.mark.parametrize("key", list(KEYS))
def test_getitem_forward_and_taylor_mode_match_torch(key):
    make = KEYS[key]
    assert_forward_modes_match_torch(lambda m, x: x[make(m)], X)


def test_getitem_with_a_data_dependent_mask_matches_torch():
    assert_matches_torch(lambda m, x: x[x > 0] ** 2, X)


@pytest.mark.parametrize(
    "key",
    [
        lambda m: None,
        lambda m: Ellipsis,
        lambda m: True,
        lambda m: (None, Ellipsis),
        lambda m: m.tensor(True),
    ],
    ids=["none", "ellipsis", "true", "none-ellipsis", "0d-bool-tensor"],
)
def test_getitem_on_a_0d_tensor_matches_torch(key):
    assert_matches_torch(lambda m, x: x[key(m)], np.array(1.25))


def test_repeated_indices_accumulate_their_gradients():
    x = lg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 1.0])


def test_backward_of_indexing_is_differentiable_and_its_backward_gathers():
    x = lg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    g = lg.tensor([1.0, 10.0, 100.0], requires_grad=True)
    y = x[[2, 2, 0]]
    (gx,) = lg.autograd.grad(y, x, g, create_graph=True)
    np.testing.assert_array_equal(gx.detach().numpy(), [100.0, 0.0, 11.0])
    assert gx.grad_fn.name() == "IndexPutImplBackward0"
    (gg,) = lg.autograd.grad(gx, g, lg.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(gg.numpy(), [3.0, 3.0, 1.0])


def test_backward_of_select_and_slice_is_differentiable_with_torch_names():
    x, tx = pair(X)
    for key in (1, slice(1, 3)):
        ours, theirs = x[key], tx[key]
        g, tg = pair(np.ones(tuple(theirs.shape)))
        (a,) = lg.autograd.grad(ours, x, g, create_graph=True)
        (b,) = torch.autograd.grad(theirs, tx, tg, create_graph=True)
        assert a.grad_fn.name() == b.grad_fn.name()
        assert_same(a, b)


def test_integer_and_bool_tensors_can_be_indexed_without_grad():
    x, tx = pair(np.arange(12).reshape(3, 4))
    for key in (1, (slice(None), [0, 0]), (Ellipsis, None)):
        assert_same(x[key], tx[key])
    assert x[x > 5].tolist() == tx[tx > 5].tolist()


def test_uint8_index_is_a_deprecated_mask_like_torch():
    x, tx = pair(X)
    mask = np.array([1, 0], dtype=np.uint8)
    with pytest.warns(UserWarning):
        theirs = tx[torch.tensor(mask)]
    with pytest.warns(UserWarning, match="uint8"):
        ours = x[lg.tensor(mask)]
    assert_same(ours, theirs)


def test_list_holding_slices_is_a_deprecated_tuple_index_like_torch():
    x, tx = pair(X)
    with pytest.warns(UserWarning):
        theirs = tx[[0, slice(None), 1]]
    with pytest.warns(UserWarning, match="tuple"):
        ours = x[[0, slice(None), 1]]
    assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint32, np.uint64])
@pytest.mark.parametrize("index", [[1, 0, 1], [[-1, 0], [1, -2]]], ids=["1d", "2d-negative"])
def test_one_index_tensor_indexes_as_the_same_tensor_in_a_tuple(index, dtype):
    if np.asarray(index).min() < 0 and dtype in (np.uint32, np.uint64):
        index = np.abs(index) % 2  # (in range for dim 0, of size 2)
    x = lg.tensor(X, requires_grad=True)
    key = lg.tensor(np.asarray(index, dtype=dtype))
    alone, in_tuple = x[key], x[(key,)]
    np.testing.assert_array_equal(alone.detach().numpy(), in_tuple.detach().numpy(), strict=True)
    assert alone.grad_fn.name() == in_tuple.grad_fn.name() == "IndexBackward0"
    for a, b in zip(alone.grad_fn._saved_indices, in_tuple.grad_fn._saved_indices):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), strict=True)
    (ga,) = lg.autograd.grad(alone.sum(), x, retain_graph=True)
    (gb,) = lg.autograd.grad(in_tuple.sum(), x, retain_graph=True)
    np.testing.assert_array_equal(ga.numpy(), gb.numpy(), strict=True)
    key[0] = 0  # changed in place: both backwards refuse, as PyTorch's
    for out in (alone, in_tuple):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


@pytest.mark.parametrize("bad", [[0, 2], [-3]], ids=["too-high", "too-low"])
def test_one_out_of_range_index_tensor_raises_as_in_a_tuple(bad):
    x = lg.tensor(X)
    with pytest.raises(IndexError) as alone:
        x[lg.tensor(bad)]
    with pytest.raises(IndexError) as in_tuple:
        x[(lg.tensor(bad),)]
    assert str(alone.value) == str(in_tuple.value)


def test_plain_int_list_index_does_not_warn():
    x = lg.tensor(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x[[0, 1]].shape == (2, 3, 4)


# ----- gather / take_along_dim / index_select / masked_fill -----

FN_CASES = {
    "gather-dim-0": (lambda m, x: x.gather(0, m.tensor([[[1, 0, 1, 1]], [[0, 0, 0, 1]]])), X),
    "gather-smaller-index": (lambda m, x: m.gather(x, 2, m.tensor([[[3, 3]], [[0, 1]]])), X),
    "gather-negative-dim-int32": (
        lambda m, x: x.gather(-1, m.tensor([[1, 1, 0]], dtype=m.int32)),
        X[0],
    ),
    "gather-0d": (lambda m, x: x.gather(0, m.tensor([0, 0])), np.array(0.5)),
    "take_along_dim": (lambda m, x: m.take_along_dim(x, m.tensor([[[2]], [[0]]]), dim=1), X),
    "take_along_dim-broadcast": (
        lambda m, x: m.take_along_dim(x, m.tensor([[[3, 0, 3, 0]]]), 2),
        X,
    ),
    "take_along_dim-flat": (lambda m, x: m.take_along_dim(x, m.tensor([[23, 0], [0, 5]])), X),
    "take_along_dim-method": (lambda m, x: x.take_along_dim(m.tensor([[1], [0], [3]]), 1), X[0]),
    "take": (lambda m, x: x.take(m.tensor([[0, -1], [5, 5]])), X),
    "take-0d": (lambda m, x: m.take(x, m.tensor([0, 0])), np.array(0.5)),
    "index_select": (lambda m, x: x.index_select(1, m.tensor([2, 0, 2])), X),
    "index_select-negative-dim": (lambda m, x: m.index_select(x, -1, m.tensor([3])), X),
    "index_select-0d-index": (lambda m, x: x.index_select(0, m.tensor(1)), X),
    "index_select-int32": (lambda m, x: x.index_select(0, m.tensor([1, 1], dtype=m.int32)), X),
    "index_select-empty": (lambda m, x: x.index_select(2, m.tensor([], dtype=m.int64)), X),
    "index_select-0d-input": (lambda m, x: x.index_select(0, m.tensor([0])), np.array(0.5)),
    "masked_fill": (lambda m, x: x.masked_fill(x > 0, 0.5), X),
    "masked_fill-function": (lambda m, x: m.masked_fill(x, m.tensor(MASK_1D)[:, None], -2.0), X[0]),
    "masked_fill-mask-broadcasts-input": (
        lambda m, x: x.masked_fill(m.tensor(MASK_2D)[..., None], 1.0),
        X[0, :1],
    ),
    "masked_fill-tensor-value": (lambda m, x, v: x.masked_fill(x < 0, v), X, np.array(3.0)),
    "masked_fill-tensor-value-no-grad": (lambda m, x: x.masked_fill(x < 0, m.tensor(3.0)), X),
    "masked_fill-float-into-int": (
        lambda m, x: x.masked_fill(m.tensor(MASK_1D), 1.7),
        np.arange(3),
    ),
}


@pytest.mark.parametrize("case", list(FN_CASES))
def test_index_function_matches_torch_in_values_grad_fn_and_grads(case):
    fn, *arrays = FN_CASES[case]
    assert_matches_torch(fn, *arrays)


@pytest.mark.parametrize("case", list(FN_CASES))
def test_index_function_forward_and_taylor_mode_match_torch(case):
    fn, *arrays = FN_CASES[case]
    assert_forward_modes_match_torch(fn, *arrays)


def test_gather_index_select_and_take_along_dim_accumulate_repeated_indices():
    x = lg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x.gather(1, lg.tensor([[0, 0, 0], [1, 0, 1]])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3.0, 0.0], [1.0, 2.0]])
    x.grad = None
    x.index_select(0, lg.tensor([1, 1, 0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0], [2.0, 2.0]])


def test_scatter_backwards_have_torch_names_and_gather_back():
    x, tx = pair(X[0])
    idx = [[0, 0, 2], [1, 0, 0]]
    for op, args in (("gather", (1, idx)), ("index_select", (0, [1, 1]))):
        ours = getattr(x, op)(args[0], lg.tensor(args[1]))
        theirs = getattr(tx, op)(args[0], torch.tensor(args[1]))
        g, tg = pair(np.arange(float(theirs.numel())).reshape(tuple(theirs.shape)))
        (a,) = lg.autograd.grad(ours, x, g, create_graph=True)
        (b,) = torch.autograd.grad(theirs, tx, tg, create_graph=True)
        assert a.grad_fn.name() == b.grad_fn.name()
        assert_same(a, b)
        (aa,) = lg.autograd.grad(a, g, lg.ones_like(a))
        (bb,) = torch.autograd.grad(b, tg, torch.ones_like(b))
        assert_same(aa, bb)


def test_take_is_one_node_saving_its_index_and_its_backward_puts_as_in_torch():
    x, tx = pair(X[0])
    ours, theirs = x.take(lg.tensor([4, -1, 4])), tx.take(torch.tensor([4, -1, 4]))
    assert ours.grad_fn._saved_index.tolist() == theirs.grad_fn._saved_index.tolist()
    assert ours.grad_fn._saved_self.shape == theirs.grad_fn._saved_self.shape
    g, tg = pair(np.array([1.0, 2.0, 3.0]))
    (a,) = lg.autograd.grad(ours, x, g, create_graph=True)
    (b,) = torch.autograd.grad(theirs, tx, tg, create_graph=True)
    assert a.grad_fn.name() == b.grad_fn.name() == "PutBackward0"
    assert_same(a, b)


def test_masked_fill_keeps_the_input_dtype_with_a_wider_value_tensor():
    x = lg.zeros(2, dtype=lg.float32, requires_grad=True)
    v = lg.tensor(2.0, dtype=lg.float64, requires_grad=True)
    y = x.masked_fill(lg.tensor([True, False]), v)
    assert y.dtype == lg.float32 and y.grad_fn.name() == "MaskedFillBackward1"
    y.sum().backward()
    assert v.grad.dtype == lg.float64 and v.grad.item() == 1.0
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0])


@pytest.mark.parametrize(
    "array",
    [
        X > 0,
        np.array([[0.0, 1.5], [-2.0, 0.0]]),
        np.array(5.0),
        np.array(0.0),
        np.zeros((0, 2)),
        np.arange(4),
    ],
    ids=["bool-3d", "float-2d", "0d-nonzero", "0d-zero", "empty", "int-1d"],
)
def test_nonzero_matches_torch_in_both_forms(array):
    x, tx = pair(array, requires_grad=False)
    assert_same(lg.nonzero(x), torch.nonzero(tx))
    assert_same(x.nonzero(), tx.nonzero())
    ours, theirs = lg.nonzero(x, as_tuple=True), torch.nonzero(tx, as_tuple=True)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_same(a, b)


def test_nonzero_of_a_tensor_requiring_grad_is_an_int64_constant():
    x = lg.tensor([0.0, 1.0, 2.0], requires_grad=True)
    out = x.nonzero()
    assert out.dtype == lg.int64 and not out.requires_grad and out.tolist() == [[1], [2]]


# ----- errors: the exception type torch raises, with a message naming the op -----

ERRORS = {
    "int-out-of-range": (lambda m, x: x[3], "select"),
    "negative-int-out-of-range": (lambda m, x: x[-3], "select"),
    "int-in-tuple-out-of-range": (lambda m, x: x[:, 3], "select"),
    "too-many-indices": (lambda m, x: x[0, 0, 0, 0], "too many indices"),
    "too-many-with-lists": (lambda m, x: x[[0], [0], [0], [0]], "too many indices"),
    "negative-step": (lambda m, x: x[::-1], "step"),
    "zero-step": (lambda m, x: x[::0], "step"),
    "float-slice-bound": (lambda m, x: x[:, 0:2.0], None),
    "list-out-of-range": (lambda m, x: x[[3]], "out of bounds"),
    "list-negative-out-of-range": (lambda m, x: x[[0, -3]], "out of bounds"),
    "float-index-tensor": (lambda m, x: x[m.tensor([0.0, 1.0])], "long, int, byte or bool"),
    "int8-index-tensor": (lambda m, x: x[m.tensor([1, 0], dtype=m.int8)], "long, int, byte"),
    "mask-wrong-shape": (lambda m, x: x[m.tensor(MASK_1D)], "mask"),
    "mask-wrong-shape-inner": (lambda m, x: x[:, m.tensor([True, False])], "mask"),
    "float-index": (lambda m, x: x[1.5], "float"),
    "unbroadcastable-lists": (lambda m, x: x[[0, 1], [0, 1, 2]], "broadcast"),
    "int-on-0d": (lambda m, x: x[0, 0, 0][0], "0-dim"),
    "slice-on-0d": (lambda m, x: x[0, 0, 0][:], "0-dim"),
    "select-dim-out-of-range": (lambda m, x: m.select(x, 3, 0), "select"),
    "gather-index-out-of-range": (lambda m, x: x.gather(0, m.tensor([[[5, 0, 0, 0]]])), "gather"),
    "gather-negative-index": (lambda m, x: x.gather(0, m.tensor([[[-1]]])), "gather"),
    "gather-index-fewer-dims": (lambda m, x: x.gather(0, m.tensor([[0]])[0]), "gather"),
    "gather-index-larger-outside-dim": (
        lambda m, x: x.gather(0, m.zeros(1, 4, 4, dtype=m.int64)),
        "gather",
    ),
    "gather-float-index": (lambda m, x: x.gather(0, m.zeros(1, 3, 4)), "gather"),
    "gather-dim-out-of-range": (
        lambda m, x: x.gather(3, m.zeros(1, 3, 4, dtype=m.int64)),
        "gather",
    ),
    "take_along_dim-fewer-dims": (
        lambda m, x: m.take_along_dim(x, m.tensor([0]), 1),
        "take_along_dim",
    ),
    "take_along_dim-int32": (
        lambda m, x: m.take_along_dim(x, m.zeros(1, 1, 1, dtype=m.int32), 1),
        "take_along_dim",
    ),
    "index_select-out-of-range": (lambda m, x: x.index_select(0, m.tensor([2])), "index_select"),
    "index_select-negative": (lambda m, x: x.index_select(0, m.tensor([-1])), "index_select"),
    "index_select-2d-index": (lambda m, x: x.index_select(0, m.tensor([[0]])), "index_select"),
    "index_select-float-index": (lambda m, x: x.index_select(0, m.tensor([1.0])), "index_select"),
    "index_select-list-index": (lambda m, x: x.index_select(0, [1]), "index_select"),
    "masked_fill-float-mask": (lambda m, x: x.masked_fill(m.ones(2, 3, 4), 0.0), "masked_fill"),
    "masked_fill-unbroadcastable-mask": (
        lambda m, x: x.masked_fill(m.ones(3, dtype=m.bool), 0.0),
        "masked_fill",
    ),
    "masked_fill-1d-value": (lambda m, x: x.masked_fill(x > 0, m.tensor([1.0])), "masked_fill"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_indexing_raises_torchs_exception_type_naming_the_op(case):
    fn, match = ERRORS[case]
    assert_same_error(fn, X, match=match)
