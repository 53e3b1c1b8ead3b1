"""NumPy-style joins and splits, rotations, diagonals, take, contractions and combinatorics
against PyTorch: values, dtypes, first and second derivatives (float64), and errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

rng = np.random.default_rng(7)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _r(*shape):
    return rng.standard_normal(shape)


def _0d(x):
    """A 0-d view of a one-element input (``compare`` hands NumPy arrays of at least 1 dim)."""
    return x.reshape(())


def _weighted(outs):
    """A tuple of pieces, each scaled differently so every piece's gradient is distinct."""
    return tuple(p * (i + 1) for i, p in enumerate(outs))


CASES = {
    "atleast_1d-0d": (lambda m, x: m.atleast_1d(_0d(x)) * 2, [_r(1)]),
    "atleast_1d-several": (lambda m, x, y: m.atleast_1d(_0d(x), y), [_r(1), _r(3)]),
    "atleast_2d-list": (lambda m, x, y: m.atleast_2d([_0d(x), y]), [_r(1), _r(3)]),
    "atleast_3d-each-rank": (
        lambda m, a, b, c, d: m.atleast_3d(_0d(a), b, c, d),
        [_r(1), _r(3), _r(2, 3), _r(2, 1, 2, 1)],
    ),
    "vstack": (lambda m, x, y: m.vstack([x, y]), [_r(3), _r(2, 3)]),
    "row_stack": (lambda m, x, y: m.row_stack((x, y)), [_r(3), _r(3)]),
    "hstack-1d": (lambda m, x, y: m.hstack([x, y]), [_r(3), _r(2)]),
    "hstack-2d": (lambda m, x, y: m.hstack([x, y]), [_r(2, 3), _r(2, 1)]),
    "dstack": (lambda m, x, y, z: m.dstack([x, y, z]), [_r(2), _r(1, 2), _r(1, 2, 3)]),
    "column_stack": (lambda m, x, y, z: m.column_stack([x, y, z]), [_r(3), _r(3, 2), _r(3)]),
    "block_diag": (
        lambda m, a, b, c, d: m.block_diag(a, _0d(b), c, d),
        [_r(2, 2), _r(1), _r(3), _r(0, 2)],
    ),
    "block_diag-one": (lambda m, a: m.block_diag(a), [_r(2, 3)]),
    "tensor_split-sections": (lambda m, x: _weighted(m.tensor_split(x, 3, 1)), [_r(2, 7)]),
    "tensor_split-indices": (
        lambda m, x: _weighted(x.tensor_split([1, 5, 2, -1, 9])),
        [_r(7, 2)],
    ),
    "tensor_split-tensor": (
        lambda m, x: _weighted(m.tensor_split(x, m.tensor([1, 3]), dim=-1)),
        [_r(2, 5)],
    ),
    "tensor_split-0d-tensor": (
        lambda m, x: _weighted(m.tensor_split(x, m.tensor(2))),
        [_r(5)],
    ),
    "hsplit-1d": (lambda m, x: _weighted(m.hsplit(x, 2)), [_r(6)]),
    "hsplit-2d": (lambda m, x: _weighted(x.hsplit([1, 2])), [_r(2, 4)]),
    "vsplit": (lambda m, x: _weighted(m.vsplit(x, 2)), [_r(4, 3)]),
    "dsplit": (lambda m, x: _weighted(x.dsplit([1])), [_r(2, 2, 3)]),
    "fliplr": (lambda m, x: m.fliplr(x), [_r(2, 3, 2)]),
    "flipud": (lambda m, x: x.flipud(), [_r(3)]),
    "rot90-once": (lambda m, x: m.rot90(x), [_r(2, 3)]),
    "rot90-k": (
        lambda m, x: (m.rot90(x, 2, [1, 2]), x.rot90(-1, [2, 0]), m.rot90(x, 3), m.rot90(x, 4)),
        [_r(2, 3, 4)],
    ),
    "diag_embed": (lambda m, x: m.diag_embed(x), [_r(2, 3)]),
    "diag_embed-offset-dims": (
        lambda m, x: (m.diag_embed(x, 1, 0, 2), x.diag_embed(-2, -1, 0)),
        [_r(2, 3)],
    ),
    "diagflat": (lambda m, x: (m.diagflat(x), x.diagflat(-1), m.diagflat(x[0, 0])), [_r(2, 2)]),
    "take": (lambda m, x: m.take(x, m.tensor([[0, -1], [5, 2], [2, 2]])), [_r(2, 3)]),
    "take-0d": (lambda m, x: _0d(x).take(m.tensor([0, 0])), [_r(1)]),
    "inner": (lambda m, x, y: m.inner(x, y), [_r(2, 3), _r(4, 3)]),
    "inner-vector-and-0d": (lambda m, x, y: (m.inner(x, x), x.inner(_0d(y))), [_r(3), _r(1)]),
    "vdot": (lambda m, x, y: m.vdot(x, y) + x.vdot(x), [_r(4), _r(4)]),
    "tensordot-int": (lambda m, x, y: m.tensordot(x, y, 1), [_r(2, 3), _r(3, 4)]),
    "tensordot-lists": (
        lambda m, x, y: m.tensordot(x, y, dims=([0, 2], [2, 0])),
        [_r(2, 3, 4), _r(4, 5, 2)],
    ),
    "tensordot-zero-and-all": (
        lambda m, x, y: (m.tensordot(x, y, 0), m.tensordot(x, x, 2)),
        [_r(2, 3), _r(2)],
    ),
    "tensordot-tensor-dims": (
        lambda m, x, y: m.tensordot(x, y, dims=m.tensor([[1], [0]])),
        [_r(2, 3), _r(3, 2)],
    ),
    "cartesian_prod": (lambda m, x, y, z: m.cartesian_prod(x, y, z), [_r(3), _r(2), _r(2)]),
    "combinations": (
        lambda m, x: (m.combinations(x), m.combinations(x, 3), m.combinations(x, 2, True)),
        [_r(4)],
    ),
    "combinations-more-than-n": (lambda m, x: m.combinations(x, 4), [_r(3)]),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_derivatives_match_torch(name, torch):
    fn, arrays = CASES[name]
    compare(fn, arrays, torch=torch)


def test_atleast_nd_returns_the_tensor_itself_when_it_has_the_dims(torch):
    x = lg.ones(2, 3)
    assert lg.atleast_1d(x) is x and lg.atleast_2d(x) is x
    assert lg.atleast_1d() == () == torch.atleast_1d()
    assert isinstance(lg.atleast_2d([x]), tuple)


def test_a_single_cartesian_factor_is_returned_as_it_is():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    assert lg.cartesian_prod(x) is x


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.vstack([m.ones(2, dtype=m.int64), m.ones(2)]),
        lambda m: m.hstack([m.ones(2, dtype=m.int32), m.ones(2, dtype=m.int64)]),
        lambda m: m.block_diag(m.ones(2, dtype=m.int64), m.ones(1)),
        lambda m: m.block_diag(m.ones(2, dtype=m.int64), m.ones(1, dtype=m.int64)),
        lambda m: m.block_diag(),
        lambda m: m.column_stack([m.tensor([True, False]), m.tensor([1, 2])]),
        lambda m: m.tensordot(m.arange(6).reshape(2, 3), m.arange(3), 1),
        lambda m: m.inner(m.tensor(2), m.ones(3)),
        lambda m: m.vdot(m.arange(3), m.arange(3)),
        lambda m: m.take(m.arange(6).reshape(2, 3), m.tensor([4, -6])),
        lambda m: m.rot90(m.arange(6).reshape(2, 3), 1, (1, 0)),
        lambda m: m.diag_embed(m.tensor([[1, 2]]), 1),
        lambda m: m.diagflat(m.tensor([True, False])),
        lambda m: m.combinations(m.tensor([1, 2, 3]), 2, True),
        lambda m: m.combinations(m.tensor([1, 2, 3]), 0),
        lambda m: m.cartesian_prod(m.tensor([1, 2]), m.tensor([3])),
        lambda m: m.tril_indices(3, 4),
        lambda m: m.tril_indices(4, 3, -1, dtype=m.int32),
        lambda m: m.triu_indices(3, 3, 1),
        lambda m: m.triu_indices(2, 5, -3),
        lambda m: m.triu_indices(2, 3, 5),
        lambda m: m.tril_indices(0, 3),
        lambda m: m.hstack([m.tensor(1), m.tensor(2)]),
        lambda m: m.vstack([m.tensor(1), m.tensor(2)]),
        lambda m: m.dstack([m.tensor(1), m.tensor(2)]),
        lambda m: m.column_stack([m.tensor(1), m.tensor(2)]),
        lambda m: m.cat(m.tensor_split(m.arange(3), 5)),
        lambda m: m.tensor_split(m.arange(3), 5)[4],
        lambda m: m.diag_embed(m.ones(2, 0), 1),
        lambda m: m.take(m.ones(2), m.tensor([], dtype=m.int64)),
    ],
)
def test_integer_values_and_dtypes_match_torch(call, torch):
    ours, theirs = call(lg), call(torch)
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.vstack([]),
        lambda m: m.hstack([]),
        lambda m: m.dstack([]),
        lambda m: m.column_stack([]),
        lambda m: m.vstack(m.ones(2, 2)),
        lambda m: m.vstack([m.ones(2), m.ones(3)]),
        lambda m: m.column_stack([m.ones(2, 1, 1), m.ones(2)]),
        lambda m: m.atleast_1d(3.0),
        lambda m: m.block_diag(m.ones(2, 2, 2)),
        lambda m: m.tensor_split(m.arange(7), 0),
        lambda m: m.tensor_split(m.tensor(1.0), 1),
        lambda m: m.tensor_split(m.arange(7), m.tensor([[1]])),
        lambda m: m.tensor_split(m.arange(7), m.tensor([1.0])),
        lambda m: m.tensor_split(m.arange(7), (1,), dim=1),
        lambda m: m.hsplit(m.ones(2, 3), 2),
        lambda m: m.hsplit(m.tensor(1.0), 1),
        lambda m: m.vsplit(m.ones(3), 1),
        lambda m: m.dsplit(m.ones(2, 2), 1),
        lambda m: m.fliplr(m.ones(3)),
        lambda m: m.flipud(m.tensor(1.0)),
        lambda m: m.rot90(m.ones(2, 2), 1, [0]),
        lambda m: m.rot90(m.ones(2, 2), 1, [0, 0]),
        lambda m: m.rot90(m.ones(2, 2), 1, [0, -2]),
        lambda m: m.rot90(m.ones(3), 1, [0, 1]),
        lambda m: m.rot90(m.ones(2, 2), 1, [0, 2]),
        lambda m: m.diag_embed(m.tensor(2.0)),
        lambda m: m.diag_embed(m.ones(2), 0, 1, 1),
        lambda m: m.take(m.ones(2, 3), m.tensor([6])),
        lambda m: m.take(m.ones(2, 3), m.tensor([-7])),
        lambda m: m.take(m.ones(2, 3), m.tensor([1.0])),
        lambda m: m.take(m.ones(2, 3), m.tensor([1], dtype=m.int32)),
        lambda m: m.take(m.ones(0), m.tensor([0])),
        lambda m: m.inner(m.ones(2, 3), m.ones(2)),
        lambda m: m.inner(m.ones(3), m.ones(3, dtype=m.float64)),
        lambda m: m.vdot(m.ones(2, 2), m.ones(2, 2)),
        lambda m: m.vdot(m.ones(3), m.ones(2)),
        lambda m: m.vdot(m.ones(3), m.ones(3, dtype=m.float64)),
        lambda m: m.vdot(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool)),
        lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 2), 3),
        lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 2), -1),
        lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 2), dims=([0], [0])),
        lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 2), dims=([0, 1], [0])),
        lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 2), dims=([1, 1], [0, 0])),
        lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 2), dims=1.5),
        lambda m: m.tensordot(m.ones(2, 3), m.ones(3, dtype=m.float64), 1),
        lambda m: m.cartesian_prod(),
        lambda m: m.cartesian_prod(m.ones(2, 2)),
        lambda m: m.cartesian_prod(m.tensor(1.0), m.ones(2)),
        lambda m: m.cartesian_prod(m.tensor([1, 2]), m.tensor([1.5])),
        lambda m: m.combinations(m.ones(2, 2)),
        lambda m: m.combinations(m.ones(3), -1),
        lambda m: m.tril_indices(-1, 3),
        lambda m: m.triu_indices(3, -2),
        lambda m: m.tril_indices(3, 3, dtype=m.float32),
        lambda m: m.triu_indices(3, 3, dtype=m.bool),
    ],
)
def test_bad_arguments_raise_torchs_exception_type(call, torch):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)


def test_tensor_split_takes_pytorchs_keyword_spellings(torch):
    for m in (lg, torch):
        x = m.arange(7)
        assert [p.tolist() for p in m.tensor_split(x, sections=3)] == [[0, 1, 2], [3, 4], [5, 6]]
        assert [p.tolist() for p in x.tensor_split(indices=[2])] == [[0, 1], [2, 3, 4, 5, 6]]
        pieces = m.tensor_split(x, tensor_indices_or_sections=m.tensor(2))
        assert [p.tolist() for p in pieces] == [[0, 1, 2, 3], [4, 5, 6]]


@pytest.mark.parametrize(
    "call",
    [
        lambda m, out: m.vstack([m.ones(2), m.zeros(2)], out=out),
        lambda m, out: m.take(m.arange(6.0).reshape(2, 3), m.tensor([5, 0]), out=out),
        lambda m, out: m.tensordot(m.ones(2, 3), m.ones(3), 1, out=out),
        lambda m, out: m.inner(m.ones(2, 3), m.ones(3), out=out),
    ],
)
def test_out_receives_the_result(call, torch):
    results = []
    for m in (lg, torch):
        out = m.empty(0)
        assert call(m, out) is out
        results.append(out.numpy())
    np.testing.assert_array_equal(*results)


@pytest.mark.parametrize(
    ("k", "dims"), [(1, (0, 1)), (2, (1, 2)), (-1, (2, 0)), (0, (0, -1)), (7, (1, 0))]
)
def test_rot90_is_one_node_saving_k_and_dims_as_in_torch(k, dims, torch):
    x = _r(2, 3, 4)
    ours = lg.tensor(x, requires_grad=True).rot90(k, dims)
    theirs = torch.tensor(x, requires_grad=True).rot90(k, dims)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "Rot90Backward0"
    # PyTorch 2.13 shows a negative saved int as its unsigned 64-bit pattern; leafgrad the int
    assert ours.grad_fn._saved_k % 2**64 == theirs.grad_fn._saved_k
    assert [d % 2**64 for d in ours.grad_fn._saved_dims] == list(theirs.grad_fn._saved_dims)
    compare(lambda m, x: m.rot90(x, k, dims), [x], torch=torch)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_plain_backward_views_and_legacy_empties_match_torch(dim, torch):
    rng = np.random.default_rng(1)
    parts = [rng.standard_normal(s).astype(np.float32) for s in [(3, 4), (0,), (3, 4), (3, 4)]]
    if dim != 0:
        parts[2] = rng.standard_normal((3, 2)).astype(np.float32)
    weight = None
    grads = []
    for m in (lg, torch):
        leaves = [m.tensor(p, requires_grad=k != 3) for k, p in enumerate(parts)]
        out = m.cat(leaves, dim)
        if weight is None:
            weight = rng.standard_normal(tuple(out.shape)).astype(np.float32)
        (out * m.tensor(weight)).sum().backward()  # a plain backward: the rule on arrays
        assert out.grad_fn.name() == "CatBackward0"
        grads.append([None if t.grad is None else t.grad.numpy() for t in leaves])
    for ours, theirs in zip(*grads):
        if theirs is None:
            assert ours is None
        else:
            assert ours.shape == theirs.shape
            np.testing.assert_array_equal(ours, theirs)
