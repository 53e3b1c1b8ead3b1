"""Batching rules for products and linear algebra: matmul as one GEMM where it can be,
einsum with a fresh subscript for the batch, and ops on trailing (core) dims that batch over
leading ones, where the vmap's batch is one more leading dim."""

from __future__ import annotations

from .._tensor import Tensor
from ._batching import aligned, at_level, batch_size, batched_out, materialized


def matmul_rule(op, args, params, level):
    """matmul/mm/mv/bmm/dot/vecmat: as one matrix product where one operand is unbatched
    (the batch joins the rows of a single GEMM), else 1-D operands made matrices and the
    batch a leading dim."""
    a, b = args
    da, db = a._data.ndim, b._data.ndim
    if op.primitive.name == "dot":
        return pointwise_product_sum(a, b, level)
    if at_level(a, level) and not at_level(b, level) and db <= 2:
        av = a._value
        if da <= 1 or db == 1:
            return batched_out(av.matmul(b), level)  # (B, n) @ (n, m) or (B, ..., n) @ (n,)
        rows = av.reshape(-1, av.shape[-1]).matmul(b)
        return batched_out(rows.reshape(tuple(av.shape[:-1]) + (b.shape[-1],)), level)
    if at_level(b, level) and not at_level(a, level) and da == 2:
        bv = b._value
        if db == 1:
            return batched_out(bv.matmul(a.transpose(0, 1)), level)  # (B, n) @ (n, k): one GEMM
        cols = bv.transpose(-1, -2)
        out = cols.reshape(-1, cols.shape[-1]).matmul(a.transpose(0, 1))
        return batched_out(
            out.reshape(tuple(cols.shape[:-1]) + (a.shape[0],)).transpose(-1, -2), level
        )
    av = a._value if at_level(a, level) else a
    bv = b._value if at_level(b, level) else b
    if da == 1:
        av = av.unsqueeze(-2)
    if db == 1:
        bv = bv.unsqueeze(-1)
    rank = max(da, db, 2)
    if at_level(a, level) and max(da, 2) < rank:
        av = av.reshape((av.shape[0],) + (1,) * (rank - max(da, 2)) + tuple(av.shape[1:]))
    if at_level(b, level) and max(db, 2) < rank:
        bv = bv.reshape((bv.shape[0],) + (1,) * (rank - max(db, 2)) + tuple(bv.shape[1:]))
    out = av.matmul(bv)
    if da == 1:
        out = out.squeeze(-2)
    if db == 1:
        out = out.squeeze(-1)
    return batched_out(out, level)


def pointwise_product_sum(a, b, level):
    return batched_out((aligned(a, level, 1) * aligned(b, level, 1)).sum(-1), level)


def addmm(op, args, params, level):
    x, a, b = args
    beta, alpha = params.get("beta", 1), params.get("alpha", 1)
    product = a.matmul(b)
    if alpha != 1:
        product = product * alpha
    return product if beta == 0 else (x if beta == 1 else x * beta) + product


_FRESH = "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"


def einsum_rule(op, args, params, level):
    """einsum: a fresh subscript for the batch, on the batched operands and the output."""
    equation, sizes = params["equation"], params["sizes"]
    c = next(ch for ch in _FRESH if ch not in equation)
    lhs, out = equation.split("->")
    terms = [c + t if at_level(a, level) else t for a, t in zip(args, lhs.split(","))]
    values = [a._value if at_level(a, level) else a for a in args]
    new = {
        "equation": ",".join(terms) + "->" + c + out,
        "sizes": {**sizes, c: batch_size(args, level)},
    }
    return batched_out(op(*values, **new), level)


def solve(op, args, params, level):
    """Two-operand solvers: the batch in front, each operand's own batch dims aligned."""
    core = [2, 1 if params.get("vector") else 2]
    if op.primitive.name == "cholesky_solve":
        core = [2, 2]
    rank = max(a._data.ndim - c for a, c in zip(args, core))
    size = batch_size(args, level)
    values = []
    for a, c in zip(args, core):
        v = materialized(a, level, size)
        own = a._data.ndim - c
        if own < rank:
            v = v.reshape((size,) + (1,) * (rank - own) + tuple(a._data.shape))
        values.append(v)
    return batched_out(op(*values, **params), level)


def trailing(op, args, params, level):
    """Ops on the trailing dims of every input, batching over leading ones (linalg ...)."""
    size = batch_size(args, level)
    values = [materialized(a, level, size) if isinstance(a, Tensor) else a for a in args]
    return batched_out(op(*values, **params), level)


def jet_linear_rule(op, args, params, level):
    """jet_linear ``p @ w`` (``w`` 2-D): one GEMM with an unbatched ``w``, else batched."""
    p, w = args
    if not at_level(w, level):
        return batched_out(op(p._value, w), level)
    size = batch_size(args, level)
    pv = materialized(p, level, size)
    rows = pv.reshape(size, -1, pv.shape[-1]).matmul(w._value)
    return batched_out(rows.reshape(tuple(pv.shape[:-1]) + (rows.shape[-1],)), level)


def jet_linear_backward_rule(op, args, params, level):
    """jet_linear_backward ``(grad w^T, p^T grad)``: per example, as batched products."""
    grad, p, w = args
    size = batch_size(args, level)
    gv, pv = materialized(grad, level, size), materialized(p, level, size)
    wv = w._value if at_level(w, level) else w
    rows_g = gv.reshape(size, -1, gv.shape[-1])
    gp = rows_g.matmul(wv.transpose(-1, -2))
    gw = pv.reshape(size, -1, pv.shape[-1]).transpose(1, 2).matmul(rows_g)
    return batched_out((gp.reshape(tuple(gv.shape[:-1]) + (gp.shape[-1],)), gw), level)


def jet_outer_rule(op, args, params, level):
    """jet_outer ``sum_r p_r^T g_r`` over the rows of each example."""
    p, g = args
    size = batch_size(args, level)
    pv, gv = materialized(p, level, size), materialized(g, level, size)
    rows_p = pv.reshape(size, -1, pv.shape[-1])
    return batched_out(rows_p.transpose(1, 2).matmul(gv.reshape(size, -1, gv.shape[-1])), level)
