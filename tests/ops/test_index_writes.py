"""index_add / index_copy / index_fill / index_reduce / index_put / put / masked_scatter and
addmv / addr / baddbmm / addbmm, with their in-place twins, against PyTorch: values,
dtypes, derivatives to second order (float64) and errors."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close

rng = np.random.default_rng(21)
X, S = rng.standard_normal((3, 2)), rng.standard_normal((2, 2))


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


CASES = {
    "index_add": lambda m, x, s: m.index_add(x, 0, m.tensor([2, 2]), s, alpha=2),
    "index_add-dim1": lambda m, x, s: x.index_add(1, m.tensor([1, 0]), s[:1].expand(3, 2)),
    "index_add-int32": lambda m, x, s: x.index_add(0, m.tensor([0, 1], dtype=m.int32), s),
    "index_copy": lambda m, x, s: m.index_copy(x, 0, m.tensor([2, 0]), s),
    "index_fill-tensor": lambda m, x, s: m.index_fill(x, 1, m.tensor([1]), s[0, 0]),
    "index_fill-negative": lambda m, x, s: x.index_fill(0, m.tensor([-1]), 0.5) * s.sum(),
    "index_reduce-prod": lambda m, x, s: m.index_reduce(x, 0, m.tensor([0, 2]), s, "prod"),
    "index_reduce-mean": lambda m, x, s: x.index_reduce(
        0, m.tensor([1, 1]), s, "mean", include_self=False
    ),
    "index_reduce-amax": lambda m, x, s: x.index_reduce(0, m.tensor([1, 0]), s, "amax"),
    "index_put": lambda m, x, s: m.index_put(x, (m.tensor([0, 2]),), s),
    "index_put-accumulate": lambda m, x, s: x.index_put(
        (m.tensor([0, 0]), m.tensor([1, 1])), s[0], accumulate=True
    ),
    "index_put-mask": lambda m, x, s: x.index_put((x > 0,), s[0, 0]),
    "put": lambda m, x, s: m.put(x, m.tensor([0, -1, 3, 4]), s.reshape(4)),
    "put-accumulate": lambda m, x, s: x.put(m.tensor([[0, 0], [1, 5]]), s, accumulate=True),
    "masked_scatter": lambda m, x, s: m.masked_scatter(x, x > 0, s),
    "masked_scatter-broadcast": lambda m, x, s: x[:1].masked_scatter(
        m.tensor([[True], [False], [True]]), s
    ),
    "index_add_": lambda m, x, s: (x * 1).index_add_(0, m.tensor([2, 0]), s, alpha=-1) * x,
    "index_copy_": lambda m, x, s: (x * 1).index_copy_(0, m.tensor([2, 0]), s) * x,
    "index_fill_": lambda m, x, s: (x * 1).index_fill_(0, m.tensor([2]), s[0, 1]) * x,
    "index_reduce_": lambda m, x, s: (
        (x * 1).index_reduce_(0, m.tensor([2, 0]), s, "amin", include_self=False) * x
    ),
    "index_put_": lambda m, x, s: (x * 1).index_put_((m.tensor([1]),), s[0], accumulate=True) * x,
    "torch.index_put_": lambda m, x, s: m.index_put_(x * 1, (m.tensor([1]),), s[0]) * x,
    "put_": lambda m, x, s: (x * 1).put_(m.tensor([1]), s[0, :1]) * x,
    "masked_scatter_": lambda m, x, s: (x * 1).masked_scatter_(x < 0, s) * x,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_torch(name, torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # index_reduce is in beta: both warn
        compare(CASES[name], [X, S], torch=torch)


A, VEC, IN = rng.standard_normal((3, 4)), rng.standard_normal((4,)), rng.standard_normal((3,))
NAN_IN = np.where(np.arange(3) == 0, np.nan, IN)
B1, B2, M = (
    rng.standard_normal((2, 3, 4)),
    rng.standard_normal((2, 4, 3)),
    rng.standard_normal((3, 3)),
)

PRODUCTS = {
    "addmv": (lambda m, i, a, v: m.addmv(i, a, v, beta=0.5, alpha=2), [IN, A, VEC]),
    "addmv-beta0-ignores-nan": (lambda m, i, a, v: m.addmv(i, a, v, beta=0), [NAN_IN, A, VEC]),
    "addmv-broadcast": (lambda m, i, a, v: m.addmv(i[:1], a, v), [IN, A, VEC]),
    "addmv_": (lambda m, i, a, v: (i * 1).addmv_(a, v, alpha=-1) * i, [IN, A, VEC]),
    "torch.addmv_": (lambda m, i, a, v: m.addmv_(i * 1, a, v) * i, [IN, A, VEC]),
    "addr": (lambda m, i, a, v: m.addr(a, i, v, beta=2), [IN, A, VEC]),
    "addr_": (lambda m, i, a, v: (a * 1).addr_(i, v, alpha=3) * a, [IN, A, VEC]),
    "baddbmm": (lambda m, i, b1, b2: m.baddbmm(i, b1, b2, beta=-1), [M, B1, B2]),
    "baddbmm_": (lambda m, i, b1, b2: (b1 @ b2).baddbmm_(b1, b2), [M, B1, B2]),
    "addbmm": (lambda m, i, b1, b2: m.addbmm(i, b1, b2, alpha=0.5), [M, B1, B2]),
    "addbmm_": (lambda m, i, b1, b2: (i * 1).addbmm_(b1, b2) * i, [M, B1, B2]),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_scaled_products_match_torch(name, torch):
    fn, arrays = PRODUCTS[name]
    compare(fn, arrays, torch=torch)


ONE_NODE = {
    "addmv": (lambda m, i, a, v: m.addmv(i, a, v, beta=0.5, alpha=2), [IN, A, VEC]),
    "addmv_": (lambda m, i, a, v: (i * 1).addmv_(a, v), [IN, A, VEC]),
    "addr": (lambda m, i, a, v: m.addr(a, i, v, beta=0), [IN, A, VEC]),
    "addr_": (lambda m, i, a, v: (a * 1).addr_(i, v, alpha=3), [IN, A, VEC]),
    "baddbmm": (lambda m, i, b1, b2: m.baddbmm(i, b1, b2, beta=-1), [M, B1, B2]),
    "baddbmm_": (lambda m, i, b1, b2: (b1 @ b2).baddbmm_(b1, b2, alpha=0.5), [M, B1, B2]),
}


@pytest.mark.parametrize("name", sorted(ONE_NODE))
def test_scaled_products_are_one_node_saving_what_torch_saves(name, torch):
    fn, arrays = ONE_NODE[name]
    ours = fn(lg, *(lg.tensor(a, requires_grad=True) for a in arrays))
    theirs = fn(torch, *(torch.tensor(a, requires_grad=True) for a in arrays))
    node, tnode = ours.grad_fn, theirs.grad_fn
    assert node.name() == tnode.name()
    assert (node._saved_alpha, node._saved_beta) == (tnode._saved_alpha, tnode._saved_beta)
    saved = [
        a
        for a in dir(tnode)
        if a.startswith("_saved_") and a not in ("_saved_alpha", "_saved_beta")
    ]
    for attr in saved:
        assert getattr(node, attr).shape == getattr(tnode, attr).shape
    compare(fn, arrays, torch=torch)


EXACT = [
    lambda m: m.zeros(3, dtype=m.int64).index_fill(0, m.tensor([1]), 2.5),
    lambda m: m.zeros(3, 2, dtype=m.int64).index_add(0, m.tensor([1, 1]), m.ones(2, 2).long()),
    lambda m: m.zeros(()).index_add(0, m.tensor([0]), m.tensor(2.0)),
    lambda m: m.zeros(3, 2).index_add(1, m.tensor(1), m.ones(3, 1)),
    lambda m: m.zeros(3).put_(m.tensor([0, 2]), m.tensor([1.0, 2.0])),
    lambda m: m.zeros(3).masked_scatter_(m.tensor([True, False, True]), m.arange(6.0).view(2, 3)),
    lambda m: m.zeros(2, 1).masked_scatter(m.tensor([True, False, True]), m.arange(6.0)),
    lambda m: m.addmv(m.tensor([1, 2]), m.tensor([[1, 2], [3, 4]]), m.tensor([1, 1]), beta=2),
    lambda m: m.index_put(m.zeros(3, 2), [m.tensor([0, 1]), m.tensor([1, 0])], m.tensor(5.0)),
]


@pytest.mark.parametrize("call", EXACT)
def test_exact_values_and_dtypes_match_torch(call, torch):
    ours, theirs = call(lg), call(torch)
    assert str(ours.dtype) == str(theirs.dtype) and ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_index_reduce_warns_that_it_is_in_beta(fresh_warnings):
    with pytest.warns(UserWarning, match="beta"):
        lg.zeros(2).index_reduce(0, lg.tensor([0]), lg.ones(1), "amax")


ERRORS = [
    lambda m: m.zeros(3, 2).index_add(0, m.tensor([0.0, 1.0]), m.ones(2, 2)),
    lambda m: m.zeros(3, 2).index_add(0, m.tensor([[0, 1]]), m.ones(2, 2)),
    lambda m: m.zeros(3, 2).index_add(0, m.tensor([0, 3]), m.ones(2, 2)),
    lambda m: m.zeros(3, 2).index_add(0, m.tensor([0]), m.ones(2, 2)),
    lambda m: m.zeros(3, 2).index_add(0, m.tensor([0, 1]), m.ones(2, 3)),
    lambda m: m.zeros(3, 2).index_add(0, m.tensor([0, 1]), m.ones(2, 2, dtype=m.float64)),
    lambda m: m.zeros(3, 2).index_copy(0, m.tensor([0, 3]), m.ones(2, 2)),
    lambda m: m.zeros(3, 2).index_copy(0, m.tensor([0, 1]), m.ones(2, 2, dtype=m.float64)),
    lambda m: m.zeros(3, 2).index_copy(0, m.tensor([0]), m.ones(2, 2)),
    lambda m: m.zeros(3, 2).index_fill(0, m.tensor([3]), 1.0),
    lambda m: m.zeros(3, 2).index_fill(0, m.tensor([1]), m.tensor([2.0])),
    lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([0, 1]), m.ones(2, 2), "sum"),
    lambda m: m.zeros(3, 2).index_reduce(0, m.tensor([0, 3]), m.ones(2, 2), "amax"),
    lambda m: m.zeros(3, 2).index_put((m.tensor([0]),), m.tensor(1.0, dtype=m.float64)),
    lambda m: m.zeros(3, 2).index_put((m.tensor([5]),), m.tensor(1.0)),
    lambda m: m.zeros(3, 2).index_put((m.tensor([0.0]),), m.tensor(1.0)),
    lambda m: m.zeros(3, 2).index_put(m.tensor([0]), m.tensor(1.0)),
    lambda m: m.zeros(3, 2).put(m.tensor([6]), m.tensor([1.0])),
    lambda m: m.zeros(3, 2).put(m.tensor([1, 2]), m.tensor([1.0])),
    lambda m: m.zeros(3, 2).put(m.tensor([1]), m.tensor([1.0], dtype=m.float64)),
    lambda m: m.zeros(3, 2).put(m.tensor([1.0]), m.tensor([1.0])),
    lambda m: m.zeros(3).masked_scatter_(m.tensor([True, True, True]), m.ones(2)),
    lambda m: m.zeros(3).masked_scatter_(m.tensor([1, 1, 1]), m.ones(3)),
    lambda m: m.zeros(3).masked_scatter_(m.tensor([True] * 3), m.ones(3, dtype=m.float64)),
    lambda m: m.zeros(3).masked_scatter_(m.tensor([[True, False, True]]), m.arange(6.0)),
    lambda m: m.zeros(3, requires_grad=True).index_add_(0, m.tensor([0]), m.ones(1)),
    lambda m: m.addmv(m.zeros(2), m.ones(2, 3), m.ones(2)),
    lambda m: m.addr(m.zeros(2, 2), m.ones(2, 1), m.ones(2)),
    lambda m: m.baddbmm(m.zeros(2, 2), m.ones(2, 2, 3), m.ones(3, 3, 2)),
    lambda m: m.addbmm(m.zeros(3, 3), m.ones(2, 2, 3), m.ones(2, 3, 2)),
    lambda m: m.addmv(m.zeros(2), m.ones(2, 3), m.ones(3, dtype=m.float64)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_bad_calls_raise_torchs_exception_type(call, torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(Exception) as theirs:
            call(torch)
        with pytest.raises(theirs.type):
            call(lg)


# One node each, named and saving as PyTorch's; the in-place twins record the same node.
NODES = {
    "index_add": (lambda m, x, s: x.index_add(0, m.tensor([2, 2]), s, alpha=2), "dim alpha"),
    "index_add_": (lambda m, x, s: (x * 1).index_add_(1, m.tensor([1, 0]), s[:1].expand(3, 2)),),
    "index_add-0d": (lambda m, x, s: x[0, 0].index_add(0, m.tensor([0]), s[0, 0]), "dim"),
    "index_copy": (lambda m, x, s: m.index_copy(x, 0, m.tensor([2, 0]), s), "dim"),
    "index_copy_": (lambda m, x, s: (x * 1).index_copy_(0, m.tensor([1, 0]), s),),
    "index_fill": (lambda m, x, s: x.index_fill(1, m.tensor([-1]), 0.5), "dim"),
    "index_fill_": (lambda m, x, s: (x * 1).index_fill_(0, m.tensor([2, 0]), 1.5),),
    "index_fill-tensor": (lambda m, x, s: x.index_fill(0, m.tensor([1, 1]), s[0, 0]), "dim"),
    "index_fill_-tensor": (lambda m, x, s: (x * 1).index_fill_(1, m.tensor([0]), s[1, 1]),),
    "put": (lambda m, x, s: x.put(m.tensor([0, -1, 3, 4]), s.reshape(4)), "accumulate"),
    "put_": (lambda m, x, s: (x * 1).put_(m.tensor([[1], [1]]), s[0], accumulate=True),),
}


@pytest.mark.parametrize("name", sorted(NODES))
def test_each_write_is_one_node_as_in_torch(name, torch):
    fn, *saved = NODES[name]
    ours = fn(lg, *(lg.tensor(a, requires_grad=True) for a in (X, S)))
    theirs = fn(torch, *(torch.tensor(a, requires_grad=True) for a in (X, S)))
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    for attr in saved[0].split() if saved else ():
        assert getattr(ours.grad_fn, f"_saved_{attr}") == getattr(theirs.grad_fn, f"_saved_{attr}")
    if saved:
        assert ours.grad_fn._saved_index.tolist() == theirs.grad_fn._saved_index.tolist()
    compare(fn, [X, S], torch=torch)


def test_a_source_changed_in_place_makes_index_add_backward_raise_as_in_torch(torch):
    for m in (torch, lg):
        x, s = m.zeros(3, requires_grad=True), m.ones(2, requires_grad=True)
        source = s * 1
        y = x.index_add(0, m.tensor([0, 2]), source)
        source.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize(
    "make",
    [
        lambda m, x, v: x.masked_scatter(m.tensor([[True], [False], [True]]), v),
        lambda m, x, v: (x * 1).masked_scatter_(x > 0.5, v),
        lambda m, x, v: x.index_put((m.tensor([0, 2, 0]),), v[:2], accumulate=True),
        lambda m, x, v: (x * 1).index_put_((m.tensor([1, 1]),), v[:2], accumulate=True),
    ],
)
def test_masked_scatter_and_accumulating_index_put_record_one_node_as_pytorch(torch, make):
    rng = np.random.default_rng(3)
    x, v = rng.random((3, 2)), rng.random(6)
    outs = []
    for m in (lg, torch):
        xs, vs = m.tensor(x, requires_grad=True), m.tensor(v, requires_grad=True)
        out = make(m, xs, vs)
        (out * out).sum().backward()
        outs.append((out.grad_fn.name(), out.detach().numpy(), xs.grad.numpy(), vs.grad.numpy()))
    (ours, *ours_values), (theirs, *their_values) = outs
    assert ours == theirs
    for a, b in zip(ours_values, their_values):
        assert_close(a, b, "direct")
