"""libstdc++'s sort, nth_element and partial_sort replayed (ops/_stdsort.py): PyTorch's
indices among equal values for sort (its std::sort dtypes), mode and topk, compiled and in
Python."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused, _stdsort


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _numba_on_and_off():
    return [True, False] if _fused.available() else [False]


@pytest.fixture(params=_numba_on_and_off(), ids=lambda c: "compiled" if c else "python")
def compiled(request, monkeypatch):
    if not request.param:
        monkeypatch.setattr(_fused, "_numba", False)
    return request.param


def _tied(shape, dtype, seed=0):
    values = np.random.default_rng(seed).integers(0, 4, shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        values[np.random.default_rng(seed + 1).random(shape) < 0.1] = np.nan
    return values


@pytest.mark.parametrize("dtype", ["float16", "int16", "int8", "uint8", "bool"])
def test_unstable_sorts_order_ties_as_pytorchs_std_sort(torch, compiled, dtype):
    for n in (5, 16, 17, 40, 300):
        values = _tied((3, n), dtype, n)
        for dim in (0, 1):
            for descending in (False, True):
                want = torch.sort(torch.from_numpy(values), dim, descending=descending)
                got = lg.sort(lg.tensor(values), dim, descending=descending)
                np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
                np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())
                got = lg.argsort(lg.tensor(values), dim, descending=descending)
                np.testing.assert_array_equal(got.numpy(), want.indices.numpy())


def test_stable_radix_and_broadcast_sorts_keep_positions(torch):
    big = np.random.default_rng(1).integers(0, 3, 40000).astype(np.uint8)  # fbgemm radix
    want = torch.sort(torch.from_numpy(big)).indices.numpy()
    np.testing.assert_array_equal(lg.sort(lg.tensor(big)).indices.numpy(), want)
    np.testing.assert_array_equal(want, np.argsort(big, kind="stable"))
    small = _tied((30,), "int16")
    for descending in (False, True):
        got = lg.sort(lg.tensor(small), descending=descending, stable=True).indices.numpy()
        want = torch.sort(torch.from_numpy(small), descending=descending, stable=True).indices
        np.testing.assert_array_equal(got, want.numpy())
    wide = lg.tensor([3], dtype=lg.uint8).expand(4, 25)
    np.testing.assert_array_equal(lg.sort(wide, 1).indices.numpy(), np.tile(np.arange(25), (4, 1)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "uint8"])
def test_mode_picks_pytorchs_index(torch, compiled, dtype):
    for n in (3, 17, 64, 250):
        values = _tied((4, n), dtype, n)
        for dim in (0, 1):
            want = torch.mode(torch.from_numpy(values), dim)
            got = lg.mode(lg.tensor(values), dim)
            np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
            np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_topk_of_tied_rows_in_both_algorithms(torch, compiled, dtype):
    values = _tied((3, 640), dtype, 7)  # k * 64 <= 640: partial_sort; above: nth_element
    t, x = torch.from_numpy(values), lg.tensor(values)
    for k in (1, 3, 10, 11, 200, 640):
        for largest in (True, False):
            for ordered in (True, False):
                want = torch.topk(t, k, 1, largest, ordered)
                got = lg.topk(x, k, 1, largest, ordered)
                np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
                np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())


def test_compiled_and_python_replays_agree():
    """The same moves either way (the torch-free check of the compiled path)."""
    if not _fused.available():
        pytest.skip("numba not installed")
    rows = _tied((6, 700), "float64", 3)
    for order in (_stdsort.ASCENDING, _stdsort.DESCENDING, _stdsort.LESS):
        compiled = _stdsort.sort_order(rows, 1, order)
        python = np.stack([_python_sort(row, order) for row in rows])
        np.testing.assert_array_equal(compiled, python)
        assert all(len(set(r)) == rows.shape[1] for r in compiled.tolist())  # permutations


def test_compiled_partial_sort_keeps_k_pairs_and_matches_the_replay():
    """topk's compiled partial sort (a heap of k pairs, the row left as it is) makes the
    moves of libstdc++'s on a copy of the row: the Python replay's indices, ties and NaNs
    included, along any dim."""
    if not _fused.available():
        pytest.skip("numba not installed")
    tied = _tied((700, 3, 130), "float64", 11)
    spread = np.random.default_rng(2).standard_normal((700, 3, 130)).astype(np.float32)
    for values in (tied, spread):
        before = values.copy()
        for dim in (0, 2):
            n = values.shape[dim]
            for k in (1, 2, 7):
                if k * 64 > n:
                    continue
                for largest in (True, False):
                    got = _stdsort.topk_order(values, k, dim, largest, True, None)
                    rows = np.moveaxis(values, dim, -1).reshape(-1, n)
                    want = np.stack([_python_topk(row, k, largest) for row in rows])
                    want = np.moveaxis(
                        want.reshape(got.shape[:dim] + got.shape[dim + 1 :] + (k,)), -1, dim
                    )
                    np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(values, before)  # read, never moved


def _python_topk(row, k, largest):
    v, ix = row.tolist(), list(range(len(row)))
    _stdsort.topk_row(v, ix, k, largest, True)
    return ix[:k]


def _python_sort(row, order):
    v, ix = row.tolist(), list(range(len(row)))
    _stdsort.introsort(v, ix, 0, len(v), order)
    return ix


def test_introsort_sorts_and_nth_element_partitions():
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 3, 4, 16, 17, 100, 1000):
        row = rng.integers(0, 50, n).tolist()
        v, ix = list(row), list(range(n))
        _stdsort.introsort(v, ix, 0, n, _stdsort.ASCENDING)
        assert v == sorted(row) and [row[i] for i in ix] == v
        for nth in {0, n // 2, n - 1} if n else ():
            v, ix = list(row), list(range(n))
            _stdsort.nth_element(v, ix, 0, nth, n, _stdsort.DESCENDING)
            assert v[nth] == sorted(row, reverse=True)[nth]
            assert all(a >= v[nth] for a in v[:nth]) and all(a <= v[nth] for a in v[nth:])
            assert [row[i] for i in ix] == v


def test_sort_node_names_follow_the_overload_picked():
    # Passing stable at all (even False) is PyTorch's sort.stable (SortBackward1); 0-d
    # inputs are sorted by the same node, not cloned.
    x = lg.tensor([2.0, 1.0], requires_grad=True)
    z = lg.tensor(3.0, requires_grad=True)
    names = {
        "plain": lg.sort(x).values,
        "positional": x.sort(0, True).values,
        "stable": lg.sort(x, stable=True).values,
        "stable-false": x.sort(stable=False).values,
        "msort": lg.msort(x),
        "0-d": z.sort().values,
        "0-d-stable": z.sort(stable=True).values,
        "0-d-topk": z.topk(1).values,
    }
    got = {k: type(v.grad_fn).__name__ for k, v in names.items()}
    assert got == {
        "plain": "SortBackward0",
        "positional": "SortBackward0",
        "stable": "SortBackward1",
        "stable-false": "SortBackward1",
        "msort": "SortBackward0",
        "0-d": "SortBackward0",
        "0-d-stable": "SortBackward1",
        "0-d-topk": "TopkBackward0",
    }
    z.sort().values.backward()
    assert z.grad.item() == 1.0
    values, indices = lg.sort(lg.tensor([2.0, 1.0, 2.0]), descending=True, stable=True)
    assert values.tolist() == [2.0, 2.0, 1.0] and indices.tolist() == [0, 2, 1]


def test_sort_node_names_match_torch(torch):
    for m_x in ([2.0, 1.0], 3.0):
        for kwargs in ({}, {"stable": True}, {"stable": False}, {"descending": True}):
            ours = lg.sort(lg.tensor(m_x, requires_grad=True), **kwargs).values
            theirs = torch.sort(torch.tensor(m_x, requires_grad=True), **kwargs).values
            assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
