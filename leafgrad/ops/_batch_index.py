"""Batching rules for indexing, gather/scatter and writes into regions: the key or index
gets a batch dim in front (a full slice, or the index broadcast along the batch)."""

from __future__ import annotations

import numpy as np

from .._batched import batched
from .._tensor import Tensor, _wrap
from ._batching import aligned, at_level, batch_size, batched_out, materialized, pointwise, shift


def overwrite(op, args, params, level):
    target, src = args
    size = batch_size(args, level)
    tv = materialized(target, level, size)
    sv = aligned(src, level, target._data.ndim) if isinstance(src, Tensor) else src
    return batched_out(op(tv, sv, **params), level)


def masked_fill_tensor(op, args, params, level):
    """masked_fill with a batched 0-d value: where(mask, value, x) (the op wants a 0-d value)."""
    x, mask, value = args
    if not at_level(value, level):
        return pointwise(op, args, params, level)
    return value.where(mask, x)  # Tensor.where(cond, other): value where mask, else x


def _lift(view_fn, level):
    """A per-example view function made to act on values (batch first)."""
    if view_fn is None:
        return None
    return lambda t: view_fn(batched(t, level))._value


def regions(op, args, params, level):
    """zero_region / embed_region / copy_slices: in-place writes through views or keys."""
    size = batch_size(args, level)
    new = dict(params)
    if new.get("view_fn") is not None:
        new["view_fn"] = _lift(new["view_fn"], level)
    if new.get("key") is not None:
        key = new["key"]
        new["key"] = (slice(None),) + (key if isinstance(key, tuple) else (key,))
    if "shape" in new:
        new["shape"] = (size,) + tuple(new["shape"])
    values = [materialized(a, level, size) if isinstance(a, Tensor) else a for a in args]
    return batched_out(op(*values, **new), level)


def _advanced_first(indices) -> int:
    """How many dims NumPy puts first when the advanced indices are not adjacent (0 if they
    are: then they stay in place, after the batch dim)."""
    at = [i for i, k in enumerate(indices) if k is not None]
    if at and at[-1] - at[0] + 1 != len(at):
        return len(np.broadcast_shapes(*(np.shape(indices[i]) for i in at)))
    return 0


def index_rule(op, args, params, level):
    indices = tuple(params["indices"])
    out = op(args[0]._value, **{**params, "indices": (None,) + indices})
    first = _advanced_first(indices)
    return batched_out(out.movedim(first, 0) if first else out, level)


def index_put(op, args, params, level):
    """``x[key] = value`` out of place: the key gets the batch dim in front of it."""
    x, value = args
    size = batch_size(args, level)
    key = params["key"]
    key = key if isinstance(key, tuple) else (key,)
    region = np.broadcast_to(np.empty((), x._data.dtype), x._data.shape)[_index_key(key)].shape
    xv = materialized(x, level, size)
    vv = aligned(value, level, len(region)) if isinstance(value, Tensor) else value
    return batched_out(op(xv, vv, key=(slice(None),) + key), level)


def _index_key(key):
    return tuple(k._data if isinstance(k, Tensor) else k for k in key)


def index_put_impl(op, args, params, level):
    g = args[0]
    shape = (g._value.shape[0],) + tuple(params["shape"])
    first = _advanced_first(tuple(params["indices"]))
    value = g._value.movedim(0, first) if first else g._value
    indices = (None,) + tuple(params["indices"])
    return batched_out(op(value, **{**params, "shape": shape, "indices": indices}), level)


def backward_of_view(op, args, params, level):
    """select_backward / slice_backward / index_add / scatter_add: a shape and a dim."""
    g = args[0]
    shape = (g._value.shape[0],) + tuple(params["shape"])
    new = {**params, "shape": shape, "dim": shift(params["dim"])}
    if op.primitive.name == "gather_backward":
        # the index has the example's dims: give it a batch dim of size 1 (it broadcasts)
        new["index"] = np.broadcast_to(params["index"], shape[:1] + params["index"].shape)
    return batched_out(op(g._value, **new), level)


def index_slices(op, args, params, level):
    """index_add / index_copy / index_fill / scatter_add: every tensor operand with the batch
    in front (a 0-d one as (B, 1, ...), which broadcasts), the dim shifted past it; an index
    of slices (1-D) stays, one shaped like the operands (scatter_add) gets the batch too. A
    0-d example runs as one of shape (1,)."""
    size = batch_size(args, level)
    scalar = args[0]._data.ndim == 0
    rank = 1 + max(args[0]._data.ndim, 1)
    values = []
    for a in args:
        v = materialized(a, level, size)
        values.append(v.reshape((size,) + (1,) * (rank - 1)) if a._data.ndim == 0 else v)
    new = {**params, "dim": params["dim"] + 1}
    if op.primitive.name == "scatter_add":
        new["index"] = np.broadcast_to(params["index"], (size,) + params["index"].shape)
    out = op(*values, **new)
    return batched_out(out.reshape(size) if scalar else out, level)


def flat_positions(op, args, params, level):
    """take / take_backward / put: flat positions into each example, moved to its block of
    the batch's flattened value."""
    size = batch_size(args, level)
    values = [materialized(a, level, size) for a in args]
    index = params["index"]
    numel = int(np.prod(params["shape"] if "shape" in params else args[0]._data.shape))
    index = np.where(index < 0, index + numel, index)
    blocks = (np.arange(size) * numel).reshape((size,) + (1,) * index.ndim)
    new = {**params, "index": blocks + index}
    if "shape" in new:
        new["shape"] = (size,) + tuple(new["shape"])
    return batched_out(op(*values, **new), level)


def gather(op, args, params, level):
    x = args[0]
    index = params["index"]
    index = np.broadcast_to(index, (x._value.shape[0],) + index.shape)
    return batched_out(op(x._value, dim=shift(params["dim"]), index=index), level)


def scatter(op, args, params, level):
    """scatter/scatter_reduce: like gather, the index broadcast along the batch."""
    size = batch_size(args, level)
    values = [materialized(a, level, size) if isinstance(a, Tensor) else a for a in args]
    index = params["index"]
    new = {**params, "dim": shift(params["dim"])}
    new["index"] = np.broadcast_to(index, (size,) + np.shape(index))
    return batched_out(op(*values, **new), level)


def taken_at(op, args, params, level):
    """sort/topk's values taken at the indices they computed: the indices broadcast along the
    batch. (A batched sort() never gets here, ``_batch_whole.py``; a plain one does when its
    tangent is batched where only tangents are, at jacfwd's basis.)"""
    x = args[0]
    value, indices = x._value, params["indices"]
    scalar = x._data.ndim == 0  # a 0-d example (cummax): run as one of shape (1,)
    if scalar:
        value, indices = value.unsqueeze(-1), indices.reshape(1)
    indices = np.broadcast_to(indices, (value.shape[0],) + indices.shape)
    out = op(value, dim=shift(params["dim"]), indices=indices)
    return batched_out(out.squeeze(-1) if scalar else out, level)


def at_positions(op, args, params, level):
    """as_strided of a batched tangent of a plain input: each result element is the example's
    element at the same storage place of the input (0 where the input has none), read in
    row-major order, so the example's own layout does not matter. (A batched as_strided()
    input batches as a whole, ``ops/strided.py``.)"""
    value = args[0]._value
    index = params["positions"].index
    inside = index >= 0
    taken = value.reshape(value.shape[0], -1).index_select(1, _wrap(np.where(inside, index, 0)))
    if not inside.all():
        taken = taken.where(_wrap(inside), 0.0)
    return batched_out(taken.reshape((value.shape[0],) + tuple(params["size"])), level)


def nll_loss(op, args, params, level):
    """nll_loss of a batch of inputs against one example's class indices: the batch as one
    more leading dim (the indices repeated along it), unreduced, then each example reduced
    (a mean over the targets' total weight, the same for every example)."""
    (x,) = args
    value = x._value
    size, target = value.shape[0], params["target"]
    per_entry = op(
        value,
        **{
            **params,
            "target": np.broadcast_to(target, (size, *np.shape(target))),
            "class_dim": params["class_dim"] + 1,
            "reduction": 0,
        },
    )
    reduction = params["reduction"]
    if reduction == 0:
        return batched_out(per_entry, level)
    out = per_entry.sum(tuple(range(1, per_entry.ndim))) if per_entry.ndim > 1 else per_entry
    if reduction == 1:
        from .losses import total_weight  # why: losses imports _primitive, which imports us

        out = out / float(
            total_weight(target, params["weight"], params["ignore_index"], value._data.dtype)
        )
    return batched_out(out, level)
