"""Building diagonals and triangles: diag_embed, diagflat, tril_indices, triu_indices.

diag_embed is one op (``DiagEmbedBackward0``, ``trace_diag.py``) and diagflat a ``diag`` of
the flattened input; their gradients are the diagonals of the incoming gradient, to any order.
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _dtype
from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap
from .._tensor import check_device as _check_device
from .composites import diag
from .trace_diag import diag_embed as _diag_embed


@public()
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Each vector along the last dim of ``input`` placed on the ``offset``-th diagonal of
    the matrices in dims ``dim1``/``dim2`` of the result (one dim more than ``input``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"diag_embed(): input must be a Tensor, not {type(input).__name__}")
    offset, dim1, dim2 = operator.index(offset), operator.index(dim1), operator.index(dim2)
    nd = input._data.ndim + 1
    d1 = _normalize_dim(dim1, nd, "diag_embed")
    d2 = _normalize_dim(dim2, nd, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed: dim1 and dim2 must differ, both are {d1}")
    return _diag_embed(input, offset=offset, dim1=dim1, dim2=dim2)


@public()
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened ``input`` on its ``offset``-th diagonal."""
    if not isinstance(input, Tensor):
        raise TypeError(f"diagflat(): input must be a Tensor, not {type(input).__name__}")
    return diag(input.reshape(-1), operator.index(offset))


def _triangle_indices(op, row, col, offset, dtype, device, upper):
    row, col, offset = operator.index(row), operator.index(col), operator.index(offset)
    if device is not None:
        _check_device(device)
    dt = _dtype.int64 if dtype is None else _dtype.as_dtype(dtype)
    if dt.np.kind not in "iu":
        raise NotImplementedError(f"{op}: dtype must be an integer dtype, got {dt}")
    if row < 0 or col < 0:
        raise RuntimeError(f"{op}: row and col must be non-negative, got row={row}, col={col}")
    indices = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    return _wrap(np.stack(indices).astype(dt.np).reshape(2, -1))


@public(method=False)
def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The ``[2, N]`` coordinates of the lower triangle (on and below the ``offset``-th
    diagonal) of a ``row x col`` matrix, row by row."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, upper=False)


@public(method=False)
def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """The ``[2, N]`` coordinates of the upper triangle (on and above the ``offset``-th
    diagonal) of a ``row x col`` matrix, row by row."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, upper=True)


__all__ = exports(globals())
