"""Batching rules: how each primitive runs on BatchedTensors (``_batched.py``) under vmap.

A rule gets the primitive, its arguments as called (some batched at ``level``) and its
parameters, and computes the batched result by calling ops on the arguments' values, whose
dim 0 is the batch; those calls record the autograd graph (and forward-mode tangents) on
the values. Rules are looked up by the registry key. Most ops need little: an elementwise
op only needs the batch dim in front with the example dims aligned behind it (NumPy
broadcasting does the rest); ops whose parameters name dims get them shifted past the batch
dim; ops that work on trailing dims (matmul, linalg) see the batch as one more leading dim.
Which primitive gets which rule is ``_batching_table.py``'s business.
"""

from __future__ import annotations

import numpy as np

from .._batched import BatchedTensor, batched
from .._tensor import Tensor

# ----- helpers -----


def _out(result, level: int):
    if type(result) is tuple:
        return tuple(batched(r, level) for r in result)
    if type(result) is list:
        return [batched(r, level) for r in result]
    return batched(result, level)


def _at(a, level: int) -> bool:
    return type(a) is BatchedTensor and a._level == level


def _size(args, level: int) -> int:
    for a in args:
        if _at(a, level):
            return a._value.shape[0]
    raise AssertionError("a batching rule ran without a batched argument")


def _aligned(a, level: int, rank: int):
    """``a``'s value (batch first) with size-1 dims inserted so its example has ``rank`` dims;
    an unbatched ``a`` as it is (NumPy aligns it from the right)."""
    if not _at(a, level):
        return a
    value = a._value
    k = a._data.ndim
    if k < rank:
        value = value.reshape((value.shape[0],) + (1,) * (rank - k) + tuple(a._data.shape))
    return value


def _materialized(a, level: int, size: int):
    """``a``'s value, or ``a`` expanded along a new batch dim when it is not batched."""
    if _at(a, level):
        return a._value
    return a.unsqueeze(0).expand((size,) + tuple(a.shape))


def _shift(d):
    """A dim of the example as a dim of the value (negative dims count from the end)."""
    if d is None:
        return None
    if isinstance(d, (tuple, list)):
        return type(d)(x + 1 if x >= 0 else x for x in d)
    return d + 1 if d >= 0 else d


def _all_dims(a) -> tuple:
    return tuple(range(1, a._data.ndim + 1))


# ----- rules -----


def pointwise(op, args, params, level):
    """Elementwise ops (with NumPy broadcasting among their tensor inputs)."""
    rank = max(a._data.ndim for a in args if isinstance(a, Tensor))
    return _out(op(*[_aligned(a, level, rank) for a in args], **params), level)


def _with_dims(*names, none_means_all=True):
    """Ops of one batched tensor whose parameters ``names`` are example dims."""

    def rule(op, args, params, level):
        x = args[0]
        if not _at(x, level) or any(_at(a, level) for a in args[1:]):
            return _materialize_then(rule_body, op, args, params, level)
        return rule_body(op, args, params, level)

    def rule_body(op, args, params, level):
        x, new = args[0], dict(params)
        value = x._value
        scalar = x._data.ndim == 0 and any(new.get(n) is not None for n in names)
        if scalar:  # a 0-d example's only dim (0 or -1): run it as a dim of size 1
            value = value.unsqueeze(-1)
        for name in names:
            if name in new:
                if new[name] is None and none_means_all:
                    new[name] = _all_dims(x)
                elif scalar:
                    new[name] = (
                        type(new[name])([1] * len(new[name]))
                        if isinstance(new[name], (tuple, list))
                        else 1
                    )
                else:
                    new[name] = _shift(new[name])
        out = op(value, *args[1:], **new)
        if scalar:
            out = (
                tuple(o.squeeze(-1) if o.dim() == 2 else o for o in out)
                if type(out) is tuple
                else (out.squeeze(-1) if out.dim() == 2 else out)
            )
        return _out(out, level)

    return rule


def _materialize_then(body, op, args, params, level):
    size = _size(args, level)
    values = [
        batched(_materialized(a, level, size), level) if isinstance(a, Tensor) else a for a in args
    ]
    return body(op, values, params, level)


def _unsqueeze(op, args, params, level):
    """unsqueeze: its dim ranges over the example's dims plus one (so a 0-d example has 0)."""
    return _out(op(args[0]._value, dim=_shift(params["dim"])), level)


def _flat_index(op, args, params, level):
    """argmax/argmin: over the flattened example when ``dim`` is None."""
    x = args[0]
    if params.get("dim") is not None:
        return _with_dims("dim")(op, args, params, level)
    v = x._value
    out = op(v.reshape(v.shape[0], -1), dim=1, keepdim=False)
    if params.get("keepdim"):
        out = out.reshape((v.shape[0],) + (1,) * x._data.ndim)
    return _out(out, level)


def _full_extreme(op, args, params, level):
    """max()/min() of the whole example: amax/amin over its dims (ties share the gradient)."""
    x = args[0]
    reduce = x._value.amax if op.primitive.name == "max" else x._value.amin
    return _out(reduce(dim=_all_dims(x)) if x._data.ndim else x._value.clone(), level)


def _new_shape(op, args, params, level):
    """view/squeeze/expand: the target shape of the example, after the batch dim."""
    x = args[0]
    shape = tuple(params["shape"])
    value = _aligned(x, level, len(shape)) if op.primitive.name == "expand" else x._value
    return _out(op(value, shape=(value.shape[0],) + shape), level)


def _diagonal_backward(op, args, params, level):
    """The adjoint of diagonal: a zero example of ``shape`` with the gradient on its diagonal."""
    shape = tuple(params["shape"])
    value = _aligned(args[0], level, args[0]._data.ndim)
    dims = {k: params[k] % len(shape) + 1 for k in ("dim1", "dim2")}
    shape = (value.shape[0],) + shape
    return _out(op(value, shape=shape, offset=params["offset"], **dims), level)


def _sum_to(op, args, params, level):
    x, shape = args[0], tuple(params["shape"])
    value, extra = x._value, x._data.ndim - len(shape)
    if extra > 0:
        value = value.sum(dim=tuple(range(1, extra + 1)))
    return _out(op(value, shape=(value.shape[0],) + shape), level)


def _repeat(op, args, params, level):
    x, repeats = args[0], tuple(params["repeats"])
    value = _aligned(x, level, len(repeats))
    return _out(op(value, repeats=(1,) + repeats), level)


def _permute(op, args, params, level):
    n = args[0]._data.ndim
    dims = (0,) + tuple((d % n) + 1 for d in params["dims"])
    return _out(op(args[0]._value, dims=dims), level)


def _transpose_2d(op, args, params, level):
    x = args[0]
    value = x._value
    return _out(value.transpose(1, 2) if x._data.ndim == 2 else value.view(value.shape), level)


def _flattened(op, args, params, level):
    """prod() of the whole example, roll(dims=None): on the flattened example."""
    x = args[0]
    if op.primitive.name == "roll" and params.get("dims") is not None:
        return _with_dims("dims")(op, args, params, level)
    if op.primitive.name == "prod" and params.get("dim") is not None:
        return _with_dims("dim")(op, args, params, level)
    value = x._value
    flat = value.reshape(value.shape[0], -1)
    if op.primitive.name == "roll":
        return _out(op(flat, shifts=params["shifts"], dims=(1,)).reshape(value.shape), level)
    return _out(op(flat, **{**params, "dim": (1,), "keepdim": False}), level)


def _solve(op, args, params, level):
    """Two-operand solvers: the batch in front, each operand's own batch dims aligned."""
    core = [2, 1 if params.get("vector") else 2]
    if op.primitive.name == "cholesky_solve":
        core = [2, 2]
    rank = max(a._data.ndim - c for a, c in zip(args, core))
    size = _size(args, level)
    values = []
    for a, c in zip(args, core):
        v = _materialized(a, level, size)
        own = a._data.ndim - c
        if own < rank:
            v = v.reshape((size,) + (1,) * (rank - own) + tuple(a._data.shape))
        values.append(v)
    return _out(op(*values, **params), level)


def _overwrite(op, args, params, level):
    target, src = args
    size = _size(args, level)
    tv = _materialized(target, level, size)
    sv = _aligned(src, level, target._data.ndim) if isinstance(src, Tensor) else src
    return _out(op(tv, sv, **params), level)


def _masked_fill_tensor(op, args, params, level):
    """masked_fill with a batched 0-d value: where(mask, value, x) (the op wants a 0-d value)."""
    x, mask, value = args
    if not _at(value, level):
        return pointwise(op, args, params, level)
    return value.where(mask, x)  # Tensor.where(cond, other): value where mask, else x


def _lift(view_fn, level):
    """A per-example view function made to act on values (batch first)."""
    if view_fn is None:
        return None
    return lambda t: view_fn(batched(t, level))._value


def _regions(op, args, params, level):
    """zero_region / embed_region / copy_slices: in-place writes through views or keys."""
    size = _size(args, level)
    new = dict(params)
    if new.get("view_fn") is not None:
        new["view_fn"] = _lift(new["view_fn"], level)
    if new.get("key") is not None:
        key = new["key"]
        new["key"] = (slice(None),) + (key if isinstance(key, tuple) else (key,))
    if "shape" in new:
        new["shape"] = (size,) + tuple(new["shape"])
    values = [_materialized(a, level, size) if isinstance(a, Tensor) else a for a in args]
    return _out(op(*values, **new), level)


_FRESH = "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"


def _einsum(op, args, params, level):
    """einsum: a fresh subscript for the batch, on the batched operands and the output."""
    equation, sizes = params["equation"], params["sizes"]
    c = next(ch for ch in _FRESH if ch not in equation)
    lhs, out = equation.split("->")
    terms = [c + t if _at(a, level) else t for a, t in zip(args, lhs.split(","))]
    values = [a._value if _at(a, level) else a for a in args]
    new = {"equation": ",".join(terms) + "->" + c + out, "sizes": {**sizes, c: _size(args, level)}}
    return _out(op(*values, **new), level)


def _trailing(op, args, params, level):
    """Ops on the trailing dims of every input, batching over leading ones (linalg ...)."""
    size = _size(args, level)
    values = [_materialized(a, level, size) if isinstance(a, Tensor) else a for a in args]
    return _out(op(*values, **params), level)


def _joined(op, args, params, level):
    """cat/stack: every input batched, the dim shifted."""
    size = _size(args, level)
    values = [_materialized(a, level, size) for a in args]
    dim = params["dim"]
    return _out(op(*values, **{**params, "dim": dim + 1 if dim >= 0 else dim}), level)


def _advanced_first(indices) -> int:
    """How many dims NumPy puts first when the advanced indices are not adjacent (0 if they
    are: then they stay in place, after the batch dim)."""
    at = [i for i, k in enumerate(indices) if k is not None]
    if at and at[-1] - at[0] + 1 != len(at):
        return len(np.broadcast_shapes(*(np.shape(indices[i]) for i in at)))
    return 0


def _index(op, args, params, level):
    indices = tuple(params["indices"])
    out = op(args[0]._value, **{**params, "indices": (None,) + indices})
    first = _advanced_first(indices)
    return _out(out.movedim(first, 0) if first else out, level)


def _index_put(op, args, params, level):
    """``x[key] = value`` out of place: the key gets the batch dim in front of it."""
    x, value = args
    size = _size(args, level)
    key = params["key"]
    key = key if isinstance(key, tuple) else (key,)
    region = np.broadcast_to(np.empty((), x._data.dtype), x._data.shape)[_index_key(key)].shape
    xv = _materialized(x, level, size)
    vv = _aligned(value, level, len(region)) if isinstance(value, Tensor) else value
    return _out(op(xv, vv, key=(slice(None),) + key), level)


def _index_key(key):
    return tuple(k._data if isinstance(k, Tensor) else k for k in key)


def _index_put_impl(op, args, params, level):
    g = args[0]
    shape = (g._value.shape[0],) + tuple(params["shape"])
    first = _advanced_first(tuple(params["indices"]))
    value = g._value.movedim(0, first) if first else g._value
    indices = (None,) + tuple(params["indices"])
    return _out(op(value, **{**params, "shape": shape, "indices": indices}), level)


def _backward_of_view(op, args, params, level):
    """select_backward / slice_backward / index_add / scatter_add: a shape and a dim."""
    g = args[0]
    shape = (g._value.shape[0],) + tuple(params["shape"])
    new = {**params, "shape": shape, "dim": _shift(params["dim"])}
    if op.primitive.name == "scatter_add":
        # the index has the example's dims: give it a batch dim of size 1 (it broadcasts)
        new["index"] = np.broadcast_to(params["index"], shape[:1] + params["index"].shape)
    return _out(op(g._value, **new), level)


def _gather(op, args, params, level):
    x = args[0]
    index = params["index"]
    index = np.broadcast_to(index, (x._value.shape[0],) + index.shape)
    return _out(op(x._value, dim=_shift(params["dim"]), index=index), level)


def _scatter(op, args, params, level):
    """scatter/scatter_reduce: like gather, the index broadcast along the batch."""
    size = _size(args, level)
    values = [_materialized(a, level, size) if isinstance(a, Tensor) else a for a in args]
    index = params["index"]
    new = {**params, "dim": _shift(params["dim"])}
    new["index"] = np.broadcast_to(index, (size,) + np.shape(index))
    return _out(op(*values, **new), level)


def _matmul(op, args, params, level):
    """matmul/mm/mv/bmm/dot/vecmat: as one matrix product where one operand is unbatched
    (the batch joins the rows of a single GEMM), else 1-D operands made matrices and the
    batch a leading dim."""
    a, b = args
    da, db = a._data.ndim, b._data.ndim
    if op.primitive.name == "dot":
        return pointwise_product_sum(a, b, level)
    if _at(a, level) and not _at(b, level) and db <= 2:
        av = a._value
        if da <= 1 or db == 1:
            return _out(av.matmul(b), level)  # (B, n) @ (n, m) or (B, ..., n) @ (n,)
        rows = av.reshape(-1, av.shape[-1]).matmul(b)
        return _out(rows.reshape(tuple(av.shape[:-1]) + (b.shape[-1],)), level)
    if _at(b, level) and not _at(a, level) and da == 2:
        bv = b._value
        if db == 1:
            return _out(bv.matmul(a.transpose(0, 1)), level)  # (B, n) @ (n, k): one GEMM
        cols = bv.transpose(-1, -2)
        out = cols.reshape(-1, cols.shape[-1]).matmul(a.transpose(0, 1))
        return _out(out.reshape(tuple(cols.shape[:-1]) + (a.shape[0],)).transpose(-1, -2), level)
    av = a._value if _at(a, level) else a
    bv = b._value if _at(b, level) else b
    if da == 1:
        av = av.unsqueeze(-2)
    if db == 1:
        bv = bv.unsqueeze(-1)
    rank = max(da, db, 2)
    if _at(a, level) and max(da, 2) < rank:
        av = av.reshape((av.shape[0],) + (1,) * (rank - max(da, 2)) + tuple(av.shape[1:]))
    if _at(b, level) and max(db, 2) < rank:
        bv = bv.reshape((bv.shape[0],) + (1,) * (rank - max(db, 2)) + tuple(bv.shape[1:]))
    out = av.matmul(bv)
    if da == 1:
        out = out.squeeze(-2)
    if db == 1:
        out = out.squeeze(-1)
    return _out(out, level)


def pointwise_product_sum(a, b, level):
    return _out((_aligned(a, level, 1) * _aligned(b, level, 1)).sum(-1), level)


def _addmm(op, args, params, level):
    x, a, b = args
    beta, alpha = params.get("beta", 1), params.get("alpha", 1)
    product = a.matmul(b)
    if alpha != 1:
        product = product * alpha
    return product if beta == 0 else (x if beta == 1 else x * beta) + product
