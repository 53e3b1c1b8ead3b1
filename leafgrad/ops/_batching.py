"""Batching rules' shared vocabulary, and the elementwise rule most primitives get.

A rule gets the primitive, its arguments as called (some batched at ``level``) and its
parameters, and computes the batched result by calling ops on the arguments' values, whose
dim 0 is the batch; those calls record the autograd graph (and forward-mode tangents) on
the values. An elementwise op only needs the batch dim in front with the example dims
aligned behind it (NumPy broadcasting does the rest). The rules that remap dims live by
family: ``_batch_dims.py`` (reductions, shapes), ``_batch_index.py`` (indexing, scatter,
writes), ``_batch_products.py`` (matmul, einsum, linalg); ``_batching_table.py`` says which
primitive gets which. Functions that read values before any primitive batch as a whole
instead: ``_batch_whole.py`` (sort, topk, quantiles, lstsq, pinv), ``_batch_binning.py``.
"""

from __future__ import annotations

from .._batched import BatchedTensor, batched
from .._tensor import Tensor


def batched_out(result, level: int):
    if type(result) is tuple:
        return tuple(batched(r, level) for r in result)
    if type(result) is list:
        return [batched(r, level) for r in result]
    return batched(result, level)


def at_level(a, level: int) -> bool:
    return type(a) is BatchedTensor and a._level == level


def batch_size(args, level: int) -> int:
    for a in args:
        if at_level(a, level):
            return a._value.shape[0]
    raise AssertionError("a batching rule ran without a batched argument")


def aligned(a, level: int, rank: int):
    """``a``'s value (batch first) with size-1 dims inserted so its example has ``rank`` dims;
    an unbatched ``a`` as it is (NumPy aligns it from the right)."""
    if not at_level(a, level):
        return a
    value = a._value
    k = a._data.ndim
    if k < rank:
        value = value.reshape((value.shape[0],) + (1,) * (rank - k) + tuple(a._data.shape))
    return value


def materialized(a, level: int, size: int):
    """``a``'s value, or ``a`` expanded along a new batch dim when it is not batched."""
    if at_level(a, level):
        return a._value
    return a.unsqueeze(0).expand((size,) + tuple(a.shape))


def shift(d):
    """A dim of the example as a dim of the value (negative dims count from the end)."""
    if d is None:
        return None
    if isinstance(d, (tuple, list)):
        return type(d)(x + 1 if x >= 0 else x for x in d)
    return d + 1 if d >= 0 else d


def all_dims(a) -> tuple:
    return tuple(range(1, a._data.ndim + 1))


def pointwise(op, args, params, level):
    """Elementwise ops (with NumPy broadcasting among their tensor inputs)."""
    rank = max(a._data.ndim for a in args if isinstance(a, Tensor))
    return batched_out(op(*[aligned(a, level, rank) for a in args], **params), level)


def pointwise_all_batched(op, args, params, level):
    """Elementwise ops that sum a result over the dims an operand broadcasts along (prelu's
    weight gradient): every operand given the batch dim first (an unbatched one expanded),
    so that no sum runs across examples."""
    return materialize_then(pointwise, op, args, params, level)


def as_composite(op, args, params, level):
    """An op declared as a composite (``Composite.taylor_as``): the composite itself on the
    batched operands, whose ops have rules of their own."""
    return op.primitive.kind.taylor_as(*args, **params)


def materialize_then(body, op, args, params, level):
    size = batch_size(args, level)
    values = [
        batched(materialized(a, level, size), level) if isinstance(a, Tensor) else a for a in args
    ]
    return body(op, values, params, level)
