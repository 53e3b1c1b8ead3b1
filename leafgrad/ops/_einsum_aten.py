"""einsum as ATen computes it (Linear.cpp's ``einsum`` and ``sumproduct_pair``), in leafgrad
ops, so that a graph through it records PyTorch's nodes: each operand diagonalised,
unsqueezed and permuted to one layout, then contracted left to right by bmm.

The installed PyTorch has no opt_einsum, so it contracts left to right and so does this.
"""

from __future__ import annotations

import math

from .reorder import _permute
from .shape import _unsqueeze

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # ATen's label order


def _labels(term: str) -> list:
    """A term's labels, ``None`` for its ellipsis (the equation is already checked)."""
    return [None if c == "." else c for c in term.replace("...", ".")]


def aten_einsum(equation: str, operands):
    """``einsum(equation, *operands)`` recorded as ATen's composite; the equation has been
    validated (``_normalize_equation``) and the operands share a dtype. (Its permutes and
    unsqueezes are the primitives themselves: their arguments are valid by construction,
    and the public functions' checks cost ~2 us each.)"""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = [_labels(t) for t in lhs.split(",")]
    ell_ndim = max((x.dim() - len(t) + 1 for t, x in zip(terms, operands) if None in t), default=0)
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

    # How many operands carry each layout dim at a size other than 1: a dim is summed
    # when the pair being contracted holds its last two.
    carried = [0] * n
    ops = []
    for t, operand in zip(terms, operands):
        x = operand
        perm = [-1] * n
        d = 0
        for c in t:
            if c is None:
                covered = operand.dim() - (len(t) - 1)  # the operand's, before diagonals
                for j in range(ell_ndim - covered, ell_ndim):
                    if x.shape[d] != 1:
                        carried[ell_at + j] += 1
                    perm[ell_at + j], d = d, d + 1
            elif perm[place[c]] == -1:
                if x.shape[d] != 1:
                    carried[place[c]] += 1
                perm[place[c]], d = d, d + 1
            else:  # a repeated label: its diagonal, where the label first stood
                prev = perm[place[c]]
                x = x.diagonal(0, prev, d).movedim(-1, prev)
        for p in range(n):
            if perm[p] == -1:
                x = _unsqueeze(x, dim=d)
                perm[p], d = d, d + 1
        ops.append(_permute(x, dims=tuple(perm)))

    if len(ops) == 1:
        x = ops[0]
        return x.sum(list(range(out_ndim, n))) if n > out_ndim else x

    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sums, b_sums = [], [], []
        for dim in range(out_ndim, n):
            sa, sb = a.shape[dim] != 1, b.shape[dim] != 1
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
            a = a.sum(a_sums, keepdim=True)
        if b_sums:
            b = b.sum(b_sums, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    x = ops[0]
    # The summed dims are now all 1: ATen views them away.
    return x.view(list(x.shape[:out_ndim])) if n > out_ndim else x


def _sumproduct_pair(left, right, sum_dims: list):
    """``(left * right).sum(sum_dims, keepdim=True)`` through one bmm, as ATen's; the operands
    have the same number of dims, sizes equal or 1."""
    if not sum_dims:
        return left.mul(right)
    lro, lo, ro = [], [], []
    sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
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
    lro_size = math.prod(left.shape[d] for d in lro)
    lo_size = math.prod(left.shape[d] for d in lo)
    ro_size = math.prod(right.shape[d] for d in ro)
    out_size = (
        [left.shape[d] for d in lro]
        + [left.shape[d] for d in lo]
        + [1] * len(sum_dims)
        + [right.shape[d] for d in ro]
    )
    order = lro + lo + sum_dims + ro
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    left = _permute(left, dims=tuple(order)).reshape(lro_size, lo_size, sum_size)
    right = _permute(right, dims=tuple(lro + sum_dims + ro + lo)).reshape(
        lro_size, sum_size, ro_size
    )
    return _permute(left.bmm(right).view(out_size), dims=tuple(back))
