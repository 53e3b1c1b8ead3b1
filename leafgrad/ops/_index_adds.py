"""Scatter-adds into zeros by index, each destination's terms added in index order as
PyTorch's CPU kernels (and ``np.add.at``) add them: compiled loops where numba is installed
(``_fused``), NumPy's passes otherwise.

Why: ``np.add.at`` is ~1 ns an element on one flat index and ~10 ns on rows (its general
path); the flat path first needs every element's position (one more int64 array). The
backwards of ``x[idx]``, ``index_select`` and ``embedding``, and ``index_add``, add whole
rows at one index each (``index_add_rows``); ``scatter_add`` and gather's backward add
elements (``scatter_add_rows``). Compiled: 100 float32 rows of 1000 into (256, 1000) 201 ->
35 us, 256 rows of 64 into (1000, 64) 50 -> 16 us, (256, 1000) elements into (256, 100) 411
-> 145 us (2-core VM, NumPy 2.4, numba 0.68). Without numba, long rows go in rounds: the
k-th occurrence of every index at once (distinct, so one fancy-indexed add each), which
keeps each destination's order (201 -> 107 us); short rows and elements stay with
``add_at``. Each destination's terms are added one at a time in the arrays' dtype, so the
results are ``np.add.at``'s (and PyTorch's CPU kernels') bit for bit either way
(``tests/ops/test_index_adds.py``).
"""

from __future__ import annotations

import math

import numpy as np

from . import _fused
from ._add_at import add_at

_kernels = None  # the compiled loops once made (a namespace), per process

# Elements below which a compiled call (~1 us) saves nothing over NumPy's.
MIN_SIZE = 256

# Without numba, the row length from which rounds of fancy-indexed adds beat ``add_at`` (its
# one flat ``np.add.at``): 256 indices into (1000, n) float32 rows, n = 64: 50 us against 65,
# 128: 83 against 80, 256: 148 against 100 (the rounds' ~15 us of small calls aside, each
# element costs ~1/3 of add_at's).
ROUNDS_MIN_ROW = 128


def _compiled_for(out, values) -> bool:
    return (
        out.dtype.char in "fd"
        and values.dtype == out.dtype
        and values.size >= MIN_SIZE
        and _fused.available()
    )


def index_add_rows(out: np.ndarray, dim: int, index: np.ndarray, values) -> None:
    """``out[(:,) * dim + (index[m],)] += values[(:,) * dim + (m,)]`` for each ``m`` in
    order (``np.add.at(out, (slice(None),) * dim + (index,), values)``): ``out``
    C-contiguous, ``index`` integers of any shape (negative ones count from the end),
    ``values`` of ``out[key]``'s shape or broadcast to it. Raises IndexError for an index
    outside ``out`` (before writing anything)."""
    shape = out.shape
    size, ishape = shape[dim], index.shape
    taken = shape[:dim] + ishape + shape[dim + 1 :]
    index = index.astype(np.int64, copy=False).reshape(-1)
    if index.size and int(index.view(np.uint64).max()) >= size:  # (a negative one too)
        if index.min() < -size or index.max() >= size:
            bad = index[(index < -size) | (index >= size)][0]
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        index = np.where(index < 0, index + size, index)
    before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1 :])
    target = out.reshape(before, size, after)
    vshape = (before, index.size, after)
    if type(values) is not np.ndarray or values.shape != taken:
        values = np.broadcast_to(values, taken)
    if _compiled_for(out, values):
        _compiled().index_add(target, index, np.ascontiguousarray(values).reshape(vshape))
        return
    if after < ROUNDS_MIN_ROW:
        add_at(out, (slice(None),) * dim + (index.reshape(ishape),), values)
        return
    if before == 1:  # (2-d: NumPy's faster fancy indexing)
        target, values = target.reshape(size, after), values.reshape(index.size, after)
    else:
        target = target.transpose(1, 0, 2)  # (the indexed dim first, as a view)
        values = values.reshape(vshape).transpose(1, 0, 2)
    for where, index_k in _rounds(index):
        target[index_k] += values if where is None else values[where]


def _rounds(index: np.ndarray):
    """``(positions, indices)`` of the first occurrence of each distinct index, then of the
    second, ...: distinct indices in each round, each index's occurrences in order across
    rounds. One round ``(None, index)`` where ``index`` has no repeats."""
    n = index.size
    order = np.argsort(index, kind="stable")
    ranked = index[order]
    new = np.empty(n, bool)
    new[:1] = True
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    if new.all():
        return [(None, index)]
    place = np.arange(n)
    rank = place - np.maximum.accumulate(np.where(new, place, 0))  # (within its index)
    by_rank = order[np.argsort(rank, kind="stable")]
    ends = np.cumsum(np.bincount(rank)).tolist()
    return [(by_rank[a:b], index[by_rank[a:b]]) for a, b in zip([0] + ends, ends)]


def scatter_add_rows(out: np.ndarray, dim: int, index: np.ndarray, values: np.ndarray) -> bool:
    """``out[i][index[i][j][k]][k] += values[i][j][k]`` (for ``dim`` 1; likewise for other
    dims) in C order, compiled, and True; False (nothing done) where numba is missing or the
    arrays do not fit: ``out`` C-contiguous float, ``index`` and ``values`` of one shape,
    ``out``'s outside ``dim``. Raises IndexError for an index outside ``out`` (nothing is
    written from there on)."""
    shape = out.shape
    if (
        index.shape != values.shape
        or index.ndim != out.ndim
        or index.shape[:dim] != shape[:dim]
        or index.shape[dim + 1 :] != shape[dim + 1 :]
        or not out.flags.c_contiguous
        or not _compiled_for(out, values)
    ):
        return False
    before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1 :])
    kernels, index = _compiled(), np.ascontiguousarray(index, dtype=np.int64)
    values = np.ascontiguousarray(values)
    if after == 1:  # (the last dim: a loop of its own, ~2x the 3-d one's speed)
        vshape = (before, index.shape[dim])
        bad = kernels.scatter_add_last(
            out.reshape(before, shape[dim]), index.reshape(vshape), values.reshape(vshape)
        )
    else:
        vshape = (before, index.shape[dim], after)
        bad = kernels.scatter_add(
            out.reshape(before, shape[dim], after), index.reshape(vshape), values.reshape(vshape)
        )
    if bad >= 0:
        raise IndexError(f"index {index.reshape(-1)[bad]} is out of bounds for size {shape[dim]}")
    return True


def _compiled():
    global _kernels
    if _kernels is None:
        _kernels = _compile()
    return _kernels


class _Kernels:
    """The compiled loops (attributes set by ``_compile``)."""


def _compile() -> _Kernels:
    jit = _fused.jit

    @jit
    def index_add(out, index, values):
        # out (A, N, B), index (M,), values (A, M, B); index checked by the caller
        blocks, m, after = values.shape
        for a in range(blocks):
            for j in range(m):
                row, source = out[a, index[j]], values[a, j]
                for k in range(after):
                    row[k] += source[k]

    @jit
    def scatter_add(out, index, values):
        # out (A, N, B), index and values (A, M, B); the first bad index's flat position
        blocks, m, after = values.shape
        n = out.shape[1]
        for a in range(blocks):
            target = out[a]
            for j in range(m):
                places, source = index[a, j], values[a, j]
                for k in range(after):
                    i = places[k]
                    if i < 0 or i >= n:
                        return (a * m + j) * after + k
                    target[i, k] += source[k]
        return -1

    @jit
    def scatter_add_last(out, index, values):
        # out (A, N), index and values (A, M)
        blocks, m = values.shape
        n = out.shape[1]
        for a in range(blocks):
            target, places, source = out[a], index[a], values[a]
            for j in range(m):
                i = places[j]
                if i < 0 or i >= n:
                    return a * m + j
                target[i] += source[j]
        return -1

    kernels = _Kernels()
    kernels.index_add, kernels.scatter_add = index_add, scatter_add
    kernels.scatter_add_last = scatter_add_last
    return kernels


__all__: list = []
