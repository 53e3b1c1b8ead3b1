"""NumPy-style joins and splits: atleast_1d/2d/3d, hstack/vstack/dstack/column_stack,
tensor_split and hsplit/vsplit/dsplit (``block_diag`` is an op: ``block_diag.py``).

All are composites of views, ``cat`` and ``narrow``, so their gradients (to any order) are
those of the ops they are made of, as in PyTorch, which composes them the same way.
"""

from __future__ import annotations

import itertools
import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from .joining import _tensor_list, cat
from .slicing import narrow

# ----- atleast_nd -----


def _atleast(tensors, op: str, fix):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(fix(t) for t in _tensor_list(tensors[0], op))
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensors, got {type(t).__name__}")
    out = tuple(fix(t) for t in tensors)
    return out[0] if len(out) == 1 else out


def _at_least_1d(t: Tensor) -> Tensor:
    return t.reshape(1) if t._data.ndim == 0 else t


def _at_least_2d(t: Tensor) -> Tensor:
    nd = t._data.ndim
    return t.reshape(1, 1) if nd == 0 else t.unsqueeze(0) if nd == 1 else t


def _at_least_3d(t: Tensor) -> Tensor:
    nd = t._data.ndim
    if nd == 0:
        return t.reshape(1, 1, 1)
    if nd == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if nd == 2 else t


@public(method=False)
def atleast_1d(*tensors):
    """Each tensor with at least one dim (0-d becomes shape [1]); others are returned as
    they are. One tensor gives a tensor, several (or a list) a tuple."""
    return _atleast(tensors, "atleast_1d", _at_least_1d)


@public(method=False)
def atleast_2d(*tensors):
    """Each tensor with at least two dims: 0-d becomes [1, 1], 1-d [1, n]."""
    return _atleast(tensors, "atleast_2d", _at_least_2d)


@public(method=False)
def atleast_3d(*tensors):
    """Each tensor with at least three dims: 0-d becomes [1, 1, 1], 1-d [1, n, 1], 2-d
    [m, n, 1]."""
    return _atleast(tensors, "atleast_3d", _at_least_3d)


# ----- stacks -----


def _nonempty(tensors, op: str) -> tuple:
    tensors = _tensor_list(tensors, op)
    if not tensors:
        raise RuntimeError(f"{op}(): expected a non-empty list of Tensors")
    return tensors


@public(method=False)
def vstack(tensors, *, out=None) -> Tensor:
    """Tensors stacked by rows: ``cat`` of their ``atleast_2d`` along dim 0."""
    tensors = _nonempty(tensors, "vstack")
    return cat([_at_least_2d(t) for t in tensors], 0, out=out)


row_stack = vstack


@public(method=False)
def hstack(tensors, *, out=None) -> Tensor:
    """Tensors stacked by columns: ``cat`` along dim 1 (dim 0 for 1-d tensors)."""
    tensors = [_at_least_1d(t) for t in _nonempty(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1, out=out)


@public(method=False)
def dstack(tensors, *, out=None) -> Tensor:
    """Tensors stacked along the third dim: ``cat`` of their ``atleast_3d`` along dim 2."""
    tensors = _nonempty(tensors, "dstack")
    return cat([_at_least_3d(t) for t in tensors], 2, out=out)


@public(method=False)
def column_stack(tensors, *, out=None) -> Tensor:
    """Tensors as columns: 0-d and 1-d tensors become [n, 1] columns, then ``cat`` on dim 1."""
    tensors = _nonempty(tensors, "column_stack")
    columns = [t.reshape(t._data.size, 1) if t._data.ndim <= 1 else t for t in tensors]
    return cat(columns, 1, out=out)


# ----- splits -----


def _split_points(indices_or_sections, size: int, op: str):
    """``(start, stop)`` of each piece: ``n`` sections as even as they go (the first
    ``size % n`` one longer), or cut before each listed index (Python slice clamping)."""
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        data = spec._data
        if data.ndim > 1:
            raise RuntimeError(
                f"{op}(): a tensor of indices or sections must be 0-d or 1-d, got shape "
                f"{list(data.shape)}"
            )
        if data.dtype != np.int64:
            raise RuntimeError(
                f"{op}(): a tensor of indices or sections must be int64, got {spec.dtype}"
            )
        spec = int(data) if data.ndim == 0 else data.tolist()
    if isinstance(spec, (list, tuple)):
        cuts = [operator.index(i) for i in spec]
        bounds = [0, *cuts, size]
        pieces = []
        for a, b in itertools.pairwise(bounds):
            start, stop, _ = slice(a, b).indices(size)
            pieces.append((start, max(stop, start)))
        return pieces
    n = operator.index(spec)
    if n <= 0:
        raise RuntimeError(f"{op}(): the number of sections must be positive, got {n}")
    small, extra = divmod(size, n)
    lengths = [small + 1] * extra + [small] * (n - extra)
    starts = np.cumsum([0, *lengths[:-1]]).tolist()
    return [(s, s + k) for s, k in zip(starts, lengths)]


@public()
def tensor_split(
    input: Tensor,
    indices_or_sections=None,
    dim: int = 0,
    *,
    sections=None,
    indices=None,
    tensor_indices_or_sections=None,
) -> tuple:
    """Views of ``input`` along ``dim``: ``n`` nearly equal sections, or pieces cut before
    each index of a list (out-of-range indices clamp, as in slicing). PyTorch's keyword
    spellings ``sections=``, ``indices=`` and ``tensor_indices_or_sections=`` work too."""
    given = [
        v
        for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
        if v is not None
    ]
    if len(given) != 1:
        raise TypeError("tensor_split() takes one of indices_or_sections, sections or indices")
    indices_or_sections = given[0]
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split(): expected at least a 1-dim tensor, got a 0-dim one")
    d = _normalize_dim(operator.index(dim), input._data.ndim, "tensor_split")
    points = _split_points(indices_or_sections, input._data.shape[d], "tensor_split")
    return tuple(narrow(input, d, a, b - a) for a, b in points)


def _directional_split(input: Tensor, spec, dim: int, min_dims: int, op: str) -> tuple:
    nd = input._data.ndim
    if nd < min_dims:
        raise RuntimeError(
            f"{op}(): needs a tensor with at least {min_dims} dims, got shape "
            f"{list(input._data.shape)}"
        )
    if not isinstance(spec, (list, tuple, Tensor)):
        n, size = operator.index(spec), input._data.shape[dim]
        if n == 0 or size % n:
            raise RuntimeError(
                f"{op}(): dim {dim} of size {size} cannot be split into {n} equal sections; "
                "pass a number that divides it, or a list of indices"
            )
    return tensor_split(input, spec, dim)


@public()
def hsplit(input: Tensor, indices_or_sections) -> tuple:
    """``tensor_split`` along dim 1 (dim 0 for a 1-d tensor); sections must be equal."""
    dim = 1 if input._data.ndim > 1 else 0
    return _directional_split(input, indices_or_sections, dim, 1, "hsplit")


@public()
def vsplit(input: Tensor, indices_or_sections) -> tuple:
    """``tensor_split`` along dim 0 of a tensor with at least 2 dims; sections must be equal."""
    return _directional_split(input, indices_or_sections, 0, 2, "vsplit")


@public()
def dsplit(input: Tensor, indices_or_sections) -> tuple:
    """``tensor_split`` along dim 2 of a tensor with at least 3 dims; sections must be equal."""
    return _directional_split(input, indices_or_sections, 2, 3, "dsplit")


__all__ = exports(globals())
