"""``pdist`` as PyTorch records it: ``_pdist_forward`` (PdistBackward0, saving the input, ``p``
and the result), the ``p``-norm distances of every pair of rows ``i < j``, row by row.

Its gradient is PyTorch's ``_pdist_backward`` (each pair's slopes, as cdist's: 0 where the
distance, or for p < 2 the difference, is 0; added to row i, subtracted from row j) written
in leafgrad ops, so it differentiates again where PyTorch's raises (as ``cdist``'s does).
"""

from __future__ import annotations

import numpy as np

from .._tensor import _wrap, _zeros_like
from ._optable import Composite
from ._primitive import primitive
from .index_write_primitives import _index_add
from .pairwise import norms_composite, norms_of, slopes_of


def _pairs(n: int) -> tuple:
    """The rows ``i < j`` of every pair, in PyTorch's order (row by row)."""
    return np.triu_indices(n, 1)


def _pdist_forward(x, *, p):
    rows, cols = _pairs(x.shape[0])
    return norms_of(np.abs(x[rows] - x[cols]), p)


def _differences(x):
    rows, cols = _pairs(x.shape[0])
    first, second = _wrap(rows.astype(np.int64)), _wrap(cols.astype(np.int64))
    return rows, cols, x.index_select(0, first) - x.index_select(0, second)


def _pdist_grad(grad, x, result, *, p):
    rows, cols, diff = _differences(x)
    each = grad.unsqueeze(-1) * slopes_of(diff, result.unsqueeze(-1), p)
    added = _index_add(_zeros_like(x), each, dim=0, index=rows, alpha=1)
    return _index_add(added, -each, dim=0, index=cols, alpha=1)


def _pdist_composite(x, *, p):
    """The distances from differentiable ops (Taylor mode and vmap use it)."""
    return norms_composite(_differences(x)[2], p)


def _pdist_jvp(tx, x, *, result, p):
    diff, moved = _differences(x)[2], _differences(tx)[2]
    return (slopes_of(diff, result.unsqueeze(-1), p) * moved).sum(-1)


pdist = primitive(
    "_pdist_forward",
    _pdist_forward,
    (_pdist_grad,),
    kind=Composite(taylor_as=_pdist_composite, jvp=_pdist_jvp),
    saves=("self", "p", "result"),
    node_name="PdistBackward0",
    dtype_rule="keep",
)


__all__: list = []
