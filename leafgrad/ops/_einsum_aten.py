"""einsum as ATen computes it (Linear.cpp's ``einsum`` and ``sumproduct_pair``), in leafgrad
ops, so that a graph through it records PyTorch's nodes: each operand diagonalised,
unsqueezed and permuted to one layout, then contracted left to right by bmm.

The installed PyTorch has no opt_einsum, so it contracts left to right and so does this.

What to record depends only on the equation and the operands' shapes, so it is planned from
them alone (``plan``, which ``einsum`` remembers) as a list of steps on operand slots; a call
runs the steps (``run``): just the recorded ops.
"""

from __future__ import annotations

import math

from .linalg import _bmm
from .reorder import _permute
from .shape import _unsqueeze, _view

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # ATen's label order


def _labels(term: str) -> list:
    """A term's labels, ``None`` for its ellipsis (the equation is already checked)."""
    return [None if c == "." else c for c in term.replace("...", ".")]


def run(planned: tuple, operands):
    """The ops a ``plan`` lists, on ``operands``."""
    steps, result = planned
    slots = list(operands)
    for fn, slot, other, params in steps:
        x = slots[slot]
        slots[slot] = fn(x, **params) if other is None else fn(x, slots[other], **params)
    return slots[result]


# The steps' ops. Permutes, unsqueezes and bmm are the primitives themselves: their arguments
# are valid by construction, and the public functions' checks cost ~2 us each.


def _diagonal_at(x, first: int, second: int):
    """The diagonal of dims ``first < second``, where ``first`` stood."""
    return x.diagonal(0, first, second).movedim(-1, first)


def _reshape(x, shape: tuple):
    """``x.reshape(shape)``, past its argument parsing (``shape``: ints of ``x``'s numel)."""
    if x._data.flags.c_contiguous:
        return _view(x, shape=shape)
    return x.reshape(shape)  # (a view its strides allow, or a copy)


def _view_as(x, shape: tuple):
    """``x.view(shape)``, past its argument parsing (``shape``: ints of ``x``'s numel)."""
    if x._data.flags.c_contiguous:
        return _view(x, shape=shape)
    return x.view(shape)


def _sum(x, dims: tuple):
    return x.sum(list(dims))


def _sum_keepdims(x, dims: tuple):
    return x.sum(list(dims), keepdim=True)


def _sum_keepdim(x, dim: int):
    return x.sum(dim, keepdim=True)


def _mul(x, y):
    return x.mul(y)


def plan(equation: str, shapes: tuple) -> tuple:
    """The ops ATen's einsum records for ``equation`` on operands of ``shapes`` (a valid
    pair): ``(steps, result)``, each step ``(fn, slot, other, params)`` for ``slot =
    fn(slot, **params)``, or ``fn(slot, other, **params)`` where ``other`` is a slot; slot
    ``k`` starts as operand ``k``, and the einsum is slot ``result`` at the end."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = [_labels(t) for t in lhs.split(",")]
    ell_ndim = max((len(s) - len(t) + 1 for t, s in zip(terms, shapes) if None in t), default=0)
    counts = {c: 0 for c in _LETTERS}
    for t in terms:
        for c in t:
            if c is not None:
                counts[c] += 1

    # Each label's place in the common layout: the output's dims, then the summed ones.
    place: dict = {}
    n = 0
    ell_at, ell_in_out = 0, False
    if not arrow:
        n, ell_in_out = ell_ndim, True  # implicit output: ellipsis, then labels seen once
        for c in _LETTERS:
            if counts[c] == 1:
                place[c], n = n, n + 1
    else:
        for c in _labels(rhs):
            if c is None:
                ell_at, ell_in_out = n, True
                n += ell_ndim
            else:
                place[c], n = n, n + 1
    out_ndim = n
    if not ell_in_out:
        ell_at, n = n, n + ell_ndim
    for c in _LETTERS:
        if counts[c] and c not in place:
            place[c], n = n, n + 1

    steps = []
    now = list(shapes)  # each slot's shape, as the steps so far leave it

    def step(fn, slot, shape, other=None, /, **params):
        steps.append((fn, slot, other, params))
        now[slot] = tuple(shape)

    # How many operands carry each layout dim at a size other than 1: a dim is summed
    # when the pair being contracted holds its last two.
    carried = [0] * n
    for k, t in enumerate(terms):
        perm = [-1] * n
        d = 0
        for c in t:
            if c is None:
                covered = len(shapes[k]) - (len(t) - 1)  # the operand's, before diagonals
                for j in range(ell_ndim - covered, ell_ndim):
                    if now[k][d] != 1:
                        carried[ell_at + j] += 1
                    perm[ell_at + j], d = d, d + 1
            elif perm[place[c]] == -1:
                if now[k][d] != 1:
                    carried[place[c]] += 1
                perm[place[c]], d = d, d + 1
            else:  # a repeated label: its diagonal, where the label first stood
                prev = perm[place[c]]
                shape = list(now[k])
                shape[prev] = min(shape[prev], shape.pop(d))
                step(_diagonal_at, k, shape, first=prev, second=d)
        for p in range(n):
            if perm[p] == -1:
                step(_unsqueeze, k, now[k][:d] + (1,) + now[k][d:], dim=d)
                perm[p], d = d, d + 1
        step(_permute, k, [now[k][p] for p in perm], dims=tuple(perm))

    if len(terms) == 1:
        if n > out_ndim:
            step(_sum, 0, now[0][:out_ndim], dims=tuple(range(out_ndim, n)))
        return tuple(steps), 0

    slots = list(range(len(terms)))
    while len(slots) > 1:
        a, b = slots.pop(0), slots.pop(0)
        sum_dims, a_sums, b_sums = [], [], []
        for dim in range(out_ndim, n):
            sa, sb = now[a][dim] != 1, now[b][dim] != 1
            if sa and sb:
                carried[dim] -= 1
                if carried[dim] == 1:
                    sum_dims.append(dim)
                    carried[dim] = 0
            elif carried[dim] == 1:
                if sa:
                    a_sums.append(dim)
                    carried[dim] = 0
                elif sb:
                    b_sums.append(dim)
                    carried[dim] = 0
        if a_sums:
            step(_sum_keepdims, a, _ones_at(now[a], a_sums), dims=tuple(a_sums))
        if b_sums:
            step(_sum_keepdims, b, _ones_at(now[b], b_sums), dims=tuple(b_sums))
        slots.insert(0, _sumproduct_pair(step, now, a, b, sum_dims))

    (last,) = slots
    if n > out_ndim:  # the summed dims are now all 1: ATen views them away
        step(_view_as, last, now[last][:out_ndim], shape=now[last][:out_ndim])
    return tuple(steps), last


def _ones_at(shape: tuple, dims) -> tuple:
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _sumproduct_pair(step, now: list, left: int, right: int, sum_dims: list) -> int:
    """Plans ``(left * right).sum(sum_dims, keepdim=True)`` through one bmm, as ATen's: the
    slots hold the same number of dims, sizes equal or 1. Returns the slot of the result."""
    if not sum_dims:
        step(_mul, left, [r if s == 1 else s for s, r in zip(now[left], now[right])], right)
        return left
    lro, lo, ro = [], [], []
    sum_size = 1
    for i in range(len(now[left])):
        sl, sr = now[left][i] != 1, now[right][i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= now[left][i]
            elif sl:
                step(_sum_keepdim, left, _ones_at(now[left], (i,)), dim=i)
            elif sr:
                step(_sum_keepdim, right, _ones_at(now[right], (i,)), dim=i)
        elif sl and sr:
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    # With every right-only dim before the left-only ones, bmm's output is laid out as the
    # result when the operands swap.
    if lo and ro and ro[-1] < lo[0]:
        left, right, lo, ro = right, left, ro, lo
    lro_size = math.prod(now[left][d] for d in lro)
    lo_size = math.prod(now[left][d] for d in lo)
    ro_size = math.prod(now[right][d] for d in ro)
    out_size = (
        tuple(now[left][d] for d in lro)
        + tuple(now[left][d] for d in lo)
        + (1,) * len(sum_dims)
        + tuple(now[right][d] for d in ro)
    )
    order = lro + lo + sum_dims + ro
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    step(_permute, left, [now[left][d] for d in order], dims=tuple(order))
    step(_reshape, left, (lro_size, lo_size, sum_size), shape=(lro_size, lo_size, sum_size))
    right_order = lro + sum_dims + ro + lo
    step(_permute, right, [now[right][d] for d in right_order], dims=tuple(right_order))
    step(_reshape, right, (lro_size, sum_size, ro_size), shape=(lro_size, sum_size, ro_size))
    step(_bmm, left, (lro_size, lo_size, ro_size), right)
    step(_view_as, left, out_size, shape=out_size)
    step(_permute, left, [out_size[d] for d in back], dims=tuple(back))
    return left
