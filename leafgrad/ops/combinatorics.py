"""Tuples drawn from 1-d tensors: cartesian_prod and combinations.

Both pick entries by index arrays computed without gradient (a meshgrid, itertools), so
each picked entry's gradient flows back to it, to any order.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from .composites import meshgrid
from .indexing import index_select
from .joining import stack


def _vector(t, op: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}(): expected Tensors, got {type(t).__name__}")
    if t._data.ndim != 1:
        raise RuntimeError(f"{op}: expects 1-d tensors, got shape {list(t._data.shape)}")
    return t


@public(method=False)
def cartesian_prod(*tensors) -> Tensor:
    """Every tuple of one entry from each 1-d tensor, as the rows of an ``[N, k]`` tensor
    (the first tensor varies slowest); one tensor is returned as it is."""
    if not tensors:
        raise RuntimeError("cartesian_prod: expects at least one tensor")
    for t in tensors:
        _vector(t, "cartesian_prod")
    if len(tensors) == 1:
        return tensors[0]
    if len({t._data.dtype for t in tensors}) > 1:
        names = ", ".join(str(t.dtype) for t in tensors)
        raise RuntimeError(
            f"cartesian_prod: all tensors must have the same dtype, got {names}; convert them "
            "with .to(dtype)"
        )
    return stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


@public(method=False)
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-length combinations of the entries of a 1-d tensor (in lexicographic order
    of positions), as the rows of an ``[N, r]`` tensor; ``r=0`` gives an empty tensor."""
    _vector(input, "combinations")
    r = operator.index(r)
    if r < 0:
        raise RuntimeError(f"combinations: r must be non-negative, got {r}")
    if r == 0:
        return _wrap(np.zeros((0,), input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input._data.shape[0]), r))
    index = np.asarray(rows, np.int64).reshape(len(rows), r)
    return index_select(input, 0, _wrap(index.reshape(-1))).reshape(len(rows), r)


__all__ = exports(globals())
