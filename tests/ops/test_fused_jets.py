"""The compiled jet_unary blocks (ops/_fused_jets.py) give the NumPy blocks' values, on
whole arrays and on row blocks of larger ones, and the Taylor operators agree either way."""

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import taylor
from leafgrad.ops import _fused, _fused_jets, _jet_loops
from leafgrad.ops import jet_activations as ja
from leafgrad.ops import jet_kernels as jk

pytestmark = pytest.mark.skipif(not _fused.available(), reason="numba not installed")

# (channels, first-order channels, second-order weights): a d = 10 Laplacian, one of d = 17
# (past the loops over points: rows and tiles), Burgers' u_xx (one direction of two) and no
# second order at all.
LAYOUTS = {
    "laplacian": (11, 10, ((1.0,) * 10,)),
    "wide laplacian": (18, 17, ((1.0,) * 17,)),
    "separate": (3, 2, ((1.0, 0.0),)),
    "none": (2, 2, ()),
}


def _assert_same(a, b):
    """Equal to round-off (they are NumPy's values to the bit where NumPy's einsum sums the
    channels in order, as on the CPUs measured; a tolerance for any other)."""
    scale = np.abs(b).max(initial=0.0)
    np.testing.assert_allclose(
        a, b, rtol=8 * np.finfo(b.dtype).eps, atol=8 * np.finfo(b.dtype).eps * scale
    )


def _active(layout, dtype):
    _, _, weights = LAYOUTS[layout]
    return jk._active_or_none(weights, np.dtype(dtype))


def _both(monkeypatch, fn):
    """``fn()`` with the compiled blocks, then with NumPy's."""
    compiled = fn()
    monkeypatch.setattr(_fused, "_numba", False)
    numpy = fn()
    monkeypatch.undo()
    return compiled, numpy


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("block", [False, True])
def test_blocks_match_numpys(monkeypatch, layout, dtype, block):
    channels, first, _ = LAYOUTS[layout]
    active = _active(layout, dtype)
    rng = np.random.default_rng(0)
    rows = 300
    whole = rng.standard_normal((channels, 3 * rows, 20)).astype(dtype)
    grads = rng.standard_normal(whole.shape).astype(dtype)
    part = slice(rows, 2 * rows) if block else slice(None)
    p, grad = whole[:, part], grads[:, part]
    d1, d2 = (rng.standard_normal(p.shape[1:]).astype(dtype) for _ in range(2))
    d2x2 = None if active is None else d2 * 2
    assert _fused_jets.takes(p, active, d1, d2)

    def run():
        out = np.full(whole.shape, np.nan, dtype)  # written only in the block's rows
        forward = jk._unary_block(p, d1, d2, first, active, out[:, part])
        outs = (np.full(whole.shape, np.nan, dtype)[:, part], None, None)
        backward = jk._backward_block(grad, p, d1, d2x2, first, active, outs)
        untouched = np.isnan(np.delete(out, np.arange(3 * rows)[part], axis=1)).all()
        return [forward.copy(), *(b for b in backward if b is not None)], untouched

    (compiled, untouched), (numpy, _) = _both(monkeypatch, run)
    assert untouched
    assert len(compiled) == len(numpy)
    for a, b in zip(compiled, numpy):
        _assert_same(a, b)


# Each activation whose derivatives the loops make from its result, and that result's range.
RESULTS = {"tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x))}


@pytest.mark.parametrize("fn", list(RESULTS))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", list(LAYOUTS) + ["zero weights"])
def test_result_blocks_make_numpys_derivatives(monkeypatch, layout, dtype, fn):
    """jet_act's blocks for tanh and sigmoid, their derivatives made in the loop from the
    result y; with second-order weights that are all zero (no active direction) g_z still
    adds 0 D2'."""
    channels, first, weights = LAYOUTS["none" if layout == "zero weights" else layout]
    weights = ((0.0, 0.0),) if layout == "zero weights" else weights
    active = jk._active_or_none(weights, np.dtype(dtype))
    rng = np.random.default_rng(1)
    whole = rng.standard_normal((channels, 900, 20)).astype(dtype)
    p, grad = whole[:, 300:600], rng.standard_normal((channels, 300, 20)).astype(dtype)
    y = RESULTS[fn](3 * rng.standard_normal((300, 20))).astype(dtype)

    def run():
        forward = ja.act_block(p, y, fn, (), first, active)
        outs = (np.empty(whole.shape, dtype)[:, 300:600], np.empty(y.shape, dtype))
        backward = ja.act_backward_block(grad, p, y, fn, (), first, weights, active, outs)
        return [forward, *backward]

    compiled, numpy = _both(monkeypatch, run)
    for a, b in zip(compiled, numpy):
        _assert_same(a, b)


def test_general_second_order_mixes_stay_numpys():
    active = jk._active_or_none(((1.0, 2.0), (0.5, 0.0)), np.dtype("float64"))
    p = np.ones((4, 100, 20))
    assert not _fused_jets.takes(p, active, p[0])
    assert not _fused_jets.takes(np.ones((11, 2, 3)), _active("laplacian", "float64"))  # small


def test_blocks_are_read_in_their_parents_rows():
    whole = np.arange(3 * 10 * 4, dtype=float).reshape(3, 10, 4)
    for rows in (slice(2, 5), slice(0, 3), slice(7, 10)):
        parent, row = _fused_jets._in_parent(whole[:, rows])
        assert parent.flags.c_contiguous and parent.shape == whole.shape
        assert np.shares_memory(parent, whole) and row == rows.start
        np.testing.assert_array_equal(parent[:, row : row + 3], whole[:, rows])
    parent, row = _fused_jets._in_parent(whole)
    assert parent is whole and row == 0
    for odd in (whole[:, 2:5, ::2], whole[1:, 2:5, 1:3]):
        parent, row = _fused_jets._in_parent(odd)
        assert parent is odd and row == 0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_byte_offset_is_numpys(dtype):
    owner = np.zeros((3, 10, 4), dtype)
    readonly = owner.copy()
    readonly.flags.writeable = False
    offset = _fused_jets._loops()["byte_offset"]
    for whole in (owner, readonly):
        for view in (whole, whole[:, 2:5], whole[1:, 7:], whole[2, 3]):
            address = view.__array_interface__["data"][0] - whole.__array_interface__["data"][0]
            assert offset(view, whole) == address


@pytest.mark.parametrize("act", [lg.nn.Tanh, lg.nn.Sigmoid])
@pytest.mark.parametrize("dtype", [lg.float64, lg.float32])
def test_taylor_operators_agree_with_and_without_the_kernels(monkeypatch, dtype, act):
    """The Laplacian and collapsed u_xx of a tanh or sigmoid MLP, and their weight
    gradients."""

    def run():
        lg.manual_seed(0)
        rng = np.random.default_rng(1)
        layers = [lg.nn.Linear(10, 20), act(), lg.nn.Linear(20, 20), act()]
        net = lg.nn.Sequential(*layers, lg.nn.Linear(20, 1)).to(dtype)
        x = lg.tensor(rng.standard_normal((3000, 10)), dtype=dtype)
        u, _, lap = taylor.laplacian(net, x)
        _, g, uxx = taylor.collapsed(net, x, [1.0] + [0.0] * 9)
        loss = (lap * lap).mean() + (uxx * g[:, :, 1]).mean() + (u * u).mean()
        grads = lg.autograd.grad(loss, list(net.parameters()))
        return [lap.detach().numpy(), uxx.detach().numpy(), *(t.numpy() for t in grads)]

    compiled, numpy = _both(monkeypatch, run)
    for a, b in zip(compiled, numpy):
        if dtype == lg.float64:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)
        else:  # the values may differ by an ulp (_tanh_loops, sigmoid32): a cancelled sum's more
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5 * np.abs(b).max())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_row_tile_and_point_loops_agree_bit_for_bit(layout, dtype):
    """The three loop layouts (``_jet_loops``: rows, tiles, points) on a block of a larger
    jet: the same operations per element, so the same bits, tanh's or sigmoid's derivatives
    made in the loop or given, with or without second-order weights; tiles that do not
    divide the block included."""
    channels, first, _ = LAYOUTS[layout]
    active = _active(layout, dtype)
    kind, directions = _fused_jets._kind(active), _fused_jets._directions(active)
    number = np.dtype(dtype).type
    rng = np.random.default_rng(2)
    rows, start = 333, 100  # 333 x 20 elements: a last, partial tile
    whole = rng.standard_normal((channels, 600, 20)).astype(dtype)
    grad = rng.standard_normal((channels, rows, 20)).astype(dtype)
    y = rng.standard_normal((rows, 20))
    results = {_jet_loops.TANH: np.tanh(y).astype(dtype)}
    results[_jet_loops.SIGMOID] = RESULTS["sigmoid"](y).astype(dtype)
    d2 = rng.standard_normal((rows, 20)).astype(dtype)
    loops = _fused_jets._loops()
    tile = (_jet_loops.TILE_BYTES // np.dtype(dtype).itemsize,)
    constants = number(0), number(1), number(-2), number(-4), number(-6), number(4)
    for act in (_jet_loops.GIVEN, _jet_loops.TANH, _jet_loops.SIGMOID):
        d1 = results.get(act, results[_jet_loops.TANH])
        points = d1, d1 if act else d2, first, directions, kind
        forward = []
        for name, extra in (("rows_unary", ()), ("tiles_unary", tile)):
            out = np.full(whole.shape, np.nan, dtype)
            loops[name](whole, start, out, start, *points, rows, act, *extra, number(1),
                        number(-2))  # fmt: skip
            forward.append(out)
        out = np.full(whole.shape, np.nan, dtype)
        key = _fused_jets._direction_key(active)
        unary = _fused_jets._points_loop(_jet_loops.points_unary, whole, first, key, kind, act)
        unary(whole, start, out, start, *points[:2], rows, number(1), number(-2))
        forward.append(out)
        np.testing.assert_array_equal(forward[0], forward[1])
        np.testing.assert_array_equal(forward[0], forward[2])
        assert np.isnan(forward[0][:, :start]).all() and not np.isnan(forward[0][:, start]).any()
        through = rng.standard_normal((rows, 20)).astype(dtype)  # the op's output gradient
        for weighted, added in itertools.product((False, True), ((d1, False), (through, True))):
            if added[1] and not act:
                continue
            backward = []
            for name, extra in (("rows_backward", ()), ("tiles_backward", tile)):
                gp = np.full((channels, rows, 20), np.nan, dtype)
                gd1 = np.full((rows, 20), np.nan, dtype)
                gd2 = gd1 if kind == _fused_jets.NONE else np.full((rows, 20), np.nan, dtype)
                loops[name](grad, 0, whole, start, gp, 0, *points, gd1, gd2, rows, act,
                            weighted, *added, *extra, *constants)  # fmt: skip
                backward.append((gp, gd1, gd2))
            gp = np.full((channels, rows, 20), np.nan, dtype)
            gd1 = np.full((rows, 20), np.nan, dtype)
            gd2 = gd1 if kind == _fused_jets.NONE else np.full((rows, 20), np.nan, dtype)
            flags = act, weighted and act != _jet_loops.GIVEN, added[1]
            loop = _fused_jets._points_loop(_jet_loops.points_backward, whole, first, key,
                                            kind, *flags)  # fmt: skip
            loop(grad, 0, whole, start, gp, 0, *points[:2], gd1, gd2, rows, added[0], *constants)
            backward.append((gp, gd1, gd2))
            for a, b, c in zip(*backward):
                assert not np.isnan(a).any()
                np.testing.assert_array_equal(a, b)
                np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("act", [_jet_loops.TANH, _jet_loops.SIGMOID])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_blocks_into_arrays_of_any_layout(dtype, act):
    """Outputs and inputs in other layouts (transposed views) get the same bits as
    C-contiguous ones: the tile loops work on contiguous copies and write back."""
    active = _active("separate", dtype)
    rng = np.random.default_rng(3)
    p = rng.standard_normal((3, 400, 20)).astype(dtype)
    grad = rng.standard_normal((3, 400, 20)).astype(dtype)
    y = np.tanh(rng.standard_normal((400, 20))).astype(dtype)

    def transposed(shape):  # an array of ``shape`` whose last two axes are swapped in memory
        return np.empty(shape[:-2] + shape[:-3:-1], dtype).swapaxes(-1, -2)

    plain = _fused_jets.result_block(p, y, act, 2, active)
    out = _fused_jets.result_block(
        np.ascontiguousarray(p.swapaxes(1, 2)).swapaxes(1, 2),
        np.asfortranarray(y),
        act,
        2,
        active,
        transposed(p.shape),
    )
    np.testing.assert_array_equal(out, plain)
    plain = _fused_jets.result_backward_block(grad, p, y, act, 2, active, True)
    outs = (transposed(p.shape), transposed(y.shape))
    y = np.asfortranarray(y)
    other = _fused_jets.result_backward_block(grad, p, y, act, 2, active, True, outs)
    assert other[0] is outs[0] and other[1] is outs[1]
    for a, b in zip(other, plain):
        np.testing.assert_array_equal(a, b)


def test_layouts_reach_every_loop_layout():
    """The layouts above send blocks to the loops over points and, past
    ``MAX_POINT_CHANNELS``, to the row and tile loops: float32 to points for both passes,
    float64 to points for the backward only."""
    for layout, (channels, _, _) in LAYOUTS.items():
        p = np.zeros((channels, 4, 20), "float32")
        wide = channels > _fused_jets.MAX_POINT_CHANNELS
        assert _fused_jets._over_points(p, backward=False) is not wide, layout
        assert _fused_jets._over_points(p, backward=True) is not wide, layout
        p = p.astype("float64")
        assert not _fused_jets._over_points(p, backward=False), layout
        assert _fused_jets._over_points(p, backward=True) is not wide, layout
    assert any(c > _fused_jets.MAX_POINT_CHANNELS for c, _, _ in LAYOUTS.values())
