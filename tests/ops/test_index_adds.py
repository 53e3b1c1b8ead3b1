"""The index adds (``ops/_index_adds.py``) give ``np.add.at``'s sums bit for bit, compiled
and as NumPy's rounds, and the backwards built on them PyTorch's gradients exactly."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, _index_adds
from leafgrad.ops.indexing import _gather_key

RNG = np.random.default_rng(0)
PATHS = [
    pytest.param(
        "compiled", marks=pytest.mark.skipif(not _fused.available(), reason="numba missing")
    ),
    "numpy",
]


@pytest.fixture
def path(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(_fused, "_numba", False)
    return request.param


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _values(shape, dtype):
    if np.dtype(dtype).kind == "f":
        # magnitudes far apart: another order of the adds would round differently
        return (RNG.standard_normal(shape) * 10.0 ** RNG.integers(-4, 5, shape)).astype(dtype)
    return RNG.integers(-50, 50, shape).astype(dtype)


CASES = [  # out shape, dim, index size (repeats: many more picks than places)
    ((256, 1000), 0, 100),  # x[idx]'s backward: long rows (compiled, or NumPy's rounds)
    ((1000, 64), 0, 256),  # embedding's: short rows (compiled, or add_at)
    ((7, 30, 200), 1, 90),  # a middle dim, long rows
    ((7, 30, 5), 1, 90),
    ((6, 4, 50), 2, 40),  # the last dim
    ((5, 3), 0, 20),  # below the compiled size
]


@pytest.mark.parametrize("path", PATHS, indirect=True)
@pytest.mark.parametrize("shape, dim, picks", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_index_add_rows_is_add_at(path, shape, dim, picks, dtype):
    out = _values(shape, dtype)
    index = RNG.integers(-shape[dim], shape[dim], picks)  # negative ones count from the end
    values = _values(shape[:dim] + (picks,) + shape[dim + 1 :], dtype)
    expected = out.copy()
    np.add.at(expected, (slice(None),) * dim + (index,), values)
    _index_adds.index_add_rows(out, dim, index, values)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_index_add_rows_of_broadcast_values_and_2d_index(path):
    out = np.zeros((40, 300), np.float32)
    index = RNG.integers(0, 40, (6, 5))
    values = np.broadcast_to(np.float32(0.1), (6, 5, 300))
    expected = np.zeros_like(out)
    np.add.at(expected, index, values)
    _index_adds.index_add_rows(out, 0, index, values)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("path", PATHS, indirect=True)
@pytest.mark.parametrize("bad", [40, -41])
def test_index_add_rows_refuses_indices_outside_before_writing(path, bad):
    out = np.zeros((40, 300), np.float32)
    index = np.array([1, 2, bad, 3])
    with pytest.raises(IndexError, match=str(bad)):
        _index_adds.index_add_rows(out, 0, index, np.ones((4, 300), np.float32))
    assert not out.any()


def test_rounds_take_each_index_once_a_round_in_order():
    index = RNG.integers(0, 10, 200)
    rounds = _index_adds._rounds(index)
    seen = {}
    for where, picked in rounds:
        assert len(set(picked.tolist())) == picked.size
        np.testing.assert_array_equal(index[where], picked)
        for position, i in zip(where.tolist(), picked.tolist()):
            assert position > seen.get(i, -1)  # after the index's earlier occurrences
            seen[i] = position
    assert sum(w.size for w, _ in rounds) == index.size
    assert _index_adds._rounds(np.array([3, 1, 2]))[0][0] is None  # distinct: one round


@pytest.mark.skipif(not _fused.available(), reason="numba missing")
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scatter_add_rows_is_add_at(dim, dtype):
    shape = (6, 40, 30)
    d = dim % 3
    ishape = list(shape)
    ishape[d] = 90
    index = RNG.integers(0, shape[d], ishape)
    values = _values(tuple(ishape), dtype)
    out = _values(shape, dtype)
    expected = out.copy()
    np.add.at(expected, _gather_key(index, d), values)
    assert _index_adds.scatter_add_rows(out, d, index, values)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.skipif(not _fused.available(), reason="numba missing")
def test_scatter_add_rows_leaves_other_layouts_and_refuses_bad_indices():
    out = np.zeros((40, 30), np.float32)
    values = np.ones((20, 30), np.float32)
    smaller = RNG.integers(0, 40, (20, 20))  # smaller than out outside dim 0
    assert not _index_adds.scatter_add_rows(out, 0, smaller, values[:, :20])
    assert not _index_adds.scatter_add_rows(out, 0, smaller, values)  # shapes differ
    assert not _index_adds.scatter_add_rows(out.astype(np.int64), 0, smaller, values)
    index = RNG.integers(0, 40, (20, 30))
    index[5, 7] = 40
    with pytest.raises(IndexError, match="40"):
        _index_adds.scatter_add_rows(out, 0, index, values)


def _grads_match(make, torch):
    """``make(lib)`` returns a loss and the leaves; gradients bit for bit PyTorch's."""
    loss, leaves = make(lg)
    loss.backward()
    tloss, tleaves = make(torch)
    tloss.backward()
    for x, t in zip(leaves, tleaves):
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


def _weights(shape):
    return _values(shape, np.float32)


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_backwards_are_pytorchs_bit_for_bit(path, torch):
    x, w, g = _weights((64, 300)), _weights((64, 300)), _weights((80, 300))
    rows = RNG.integers(0, 64, 80)
    cols = RNG.integers(0, 300, 500)
    table, weight = _weights((50, 16)), _weights((40, 16))
    looked = RNG.integers(0, 50, 40)
    src, into = _weights((64, 300)), RNG.integers(0, 20, (64, 300))
    gsrc = _weights((64, 20))

    def make(lib):
        a, b = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        t, s = lib.tensor(table, requires_grad=True), lib.tensor(src, requires_grad=True)
        i, j, k = lib.tensor(rows), lib.tensor(cols), lib.tensor(looked)
        loss = (a[i] * lib.tensor(g)).sum()  # index backward: whole rows
        loss = loss + (b[:, j] * lib.tensor(w[:, :1])).sum()  # columns
        loss = loss + (a.index_select(1, j) * 2).sum()
        loss = loss + (lib.nn.functional.embedding(k, t) * lib.tensor(weight)).sum()
        added = lib.zeros(64, 20).scatter_add(1, lib.tensor(into), s)
        loss = loss + (added * lib.tensor(gsrc)).sum()
        return loss, (a, b, t, s)

    _grads_match(make, torch)


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_forwards_are_pytorchs_bit_for_bit(path, torch):
    base, src = _weights((30, 400)), _weights((90, 400))
    index = RNG.integers(0, 30, 90)
    into, values = RNG.integers(0, 40, (30, 400)), _weights((30, 400))
    for lib in (lg, torch):
        added = lib.tensor(base).index_add(0, lib.tensor(index), lib.tensor(src), alpha=0.5)
        scattered = lib.zeros(30, 40).scatter_add(1, lib.tensor(into), lib.tensor(values))
        if lib is lg:
            ours = added.numpy(), scattered.numpy()
    np.testing.assert_array_equal(ours[0], added.numpy())
    np.testing.assert_array_equal(ours[1], scattered.numpy())


@pytest.mark.parametrize("path", PATHS, indirect=True)
def test_graphs_and_second_derivatives_stay_pytorchs(path, torch):
    table, gg = _weights((50, 300)), _weights((40, 300))
    looked = RNG.integers(0, 50, 40)
    results = []
    for lib in (lg, torch):
        t = lib.tensor(table, requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(looked), t)
        grad = lib.tensor(gg, requires_grad=True)
        (dt,) = lib.autograd.grad(out, t, grad, create_graph=True)
        (dg,) = lib.autograd.grad((dt * dt).sum(), grad)
        names = (out.grad_fn.name(), dt.grad_fn.name())
        results.append((names, dt.detach().numpy(), dg.numpy()))
    (names, dt, dg), (tnames, tdt, tdg) = results
    assert names == tnames
    np.testing.assert_array_equal(dt, tdt)
    np.testing.assert_allclose(dg, tdg, rtol=1e-6)
