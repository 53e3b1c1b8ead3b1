"""``max_unpool2d`` and ``max_unpool3d`` as PyTorch records them: one node each
(MaxUnpool2DBackward0, MaxUnpool3DBackward0) with an edge to the input only, saving the
indices. The forward places each ``(N, C)`` plane's values at its flat indices in zeros of
the output size (the last of equal indices wins, as PyTorch's loop); the backward is
PyTorch's ``max_pool_double_backward``: the gradient viewed as planes, gathered at the
indices and viewed back (ViewBackward0, GatherBackward0, ViewBackward0), so a second
derivative records PyTorch's graph. Linear: tangents and Taylor coefficients go through the
op itself. Leading dims are free (``(C, ...)``, ``(N, C, ...)``, or a vmap batch in front,
broadcast between the input and the indices).
"""

from __future__ import annotations

import math

import numpy as np

from ..ops._optable import Linear
from ..ops._primitive import primitive

__all__ = ["max_unpool"]


def _unpool_forward(x, indices, *, output_size):
    nd = len(output_size)
    lead = np.broadcast_shapes(x.shape[: x.ndim - nd], indices.shape[: indices.ndim - nd])
    x = np.broadcast_to(x, lead + x.shape[x.ndim - nd :])
    indices = np.broadcast_to(indices, lead + indices.shape[indices.ndim - nd :])
    rows = x.reshape(-1, math.prod(x.shape[x.ndim - nd :]))
    idx = indices.reshape(rows.shape)
    total = math.prod(output_size)
    bad = (idx < 0) | (idx >= total)
    if bad.any():
        sizes = "x".join(str(s) for s in output_size)
        raise RuntimeError(
            f"Found an invalid max index: {int(idx[bad][0])} (output volumes are of size {sizes})"
        )
    out = np.zeros((rows.shape[0], total), x.dtype)
    out[np.arange(rows.shape[0])[:, None], idx] = rows  # equal indices: the last wins
    return out.reshape(*lead, *output_size)


def _unpool_grad(grad, x, indices, result, *, output_size):
    """PyTorch's ``max_pool_double_backward(grad, indices, nd)``: ``grad`` viewed as planes,
    gathered at the indices, viewed as the indices (leading dims broadcast under vmap, the
    gradient then summed back to the input's)."""
    nd = len(output_size)
    lead = tuple(
        np.broadcast_shapes(
            tuple(grad.shape[: grad.ndim - nd]), tuple(indices.shape[: indices.ndim - nd])
        )
    )
    if tuple(indices.shape[: indices.ndim - nd]) != lead:
        indices = indices.expand(*lead, *indices.shape[indices.ndim - nd :])
    if tuple(grad.shape[: grad.ndim - nd]) != lead:
        grad = grad.expand(*lead, *grad.shape[grad.ndim - nd :])
    planes = grad.contiguous().view(*lead, -1)
    taken = planes.gather(-1, indices.view(*lead, -1)).view(indices.shape)
    if tuple(taken.shape) != tuple(x.shape):
        taken = taken.sum_to_size(*x.shape)
    return taken


_UNPOOL = {
    nd: primitive(
        f"max_unpool{nd}d",
        _unpool_forward,
        (_unpool_grad, None),
        kind=Linear(),
        inputs=("self", "indices"),
        saves=("indices",),
        edgeless=(1,),
        node_name=f"MaxUnpool{nd}DBackward0",
        dtype_rule="keep",
    )
    for nd in (2, 3)
}


def max_unpool(input, indices, output_size):
    """The values of ``input`` at ``indices`` (flat positions per plane, checked against
    ``output_size``, 2 or 3 sizes) in zeros of ``output_size`` over the trailing dims."""
    output_size = tuple(int(s) for s in output_size)
    return _UNPOOL[len(output_size)](input, indices, output_size=output_size)
