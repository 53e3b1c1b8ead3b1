"""Which of equal values PyTorch's CPU kernels put first: libstdc++'s ``std::sort``,
``std::nth_element`` and ``std::partial_sort``, replayed on (value, index) pairs.

``topk`` (every dtype), ``mode`` (every dtype) and ``sort`` of the dtypes x86-simd-sort does
not take (float16, int16, int8, uint8, bool) run these unstable algorithms in PyTorch, so
among equal values (and, for ``topk(sorted=False)``, in the order of the whole result) they
return what the algorithm's moves leave, not a stable order. The moves depend only on
comparisons, so replaying them gives PyTorch's indices on any machine. (Sorts of float32,
float64, int32 and int64 go through x86-simd-sort, whose order among equal values depends on
the CPU's vector width; those keep a stable order here.)

The algorithms are written once, for Python lists or, where numba is installed, compiled over
arrays (``_fused.jit``): a replay in Python costs ~1 us a comparison.
"""

from __future__ import annotations

import threading

import numpy as np

from . import _fused

ASCENDING, DESCENDING, LESS = 0, 1, 2  # comparators: NaN last, NaN first, plain ``<``
_THRESHOLD = 16  # libstdc++'s _S_threshold: ranges this short are left to insertion sort


def before(a, b, order):
    """Whether ``a`` goes before ``b`` under comparator ``order``."""
    # (``x != x``: NaN, and never for integers.)
    if order == 0:  # KeyValueCompAsc / topk's smallest
        return (a == a and b != b) or a < b
    if order == 1:  # KeyValueCompDesc / topk's largest
        return (a != a and b == b) or a > b
    return a < b  # mode's


def swap(v, ix, i, j):
    """``std::iter_swap`` of positions ``i`` and ``j`` (value and index)."""
    v[i], v[j] = v[j], v[i]
    ix[i], ix[j] = ix[j], ix[i]


def move_median_to_first(v, ix, result, a, b, c, order):
    """libstdc++'s ``__move_median_to_first``: the median of three to ``result``."""
    if before(v[a], v[b], order):
        if before(v[b], v[c], order):
            swap(v, ix, result, b)
        elif before(v[a], v[c], order):
            swap(v, ix, result, c)
        else:
            swap(v, ix, result, a)
    elif before(v[a], v[c], order):
        swap(v, ix, result, a)
    elif before(v[b], v[c], order):
        swap(v, ix, result, c)
    else:
        swap(v, ix, result, b)


def partition_pivot(v, ix, first, last, order):
    """``__unguarded_partition_pivot``: the cut after partitioning ``[first, last)``."""
    # __unguarded_partition_pivot: median of three moved to ``first``, then Hoare's
    # partition of the rest around it.
    move_median_to_first(v, ix, first, first + 1, first + (last - first) // 2, last - 1, order)
    pivot = first
    first += 1
    while True:
        while before(v[first], v[pivot], order):
            first += 1
        last -= 1
        while before(v[pivot], v[last], order):
            last -= 1
        if not first < last:
            return first
        swap(v, ix, first, last)
        first += 1


def push_heap(v, ix, first, hole, top, value, index, order):
    """``__push_heap``: ``value`` sifted up from ``hole`` (heap at ``first``)."""
    parent = (hole - 1) // 2
    while hole > top and before(v[first + parent], value, order):
        v[first + hole] = v[first + parent]
        ix[first + hole] = ix[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value
    ix[first + hole] = index


def adjust_heap(v, ix, first, hole, length, value, index, order):
    """``__adjust_heap``: the hole moved to a leaf, then ``value`` pushed back up."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if before(v[first + child], v[first + child - 1], order):
            child -= 1
        v[first + hole] = v[first + child]
        ix[first + hole] = ix[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        ix[first + hole] = ix[first + child - 1]
        hole = child - 1
    push_heap(v, ix, first, hole, top, value, index, order)


def pop_heap(v, ix, first, last, result, order):
    """``__pop_heap``: the top to ``result``, ``result``'s element into the heap."""
    value, index = v[result], ix[result]
    v[result] = v[first]
    ix[result] = ix[first]
    adjust_heap(v, ix, first, 0, last - first, value, index, order)


def heap_select(v, ix, first, middle, last, order):
    """``__heap_select``: a heap of ``[first, middle)`` holding the best of the range."""
    length = middle - first
    if length >= 2:  # __make_heap
        parent = (length - 2) // 2
        while True:
            adjust_heap(v, ix, first, parent, length, v[first + parent], ix[first + parent], order)
            if parent == 0:
                break
            parent -= 1
    for i in range(middle, last):
        if before(v[i], v[first], order):
            pop_heap(v, ix, first, middle, i, order)


def sort_heap(v, ix, first, last, order):
    """``__sort_heap``: the heap ``[first, last)`` sorted."""
    while last - first > 1:
        last -= 1
        pop_heap(v, ix, first, last, last, order)


def linear_insert(v, ix, low, last, order):
    """``__unguarded_linear_insert`` of position ``last``."""
    # __unguarded_linear_insert; ``low`` only bounds a comparator that is no ordering
    # (mode's ``<`` with NaNs), where libstdc++ would read before the range.
    value, index = v[last], ix[last]
    while last > low and before(value, v[last - 1], order):
        v[last] = v[last - 1]
        ix[last] = ix[last - 1]
        last -= 1
    v[last] = value
    ix[last] = index


def insertion_sort(v, ix, first, last, order):
    """``__insertion_sort`` of ``[first, last)``."""
    for i in range(first + 1, last):
        if before(v[i], v[first], order):
            value, index = v[i], ix[i]
            for j in range(i, first, -1):
                v[j] = v[j - 1]
                ix[j] = ix[j - 1]
            v[first] = value
            ix[first] = index
        else:
            linear_insert(v, ix, first, i, order)


def log2_floor(n):
    """``std::__lg``: floor(log2(n)) for n > 0."""
    k = -1
    while n > 0:
        n >>= 1
        k += 1
    return k


def introsort(v, ix, first, last, order):
    """``std::sort`` of ``[first, last)``."""
    # std::sort: __introsort_loop (its recursion on the right part kept on a stack: the
    # parts are disjoint, so the order they are done in changes nothing), then
    # __final_insertion_sort.
    if last - first < 2:
        return
    stack = [(first, last, 2 * log2_floor(last - first))]
    while len(stack) > 0:
        lo, hi, depth = stack.pop()
        while hi - lo > _THRESHOLD:
            if depth == 0:  # __partial_sort(lo, hi, hi): heapsort
                heap_select(v, ix, lo, hi, hi, order)
                sort_heap(v, ix, lo, hi, order)
                break
            depth -= 1
            cut = partition_pivot(v, ix, lo, hi, order)
            stack.append((cut, hi, depth))
            hi = cut
    if last - first > _THRESHOLD:
        insertion_sort(v, ix, first, first + _THRESHOLD, order)
        for i in range(first + _THRESHOLD, last):
            linear_insert(v, ix, first, i, order)
    else:
        insertion_sort(v, ix, first, last, order)


def nth_element(v, ix, first, nth, last, order):
    """``std::nth_element``: position ``nth`` holds what a sort would put there."""
    if first == last or nth == last:
        return
    depth = 2 * log2_floor(last - first)
    while last - first > 3:
        if depth == 0:
            heap_select(v, ix, first, nth + 1, last, order)
            swap(v, ix, first, nth)
            return
        depth -= 1
        cut = partition_pivot(v, ix, first, last, order)
        if cut <= nth:
            first = cut
        else:
            last = cut
    insertion_sort(v, ix, first, last, order)


def topk_row(v, ix, k, largest, ordered):
    """One row of ``at::native::topk_impl_loop``: its first ``k`` positions."""
    # at::native::topk_impl_loop
    order = 1 if largest else 0
    n = len(v)
    if k * 64 <= n:
        heap_select(v, ix, 0, k, n, order)  # std::partial_sort
        sort_heap(v, ix, 0, k, order)
    else:
        nth_element(v, ix, 0, k - 1, n, order)
        if ordered:
            introsort(v, ix, 0, k - 1, order)


def heap_topk_rows(rows, values, indices, k, order):
    """``std::partial_sort``'s first ``k`` of each row of ``rows`` (left as they are) into
    ``values`` and ``indices`` (``(R, k)``): ``heap_select`` then ``sort_heap`` on a heap
    of ``k`` pairs alone. The same moves as on a copy of the row: a pop there writes the old
    top into the position just read, which the loop never reads again (compiled)."""
    n = rows.shape[1]
    for r in range(rows.shape[0]):
        v, ix = values[r], indices[r]
        for j in range(k):
            v[j] = rows[r, j]
            ix[j] = j
        if k >= 2:  # __make_heap
            parent = (k - 2) // 2
            while True:
                adjust_heap(v, ix, 0, parent, k, v[parent], ix[parent], order)
                if parent == 0:
                    break
                parent -= 1
        row = rows[r]
        top = v[0]
        for i in range(k, n):
            x = row[i]
            # One comparison rules out most values: ``x <= top`` (``>=`` for the smallest)
            # holds for numbers only, and then ``before(x, top, order)`` does not (1.6x
            # faster than ``before`` alone).
            if not (x <= top if order == 1 else x >= top) and before(x, top, order):
                adjust_heap(v, ix, 0, 0, k, x, i, order)  # __pop_heap(first, middle, i)
                top = v[0]
        sort_heap(v, ix, 0, k, order)


def sort_rows(values, indices, order):
    """``introsort`` of every row (compiled)."""
    for r in range(values.shape[0]):
        introsort(values[r], indices[r], 0, values.shape[1], order)


def topk_rows(values, indices, k, largest, ordered):
    """``topk_row`` of every row (compiled)."""
    for r in range(values.shape[0]):
        topk_row(values[r], indices[r], k, largest, ordered)


# The helpers above, callable from compiled code (numba's register_jitable, once).
_HELPERS = (
    before,
    swap,
    move_median_to_first,
    partition_pivot,
    push_heap,
    adjust_heap,
    pop_heap,
    heap_select,
    sort_heap,
    linear_insert,
    insertion_sort,
    log2_floor,
    introsort,
    nth_element,
    topk_row,
)
_compiled: dict = {}
_compiling = threading.Lock()


def _kernels():
    """The compiled algorithms, or None where numba is not available."""
    if not _fused.available():
        return None
    with _compiling:
        if not _compiled:
            from numba.extending import register_jitable  # why: optional (see _fused)

            for helper in _HELPERS:
                register_jitable(helper)
            _compiled.update(
                sort_rows=_fused.jit(sort_rows),
                topk_rows=_fused.jit(topk_rows),
                heap_topk_rows=_fused.jit(heap_topk_rows),
            )
    return _compiled


def _rows(x: np.ndarray, axis: int) -> np.ndarray:
    """``x`` with ``axis`` last, as contiguous rows of a dtype the loops compare as PyTorch
    does (float16 as float32, bool as uint8: the same order); a copy, the loops move values
    in place."""
    rows = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])
    if rows.dtype == np.float16:
        rows = rows.astype(np.float32)
    elif rows.dtype == np.bool_:
        rows = rows.view(np.uint8)
    return np.array(rows, order="C")


def _replayed(rows: np.ndarray, compiled, python, *args) -> np.ndarray:
    """Each row's indices after ``python(values, indices, *args)`` moved them (``compiled``
    over all rows at once where numba is there)."""
    indices = np.broadcast_to(np.arange(rows.shape[1]), rows.shape).copy()
    kernels = _kernels() if rows.size >= _fused.MIN_SIZE else None
    if kernels is not None:
        kernels[compiled](rows, indices, *args)
        return indices
    for r in range(rows.shape[0]):
        v, ix = rows[r].tolist(), indices[r].tolist()
        python(v, ix, *args)
        indices[r] = ix
    return indices


def _same(a: np.ndarray, b) -> np.ndarray:
    """``a == b``, two NaNs counting as equal (neither comes before the other); the NaN
    passes over ``a`` only where ``b`` holds one (``b`` is often small: a k-th value)."""
    if a.dtype.kind != "f":
        return a == b
    nan = np.isnan(b)
    return (a == b) | (np.isnan(a) & nan) if nan.any() else a == b


def _equal_neighbours(s: np.ndarray) -> np.ndarray:
    """Per row of sorted ``s``: whether two neighbours are equal."""
    return _same(s[:, 1:], s[:, :-1]).any(axis=1)


# Sorted by PyTorch's CPU kernel with std::sort when not asked to be stable; float32, float64,
# int32 and int64 go to x86-simd-sort, whose order among equal values depends on the CPU.
_STD_SORTED = frozenset(map(np.dtype, (np.float16, np.int16, np.int8, np.uint8, np.bool_)))


def sorts_unstably(data: np.ndarray, axis: int, descending: bool) -> bool:
    """Whether PyTorch's unstable sort may order equal values of ``data`` otherwise than a
    stable sort: std::sort's dtypes, unless the dim is broadcast (PyTorch returns 0, 1, ...
    there) or fbgemm's radix sort takes it (1-d integers, ascending, 32768 or more; stable)."""
    if data.dtype not in _STD_SORTED or data.shape[axis] < 2 or data.strides[axis] == 0:
        return False
    radix = data.ndim == 1 and not descending and data.dtype.kind in "iu" and data.size >= 32768
    return not radix


def sort_order(x: np.ndarray, axis: int, order: int, stable: np.ndarray | None = None):
    """``std::sort``'s permutation of ``x`` along ``axis`` (int64, ``x``'s shape) with
    comparator ``order``; given a ``stable`` permutation, only the rows holding equal
    values are replayed (in the others every sort agrees)."""
    rows = _rows(x, axis)
    n = rows.shape[1]
    if stable is None:
        picked = _replayed(rows, "sort_rows", _sort_row, order)
    else:
        tied = np.flatnonzero(_equal_neighbours(np.sort(rows, axis=1)))
        picked = np.moveaxis(stable, axis, -1).reshape(-1, n).copy()
        if tied.size:
            picked[tied] = _replayed(rows[tied], "sort_rows", _sort_row, order)
    moved = x.shape[:axis] + x.shape[axis + 1 :] + (n,)
    return np.moveaxis(picked.reshape(moved), -1, axis)


def topk_order(x: np.ndarray, k: int, axis: int, largest: bool, ordered: bool, stable):
    """The indices PyTorch's CPU ``topk`` returns along ``axis`` (int64). ``stable()``
    gives a stable sort's first ``k`` and the rows where the k-th value has an equal left
    out (None: unknown). Those indices are right for each row where none of them has an
    equal in the row and the result is sorted (always so with ``k * 64 <= n``); the other
    rows are replayed."""
    n = x.shape[axis]
    rows = np.moveaxis(x, axis, -1).reshape(-1, n)
    moved = x.shape[:axis] + x.shape[axis + 1 :] + (k,)
    kernels = _kernels() if k * 64 <= n and rows.size >= _fused.MIN_SIZE else None
    if kernels is not None and x.dtype.kind in "fiu" and x.dtype != np.float16:
        # PyTorch's own partial sort, compiled: one pass over each row, keeping k pairs (a
        # partition, a sort of k and the check for ties cost 3x: (256, 1000) float32 topk(5)
        # 1.6 ms against PyTorch's 0.4).
        values = np.empty((rows.shape[0], k), rows.dtype)
        picked = np.empty((rows.shape[0], k), np.int64)
        kernels["heap_topk_rows"](rows, values, picked, k, 1 if largest else 0)
        return np.moveaxis(picked.reshape(moved), -1, axis)
    picked, left_out = stable()
    picked = np.moveaxis(picked, axis, -1).reshape(-1, k).copy()
    if not ordered and k * 64 > n and k > 1:
        replay = np.arange(rows.shape[0])  # nth_element's order, not a sorted one
    else:
        values = np.take_along_axis(rows, picked, 1)  # sorted, as topk orders them
        tied = _equal_neighbours(values)
        if left_out is None:
            left_out = np.flatnonzero(_kth_left_out(rows, values))
        tied[left_out] = True
        replay = np.flatnonzero(tied)
    if replay.size:
        again = _replayed(_rows(rows[replay], 1), "topk_rows", topk_row, k, largest, ordered)
        picked[replay] = again[:, :k]
    return np.moveaxis(picked.reshape(moved), -1, axis)


def _kth_left_out(rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per row: whether the k-th (last) of ``values`` has more equals in ``rows`` than
    among ``values``."""
    kth = values[:, -1:]
    equal, inside = _same(rows, kth), np.count_nonzero(_same(values, kth), 1)
    if np.count_nonzero(equal) == inside.sum():  # none anywhere (a per-row count costs 2.5x)
        return np.zeros(len(rows), bool)
    return np.count_nonzero(equal, 1) > inside


def _sort_row(v, ix, order):
    introsort(v, ix, 0, len(v), order)


__all__: list = []
