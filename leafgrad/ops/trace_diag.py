"""The trace and the diagonal ops as PyTorch records them: ``trace`` (``TraceBackward0``),
``diag_embed`` (``DiagEmbedBackward0``; also ``diag`` of a vector) and ``diagonal_copy``
(``DiagonalBackward0_copy``; also ``diag`` of a matrix), each one linear op.

Their gradients are the adjoint ops: the incoming gradient on a diagonal of zeros (trace,
diagonal_copy) or the gradient's diagonal (diag_embed), so they differentiate to any order.
The forwards take leading dims as a batch (vmap's ``trailing`` / ``with_dims`` rules).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ._optable import Linear
from ._primitive import primitive
from .index_write_primitives import _index_fill_tensor
from .reduction import _sum_forward
from .reorder import _diagonal_backward, diagonal_view


def _trace_forward(x):
    """The main diagonal's sum over the last two dims (integers summed in int64, as sum's)."""
    d = np.diagonal(x, 0, -2, -1)
    return _sum_forward(d, dim=None if d.ndim == 1 else -1, keepdim=False)


def _trace_vjp(grad, x, result):
    """``grad`` on the main diagonal of zeros of ``x``'s shape: for a matrix as PyTorch's
    trace_backward, ``grad`` filled into flat zeros every ``m + 1`` (IndexFillBackward1) and
    viewed as the matrix; a batch (vmap's) by a product with the identity."""
    n, m = x.shape[-2:]
    if x.ndim == 2 and type(x) is Tensor:
        flat = _wrap(np.zeros(n * m, x._data.dtype))
        index = np.arange(0, n * m, m + 1)
        return _index_fill_tensor(flat, grad, dim=0, index=index).view(n, m)
    eye = _wrap(np.eye(n, m, dtype=x._data.dtype))
    return grad.unsqueeze(-1).unsqueeze(-1) * eye


trace = primitive(
    "trace",
    _trace_forward,
    _trace_vjp,
    kind=Linear(),
    node_name="TraceBackward0",
    dtype_rule="keep",
    metadata=("self_sym_sizes",),
)


def _diag_embed_forward(x, *, offset, dim1, dim2):
    """Each vector along the last dim on the ``offset``-th diagonal of dims ``dim1``/``dim2``
    (of the result) of zeros."""
    n = x.shape[-1]
    m = n + abs(offset)
    out = np.zeros(x.shape[:-1] + (m, m), x.dtype)
    rows = np.arange(n) + max(0, -offset)
    cols = np.arange(n) + max(0, offset)
    out[..., rows, cols] = x
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


diag_embed = primitive(
    "diag_embed",
    _diag_embed_forward,
    lambda grad, x, result, *, offset, dim1, dim2: diagonal_view(
        grad, offset=offset, dim1=dim1, dim2=dim2
    ),
    kind=Linear(),
    saves=("offset", "dim1", "dim2"),
    node_name="DiagEmbedBackward0",
    dtype_rule="keep",
)


def _diagonal_copy_forward(x, *, offset, dim1, dim2):
    return np.diagonal(x, offset, dim1, dim2).copy()


diagonal_copy = primitive(
    "diagonal_copy",
    _diagonal_copy_forward,
    lambda grad, x, result, *, offset, dim1, dim2: _diagonal_backward(
        grad, shape=tuple(x.shape), offset=offset, dim1=dim1, dim2=dim2
    ),
    kind=Linear(),
    saves=("offset", "dim1", "dim2"),
    node_name="DiagonalBackward0_copy",
    dtype_rule="keep",
)
