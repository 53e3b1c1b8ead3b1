"""``multi_margin_loss`` as PyTorch records it: one op (MultiMarginLossBackward0, an edge for
the input only) whose gradient is the op ``multi_margin_loss_backward``, computed as PyTorch's
CPU kernels compute them. PyTorch defines no derivative of that backward (its node is
``torch::autograd::NotImplemented``, so a second derivative raises, here too) and no
forward-mode rule (leafgrad's differentiates the loss along a tangent).

Per sample ``i`` of ``x`` ``(N, C)`` with class ``y_i``: ``z_j = margin - x[i, y_i] + x[i, j]``,
loss ``sum_{j != y_i, z_j > 0} w[y_i] z_j^p / C``; the gradient ``w[y_i] (p == 1 ? 1 : 2 z_j)
/ C`` at each such ``j`` and minus their sum at ``y_i``.
"""

from __future__ import annotations

import numpy as np

from .._tensor import _wrap
from ._optable import Composite, NoDerivative
from ._primitive import primitive
from .losses import _reduce


def _margins(x, y, margin):
    """``(rows, z, beyond)``: ``x`` as ``(N, C)``, each ``z_j`` and where it counts (``z_j > 0``,
    ``j`` not the target)."""
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    classes = y.reshape(-1)
    z = margin - rows[np.arange(len(rows)), classes][:, None] + rows
    beyond = (z > 0) & (np.arange(rows.shape[1]) != classes[:, None])
    return rows, z.astype(rows.dtype, copy=False), beyond


def _class_weights(weight, y, like):
    """``w[y_i]`` as a column (1 without a weight)."""
    return like.dtype.type(1) if weight is None else weight[y.reshape(-1)][:, None]


def _loss_forward(x, y, *, p, margin, weight, reduction):
    rows, z, beyond = _margins(x, y, margin)
    h = np.where(beyond, z if p == 1 else z * z, 0) * _class_weights(weight, y, rows)
    loss = h.sum(1) / rows.dtype.type(rows.shape[1])
    return _reduce(loss.reshape(y.shape) if x.ndim < 2 else loss, reduction)


def _backward_forward(grad_output, x, y, *, p, margin, weight, reduction):
    rows, z, beyond = _margins(x, y, margin)
    n, c = rows.shape
    g = 1 / (n * c) if reduction == 1 else 1 / c
    h = np.where(beyond, rows.dtype.type(g) if p == 1 else 2 * rows.dtype.type(g) * z, 0)
    h = h * _class_weights(weight, y, rows)
    h[np.arange(n), y.reshape(-1)] = -h.sum(1)
    scale = grad_output.reshape(-1, 1) if reduction == 0 else grad_output
    return (h * scale).reshape(x.shape).astype(x.dtype, copy=False)


def _loss(x, y, *, p, margin, weight, reduction):
    """``_loss_forward`` in leafgrad ops (Taylor mode, vmap)."""
    rows = x if x.dim() == 2 else x.reshape(1, -1)
    classes = y.reshape(-1, 1).long()
    z = (rows - rows.gather(1, classes)) + margin
    h = z.clamp_min(0)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * _wrap(weight)[classes.reshape(-1)].reshape(-1, 1)
    others = _wrap(np.arange(rows.shape[1]).reshape(1, -1)) != classes
    loss = (h * others).sum(1) / rows.shape[1]
    return _reduce(loss.reshape(y.shape) if x.dim() < 2 else loss, reduction)


def _loss_jvp(tx, ty, x, y, *, result, p, margin, weight, reduction):
    """The loss's derivative along ``tx`` in leafgrad ops (PyTorch has no forward-mode rule
    for it and raises; this one is differentiable in ``x`` and ``tx``)."""
    rows = x if x.dim() == 2 else x.reshape(1, -1)
    moved = tx if tx.dim() == 2 else tx.reshape(1, -1)
    classes = y.reshape(-1, 1).long()
    z = (rows - rows.gather(1, classes)) + margin
    others = np.arange(rows.shape[1]).reshape(1, -1) != classes._data
    slope = _wrap(((z._data > 0) & others).astype(z._data.dtype))
    if p == 2:
        slope = slope * (2 * z)
    if weight is not None:
        slope = slope * _wrap(weight)[classes.reshape(-1)].reshape(-1, 1)
    loss = (slope * (moved - moved.gather(1, classes))).sum(1) / rows.shape[1]
    return _reduce(loss.reshape(y.shape) if x.dim() < 2 else loss, reduction)


multi_margin_loss_backward = primitive(
    "multi_margin_loss_backward",
    _backward_forward,
    kind=NoDerivative(),
    inputs=("grad_output", "self", "target"),
    edgeless=(2,),  # the target: no derivative, no edge
    saves=("grad_output", "self", "target", "p", "margin", "weight", "reduction"),
    dtype_rule="keep",
)

multi_margin_loss = primitive(
    "multi_margin_loss",
    _loss_forward,
    (
        lambda grad, x, y, result, **params: multi_margin_loss_backward(grad, x, y, **params),
        None,
    ),
    kind=Composite(taylor_as=_loss, jvp=_loss_jvp),
    inputs=("self", "target"),
    edgeless=(1,),
    saves=("self", "target", "p", "margin", "weight", "reduction"),
    node_name="MultiMarginLossBackward0",
    dtype_rule="keep",
)


__all__: list = []
