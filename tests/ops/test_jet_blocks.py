"""The fused Taylor path's kernels over row blocks (ops/jet_blocks.py) give bit-identical
results to the whole arrays, for every layout and activation, in float32 and float64
(a whole network over blocks, jet_dense included: tests/autograd/test_taylor_dense.py)."""

import itertools

import numpy as np
import pytest

from leafgrad.ops import jet_activations as ja
from leafgrad.ops import jet_blocks
from leafgrad.ops import jet_kernels as jk

# (first, weights): Burgers' collapsed u_xx, a d=4 Laplacian, several rows, a direction no
# row weighs, rows weighing nothing, first order only.
LAYOUTS = {
    "collapsed": (2, ((1.0, 0.0),)),
    "laplacian": (4, ((1.0, 1.0, 1.0, 1.0),)),
    "mixed": (3, ((0.5, -1.5, 0.0), (2.0, 0.25, 1.0))),
    "sparse": (3, ((1.0, 0.0, 2.0),)),
    "zero": (2, ((0.0, 0.0),)),
    "first-only": (3, ()),
}
DTYPES = [np.float32, np.float64]
ROWS, FEATURES = 37, 5  # 37 rows: blocks of 4 leave a short last one


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of one row; the list of how many blocks each kernel call ran over."""
    monkeypatch.setattr(jet_blocks, "BLOCK_BYTES", 1)
    counts, blocks = [], jet_blocks.blocks

    def counted(*args, **kwargs):
        rows = blocks(*args, **kwargs)
        counts.append(len(rows))
        return rows

    monkeypatch.setattr(jet_blocks, "blocks", counted)
    return counts


def _whole(monkeypatch):
    monkeypatch.setattr(jet_blocks, "BLOCK_BYTES", 1 << 60)


def _arrays(layout, dtype, seed=0):
    first, weights = LAYOUTS[layout]
    rng = np.random.default_rng(seed)
    k = first + len(weights)
    p = rng.standard_normal((k, ROWS, FEATURES)).astype(dtype)
    grad = rng.standard_normal((k, ROWS, FEATURES)).astype(dtype)
    x = rng.uniform(-2, 2, (ROWS, FEATURES)).astype(dtype)
    return first, weights, p, grad, x


def _assert_identical(blocked, whole):
    for b, w in zip(blocked, whole, strict=True):
        assert b.dtype == w.dtype and b.shape == w.shape
        assert np.array_equal(b, w)


def test_row_blocks_cover_every_row_once(monkeypatch):
    jet = np.zeros((3, 1000, 20))
    monkeypatch.setattr(jet_blocks, "BLOCK_BYTES", 3 * 20 * 8 * 64)  # 64 rows of one array
    rows = jet_blocks.row_blocks(jet, live=1)
    assert [r.stop - r.start for r in rows] == [64] * 15 + [40]
    assert all(a.stop == b.start for a, b in itertools.pairwise(rows))
    assert len(jet_blocks.row_blocks(jet, live=2)) == 32


def test_one_block_when_it_covers_every_row(monkeypatch):
    monkeypatch.setattr(jet_blocks, "BLOCK_BYTES", 3 * 20 * 8 * 1000)
    assert jet_blocks.row_blocks(np.zeros((3, 1000, 20)), live=1) == (slice(None),)
    assert jet_blocks.row_blocks(np.zeros((3, 1001, 20)), live=1) != (slice(None),)


def test_arrays_of_another_shape_or_dtype_are_not_blocked(tiny_blocks):
    p = np.zeros((3, 10, 2))
    assert jet_blocks.blocks(p, np.zeros((10, 2)), jets=(p,), live=1) != (slice(None),)
    assert jet_blocks.blocks(p, np.zeros((1, 2)), live=1) == (slice(None),)
    assert jet_blocks.blocks(p, np.zeros((10, 2)), jets=(p[:1],), live=1) == (slice(None),)
    assert jet_blocks.blocks(p, np.zeros((10, 2), np.float32), live=1) == (slice(None),)
    assert jet_blocks.blocks(p, 2.0, live=1) == (slice(None),)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_jet_unary_and_its_backward_blocked_equal_whole(layout, dtype, tiny_blocks, monkeypatch):
    first, weights, p, grad, x = _arrays(layout, dtype)
    d1, d2 = np.cos(x), -np.sin(x)
    kw = {"first": first, "weights": weights}
    blocked = (jk._unary_forward(p, d1, d2, **kw), *jk._backward_forward(grad, p, d1, d2, **kw))
    assert tiny_blocks == [ROWS, ROWS]
    _whole(monkeypatch)
    whole = (jk._unary_forward(p, d1, d2, **kw), *jk._backward_forward(grad, p, d1, d2, **kw))
    _assert_identical(blocked, whole)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["collapsed", "laplacian", "mixed", "zero"])
@pytest.mark.parametrize("fn", sorted(ja._TABLE))
def test_jet_act_and_its_backward_blocked_equal_whole(fn, layout, dtype, tiny_blocks, monkeypatch):
    first, weights, p, grad, x = _arrays(layout, dtype)
    z = {"tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "exp": np.exp}
    z = z.get(fn, lambda v: v)(x).astype(dtype)
    op_params = (("beta", 2.0), ("threshold", 1.5)) if fn == "softplus" else ()
    kw = {"fn": fn, "op_params": op_params, "first": first, "weights": weights}
    blocked = (ja._act_forward(p, z, **kw), *ja._act_backward_forward(grad, p, z, **kw))
    assert tiny_blocks == [ROWS, ROWS]
    _whole(monkeypatch)
    whole = (ja._act_forward(p, z, **kw), *ja._act_backward_forward(grad, p, z, **kw))
    _assert_identical(blocked, whole)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["collapsed", "laplacian", "mixed"])
def test_kernels_on_broadcast_channels_equal_those_on_their_own_rows(layout, dtype, tiny_blocks):
    """The first layer's channels repeat one row per channel (a broadcast seed mapped once);
    the kernels copy them into rows of their own, bit for bit the same results."""
    first, weights, _p, grad, x = _arrays(layout, dtype)
    rows = np.random.default_rng(5).standard_normal((first + len(weights), 1, FEATURES))
    broadcast = np.broadcast_to(rows.astype(dtype), (len(rows), ROWS, FEATURES))
    assert jk._constant_rows(broadcast)
    own = np.ascontiguousarray(broadcast)
    z = np.tanh(x).astype(dtype)
    d1, d2 = np.cos(x), -np.sin(x)
    kw = {"first": first, "weights": weights}
    act = {"fn": "tanh", "op_params": (), **kw}

    def kernels(p):
        return (
            ja._act_forward(p, z, **act),
            *ja._act_backward_forward(grad, p, z, **act),
            jk._unary_forward(p, d1, d2, **kw),
            *jk._backward_forward(grad, p, d1, d2, **kw),
        )

    _assert_identical(kernels(broadcast), kernels(own))
