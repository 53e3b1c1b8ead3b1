"""Batching for functions that read their input's values before calling a primitive.

sort, topk, argsort, cummax and cummin compute each example's order (indices) from its
values in NumPy, then take the values at those indices with a primitive; quantile and
nanquantile compute their ranks from the sorted values. A primitive-level
rule cannot batch them (a batched tensor's values are not readable one example at a time),
so the whole function gets one: on a batched input it runs on the batch value with its dim
shifted past the batch dim, which gives every example's indices at once and records the
autograd graph on the value, as the primitive rules do.
"""

from __future__ import annotations

import functools
import inspect
import operator

import numpy as np

from .._batched import BatchedTensor, batched, physical, rewrap, union_levels, with_levels
from .._tensor import Tensor, _normalize_dim
from ._batch_loop import batched_check
from ._reduce import _one_dim


def batches_along(dim_name: str, op: str):
    """Decorate a function of one tensor (its first parameter) working along ``dim_name``."""

    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            x = args[0] if args else kwargs.get("input")
            if type(x) is not BatchedTensor:
                return fn(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            if bound.arguments.get("out") is not None:
                raise RuntimeError(f"vmap: {op}() with out= is not supported under vmap")
            return _on_value(wrapper, bound, x, dim_name, op)  # nested vmaps: once per level

        return wrapper

    return decorate


def _on_value(fn, bound, x, dim_name, op):
    arguments = dict(bound.arguments)
    first = next(iter(arguments))
    example_rank = x._data.ndim
    d = _normalize_dim(int(arguments[dim_name]), example_rank, op)
    value = x._value.unsqueeze(-1) if example_rank == 0 else x._value
    arguments[first] = value
    arguments[dim_name] = d + 1
    out = fn(**arguments)

    def back(t):
        return batched(t.squeeze(-1) if example_rank == 0 else t, x._level)

    if isinstance(out, tuple):
        outs = [back(t) for t in out]
        return type(out)(*outs) if hasattr(out, "_fields") else tuple(outs)
    return back(out)


def batches_index(op: str, tensors: tuple):
    """Decorate a function of tensors ``tensors`` (the index among them) and a ``dim``
    (gather, scatter) whose index may be batched: its values pick per example, which a
    primitive-level rule cannot do (an index is a parameter there, read before the call).
    Under vmap with a batched index it runs once on the batch values, every tensor given the
    vmap's batch dim in front and ``dim`` shifted past it; an unbatched index leaves the call
    as it was (the primitive's rule broadcasts it)."""

    def decorate(fn):
        signature = inspect.signature(fn)
        index_batched = batched_check(fn, ("index",))

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not index_batched(args, kwargs):
                return fn(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            if bound.arguments.get("out") is not None:
                raise RuntimeError(f"vmap: {op}() with out= is not supported under vmap")
            return _index_on_values(wrapper, dict(bound.arguments), tensors, op)

        return wrapper

    return decorate


def _index_on_values(fn, arguments, tensors, op):
    given = {k: arguments[k] for k in tensors if isinstance(arguments[k], Tensor)}
    level = max(t._level for t in given.values() if type(t) is BatchedTensor)
    size = next(t._value.shape[0] for t in given.values() if _at(t, level))
    rank = arguments["index"]._data.ndim  # an example's (input and index agree, or fn raises)
    for k, t in given.items():
        v = t._value if _at(t, level) else t.unsqueeze(0).expand((size,) + tuple(t._data.shape))
        arguments[k] = v.unsqueeze(-1) if rank == 0 else v  # 0-d examples: a dim of one
    arguments["dim"] = _normalize_dim(operator.index(arguments["dim"]), max(rank, 1), op) + 1
    out = fn(**arguments)  # nested vmaps: once per level
    return batched(out.squeeze(-1) if rank == 0 else out, level)


def batches_trailing(cores):
    """Decorate a function of tensors that works on their trailing (core) dims and batches
    over leading ones (linalg.lstsq, linalg.pinv): under vmap it runs once on the batch
    values, each tensor argument with its example's batch dims aligned behind the vmap's.
    ``cores(arguments)`` gives the number of core dims of each tensor parameter."""

    def decorate(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not any(type(a) is BatchedTensor for a in (*args, *kwargs.values())):
                return fn(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            core = cores(arguments)
            tensors = {k: arguments[k] for k in core if isinstance(arguments[k], Tensor)}
            level = max(t._level for t in tensors.values() if type(t) is BatchedTensor)
            size = next(t._value.shape[0] for t in tensors.values() if _at(t, level))
            own = {k: t._data.ndim - core[k] for k, t in tensors.items()}
            rank = max(own.values())
            for k, t in tensors.items():
                shape = tuple(t._data.shape)
                v = t._value if _at(t, level) else t.unsqueeze(0).expand((size,) + shape)
                if own[k] < rank:
                    v = v.reshape((size,) + (1,) * (rank - own[k]) + shape)
                arguments[k] = v
            # the batch dims broadcast explicitly: a 1-D right side of lstsq stays a vector
            batch = np.broadcast_shapes(*(tuple(arguments[k].shape[: rank + 1]) for k in tensors))
            for k, t in tensors.items():
                core_shape = tuple(t._data.shape[own[k] :]) if core[k] else ()
                arguments[k] = arguments[k].expand(batch + core_shape)
            out = wrapper(**arguments)  # nested vmaps: once per level

            def back(t):
                if not isinstance(t, Tensor):
                    return t
                if t._data.shape == (0,):  # an output the function leaves empty
                    return batched(t.unsqueeze(0).expand(size, 0), level)
                return batched(t, level)

            if isinstance(out, tuple):
                outs = [back(t) for t in out]
                return type(out)(*outs) if hasattr(out, "_fields") else tuple(outs)
            return back(out)

        return wrapper

    return decorate


def batches_quantile(fn):
    """Decorate ``_quantile(op, input, q, dim, keepdim, interpolation, ignore_nan)``: under vmap
    it runs once on the batch value, over each example's elements (``dim`` None) or along
    ``dim`` shifted past the batch dim; a 1-D ``q``'s dim then moves behind the batch dim."""

    @functools.wraps(fn)
    def wrapper(op, input, q, dim, keepdim, interpolation, ignore_nan):
        if type(q) is BatchedTensor:
            return _with_batched_q(fn, op, input, q, dim, keepdim, interpolation, ignore_nan)
        if type(input) is not BatchedTensor:
            return fn(op, input, q, dim, keepdim, interpolation, ignore_nan)
        rank, value = input._data.ndim, input._value
        size = value.shape[0]
        if dim is None:
            out = wrapper(op, value.reshape(size, -1), q, 1, False, interpolation, ignore_nan)
            if keepdim:
                out = out.reshape(tuple(out.shape) + (1,) * rank)
        else:
            d = _one_dim(dim, rank, op)
            if rank == 0:  # a 0-d example's dim 0 is itself: one value per row
                value, keepdim = value.reshape(size, 1), False
            out = wrapper(op, value, q, d + 1, keepdim, interpolation, ignore_nan)
        if isinstance(q, Tensor) and q.dim() == 1:
            out = out.movedim(1, 0)  # (quantiles, batch, ...) -> (batch, quantiles, ...)
        return batched(out, input._level)

    return wrapper


def _with_batched_q(fn, op, input, q, dim, keepdim, interpolation, ignore_nan):
    """Quantiles with a ``q`` of each example's own: every vmap level of either flattened into
    one dim of rows, each row with its q (``fn``'s ``q_rows``)."""
    if q._data.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor, got shape {list(q.shape)}")
    levels = union_levels(input, q)
    value = physical(with_levels(input, levels))
    lead = tuple(value.shape[: len(levels)])
    rows = int(np.prod(lead))
    rank = input._data.ndim
    value = value.reshape((rows,) + tuple(input._data.shape))
    qs = physical(with_levels(q, levels)).reshape((rows,) + tuple(q._data.shape))
    if dim is None:
        out = fn(op, value.reshape(rows, -1), qs, 1, False, interpolation, ignore_nan, True)
        if keepdim:
            out = out.reshape(tuple(out.shape) + (1,) * rank)
    else:
        d = _one_dim(dim, rank, op)
        if rank == 0:  # a 0-d example's dim 0 is itself: one value per row
            value, keepdim = value.reshape(rows, 1), False
        out = fn(op, value, qs, d + 1, keepdim, interpolation, ignore_nan, True)
    if q._data.ndim == 1:
        out = out.movedim(1, 0)  # (quantiles, rows, ...) -> (rows, quantiles, ...)
    return rewrap(out.reshape(lead + tuple(out.shape[1:])), levels)


def _at(t, level: int) -> bool:
    return type(t) is BatchedTensor and t._level == level
