"""The embedding lookup as one op, recorded as PyTorch records it: ``embedding``
(EmbeddingBackward0, saving ``indices``, ``padding_idx`` (-1 for none), ``scale_grad_by_freq``
and ``sparse``), whose backward is ``embedding_dense_backward``
(EmbeddingDenseBackwardBackward0): each row's gradient summed at its index, none for
``padding_idx``, divided by how often the index occurs when ``scale_grad_by_freq``.

As PyTorch's, the backward's own derivative is the plain lookup of rows (zero at padding
positions, and without the frequency scaling). Taylor mode and vmap go through the
equivalent compositions (``index_select``, ``index_add``).
"""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from ..ops._index_adds import index_add_rows
from ..ops._optable import Composite
from ..ops._primitive import primitive
from ..ops.piecewise import where

__all__ = ["embedding"]


def _embedding_forward(weight, indices, *, padding_idx, scale_grad_by_freq, sparse):
    return np.take(weight, indices, axis=0)


def _lookup(weight, indices):
    """``weight``'s rows at ``indices``: ``indices.shape + (dim,)``."""
    rows = weight.index_select(0, indices.reshape(-1))
    return rows.reshape(*indices.shape, weight.shape[1])


def _row_scale(indices, num_weights: int, padding_idx: int, scale_grad_by_freq: bool, dtype):
    """Each index's factor as an array: 0 at ``padding_idx``, else 1 or 1 / its count."""
    flat = np.asarray(indices).reshape(-1)
    scale = np.ones(flat.shape, dtype)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num_weights)
        scale = scale / counts[flat]
    if padding_idx >= 0:
        scale[flat == padding_idx] = 0
    return flat, scale


def _dense_backward_forward(grad, indices, *, num_weights, padding_idx, scale_grad_by_freq):
    dim = grad.shape[-1]
    rows = grad.reshape(-1, dim)
    if scale_grad_by_freq or padding_idx >= 0:
        flat, scale = _row_scale(indices, num_weights, padding_idx, scale_grad_by_freq, grad.dtype)
        # selected, not multiplied, at padding positions: an inf there gives no NaN
        rows = np.where(scale[:, None] != 0, rows * scale[:, None], 0)
    else:
        flat = np.asarray(indices).reshape(-1)
    out = np.zeros((num_weights, dim), grad.dtype)
    index_add_rows(out, 0, flat, rows)  # each row's gradients in their order, as np.add.at
    return out


def _dense_backward_composite(grad, indices, *, num_weights, padding_idx, scale_grad_by_freq):
    rows = grad.reshape(-1, grad.shape[-1])
    flat, scale = _row_scale(
        indices._data, num_weights, padding_idx, scale_grad_by_freq, grad._data.dtype
    )
    if scale_grad_by_freq or padding_idx >= 0:
        factor = _lg.tensor(scale[:, None])
        rows = where(factor != 0, rows * factor, 0.0)
    zeros = _lg.zeros((num_weights, grad.shape[-1]), dtype=grad.dtype)
    return zeros.index_add(0, _lg.tensor(flat), rows)


def _double_backward(gg, indices, padding_idx):
    """PyTorch's ``embedding_dense_double_backward``: the rows of ``gg``, 0 at padding."""
    rows = _lookup(gg, indices)
    if padding_idx < 0:
        return rows
    return where((indices == padding_idx).unsqueeze(-1), 0.0, rows)


embedding_dense_backward = primitive(
    "embedding_dense_backward",
    _dense_backward_forward,
    (
        lambda gg, grad, indices, result, *, padding_idx, **rest: _double_backward(
            gg, indices, padding_idx
        ),
        None,
    ),
    kind=Composite(
        taylor_as=_dense_backward_composite,
        jvp=lambda tg, ti, grad, indices, result, **params: (
            None if tg is None else embedding_dense_backward(tg, indices, **params)
        ),
    ),
    inputs=("grad_output", "indices"),
    saves=("indices", "padding_idx"),
    node_name="EmbeddingDenseBackwardBackward0",
    dtype_rule="keep",
)


def _embedding_vjp(grad, weight, indices, result, *, padding_idx, scale_grad_by_freq, sparse):
    return embedding_dense_backward(
        grad,
        indices,
        num_weights=weight.shape[0],
        padding_idx=padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
    )


_embedding = primitive(
    "embedding",
    _embedding_forward,
    (_embedding_vjp, None),
    kind=Composite(
        taylor_as=lambda weight, indices, **params: _lookup(weight, indices),
        jvp=lambda tw, ti, weight, indices, result, **params: (
            None if tw is None else _embedding(tw, indices, **params)
        ),
    ),
    inputs=("weight", "indices"),
    edgeless=(1,),  # no edge for the indices, as in PyTorch
    saves=("indices", "padding_idx", "scale_grad_by_freq", "sparse"),
    node_name="EmbeddingBackward0",
    dtype_rule="keep",
)


def embedding(weight, indices, padding_idx: int | None, scale_grad_by_freq: bool, sparse: bool):
    """``weight``'s rows at the (checked) integer ``indices``; ``padding_idx`` non-negative or
    None."""
    return _embedding(
        weight,
        indices,
        padding_idx=-1 if padding_idx is None else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )
