"""The primitives under ``index_add``, ``index_copy``, ``index_fill`` and ``put``
(``index_writes`` checks their arguments): one node each, as PyTorch records them
(IndexAddBackward0, IndexCopyBackward0, IndexFillBackward0/1, PutBackward0, with PyTorch's
saved values). Each is linear in its tensor operands (index_fill of a number piecewise
linear); their gradients are written with each other, index_select and take, so they
differentiate to any order. ``index``: 1-D along ``dim`` (flat positions for put), a copy
of the user's index tensor, which ``index_writes`` guards against in-place changes.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _wrap
from ._index_adds import index_add_rows
from ._optable import Composite, Linear, PiecewiseLinear
from ._primitive import primitive
from .indexing import _index_select, _take, masked_fill
from .inplace import index_put
from .joining import cat
from .masked_select import masked_select


def _region(out: np.ndarray, dim: int, index: np.ndarray):
    """``out`` (a 0-d one as shape (1,), a view) and the key of the slices ``index`` along
    ``dim``."""
    return out.reshape(out.shape or (1,)), (slice(None),) * dim + (index,)


def _index_add_forward(x, source, *, dim, index, alpha):
    out = x.copy()
    flat = out.reshape(out.shape or (1,))
    src = source.reshape(flat.shape[:dim] + index.shape + flat.shape[dim + 1 :])
    # alpha in the input's dtype first, as PyTorch's kernel takes it (2.5 adds 2 to ints)
    index_add_rows(flat, dim, index, src if alpha == 1 else src * out.dtype.type(alpha))
    return out


def _index_copy_forward(x, source, *, dim, index):
    out = x.copy()
    flat, key = _region(out, dim, index)
    flat[key] = source.reshape(flat[key].shape)
    return out


def _index_fill_forward(x, value, *, dim, index):
    out = x.copy()
    flat, key = _region(out, dim, index)
    flat[key] = np.asarray(value).astype(out.dtype)  # a 0-d value (or one per vmap example)
    return out


def _selected(grad, dim, index, shape):
    """``grad``'s slices ``index`` along ``dim``, in ``shape`` (a source's; None: as taken)."""
    g = _index_select(grad.reshape((1,)) if grad.ndim == 0 else grad, dim=dim, index=index)
    return g if shape is None or tuple(g.shape) == tuple(shape) else g.reshape(shape)


def _scaled(grad, alpha):
    return grad if alpha == 1 else grad * alpha


_index_add = primitive(
    "index_add",
    _index_add_forward,
    (
        lambda grad, x, source, result, *, dim, index, alpha: grad,
        lambda grad, x, source, result, *, dim, index, alpha: _scaled(
            _selected(grad, dim, index, source.shape), alpha
        ),
    ),
    kind=Linear(),
    inputs=("self", "source"),
    saves=("dim", "index", "source if source", "alpha"),
    node_name="IndexAddBackward0",
    dtype_rule="keep",
    plain_rules=True,
)
_index_copy = primitive(
    "index_copy",
    _index_copy_forward,
    (
        lambda grad, x, source, result, *, dim, index: _index_fill_scalar(
            grad, dim=dim, index=index, value=0
        ),
        lambda grad, x, source, result, *, dim, index: _selected(grad, dim, index, source.shape),
    ),
    kind=Linear(),
    inputs=("self", "source"),
    saves=("dim", "index", "source if source"),
    node_name="IndexCopyBackward0",
    dtype_rule="keep",
    plain_rules=True,
)
# A number filled in: the slices' gradient is 0, and the tangent alike (piecewise linear).
_index_fill_scalar = primitive(
    "index_fill",
    lambda x, *, dim, index, value: _index_fill_forward(x, value, dim=dim, index=index),
    lambda grad, x, result, *, dim, index, value: _index_fill_scalar(
        grad, dim=dim, index=index, value=0
    ),
    kind=PiecewiseLinear(),
    overload="int_Scalar",
    saves=("dim", "index"),
    node_name="IndexFillBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


def _filled_grad(grad, x, value, result, *, dim, index):
    """The value's gradient: the sum over the filled slices, each once (PyTorch selects the
    unique indices), summed to the value's shape (0-d; one per example under vmap)."""
    size = (x.shape or (1,))[dim]
    once = np.unique(np.where(index < 0, index + size, index))
    return _selected(grad, dim, once, None).sum_to_size(value.shape)


# A 0-d tensor filled in: linear in the input and the value together.
_index_fill_tensor = primitive(
    "index_fill",
    _index_fill_forward,
    (
        lambda grad, x, value, result, *, dim, index: _index_fill_scalar(
            grad, dim=dim, index=index, value=0
        ),
        _filled_grad,
    ),
    kind=Linear(),
    overload="int_Tensor",
    inputs=("self", "value"),
    saves=("dim", "index"),
    node_name="IndexFillBackward1",
    dtype_rule="keep",
)


def _put_forward(x, source, *, index, accumulate):
    out = x.copy()
    flat = out.reshape(-1)
    if accumulate:
        np.add.at(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return out


def _put_grad_self(grad, x, source, result, *, index, accumulate):
    if accumulate:
        return grad
    zeros = _wrap(np.zeros(source.shape, grad._data.dtype))
    return _put(grad, zeros, index=index, accumulate=False)


def _put_grad_source(grad, x, source, result, *, index, accumulate):
    g = _take(grad, index=index)
    return g if tuple(g.shape) == tuple(source.shape) else g.reshape(source.shape)


# ``index``: flat positions (negative ones count from the end), as many as source has values.
_put = primitive(
    "put",
    _put_forward,
    (_put_grad_self, _put_grad_source),
    kind=Linear(),
    inputs=("self", "source"),
    saves=("index", "source if source", "accumulate"),
    node_name="PutBackward0",
    dtype_rule="keep",
)


def _masked_scatter_forward(x, source, *, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    out = np.broadcast_to(x, shape).copy()
    where = np.broadcast_to(mask, shape)
    out[where] = source.reshape(-1)[: int(where.sum())]  # source's first values, in order
    return out


def _mask_like(mask: np.ndarray, grad) -> Tensor:
    return _wrap(np.broadcast_to(mask, tuple(grad.shape)))


def _masked_scatter_grad_self(grad, x, source, result, *, mask):
    return masked_fill(grad, _mask_like(mask, grad), 0.0)


def _masked_scatter_grad_source(grad, x, source, result, *, mask):
    picked = masked_select(grad, _mask_like(mask, grad))
    unused = int(np.prod(source.shape)) - picked.shape[0]  # source values past the mask's
    if unused:
        picked = cat([picked, _wrap(np.zeros(unused, grad._data.dtype))])
    return picked.reshape(tuple(source.shape))


def _masked_scatter_composite(x, source, *, mask):
    """The same values by ops that each batch and expand into Taylor coefficients: the mask's
    flat positions written in the flattened (broadcast) input."""
    shape = np.broadcast_shapes(tuple(x.shape), mask.shape)
    where = np.broadcast_to(mask, shape).reshape(-1)
    x = x.expand(shape) if tuple(x.shape) != shape else x
    values = source.reshape(-1)[: int(where.sum())]
    key = (_wrap(np.flatnonzero(where)),)
    return index_put(x.reshape(-1), values, key=key).reshape(shape)


def _masked_scatter_jvp(tx, ts, x, source, *, mask, result):
    # linear in both: the op on the tangents, a missing one zeros
    tx = _wrap(np.zeros(x.shape, result._data.dtype)) if tx is None else tx
    ts = _wrap(np.zeros(source.shape, result._data.dtype)) if ts is None else ts
    return masked_scatter_values(tx, ts, mask=mask)


# ``mask``: a bool array, broadcast with the input (PyTorch's MaskedScatterBackward0).
masked_scatter_values = primitive(
    "masked_scatter",
    _masked_scatter_forward,
    (_masked_scatter_grad_self, _masked_scatter_grad_source),
    kind=Composite(taylor_as=_masked_scatter_composite, jvp=_masked_scatter_jvp),
    inputs=("self", "source"),
    saves=("mask",),
    node_name="MaskedScatterBackward0",
    dtype_rule="keep",
    broadcast=True,
)
