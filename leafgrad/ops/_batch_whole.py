"""Batching for functions that read their input's values before calling a primitive.

sort, topk, argsort, cummax and cummin compute each example's order (indices) from its
values in NumPy, then take the values at those indices with a primitive. A primitive-level
rule cannot batch them (a batched tensor's values are not readable one example at a time),
so the whole function gets one: on a batched input it runs on the batch value with its dim
shifted past the batch dim, which gives every example's indices at once and records the
autograd graph on the value, as the primitive rules do.
"""

from __future__ import annotations

import functools
import inspect

from .._batched import BatchedTensor, batched
from .._tensor import _normalize_dim


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
