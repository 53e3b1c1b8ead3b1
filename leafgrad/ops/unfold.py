"""``Tensor.unfold`` as PyTorch records it: a view (UnfoldBackward0) whose gradient is the op
``unfold_backward`` (UnfoldBackwardBackward0), each the other's VJP (derivatives.yaml), so
gradients of every order alternate between the two.
"""

from __future__ import annotations

import numpy as np

from ._optable import Linear
from ._primitive import primitive


def _windows(shape: tuple, dim: int, size: int, step: int) -> int:
    """How many windows of ``size`` every ``step`` fit along ``dim`` (a 0-d tensor: one)."""
    length = shape[dim] if shape else 1
    return (length - size) // step + 1


def _unfold_forward(x, *, dimension, size, step):
    """The windows as a NumPy view of ``x``: ``dimension`` counts windows, a last dim of
    ``size`` runs through each."""
    if x.ndim == 0:
        return np.lib.stride_tricks.as_strided(x, (size,), (x.itemsize,))  # PyTorch: stride 1
    shape, strides = list(x.shape), list(x.strides)
    shape[dimension] = _windows(x.shape, dimension, size, step)
    inner = strides[dimension]
    strides[dimension] = inner * step
    return np.lib.stride_tricks.as_strided(x, (*shape, size), (*strides, inner))


def _unfold_backward_forward(grad_in, *, input_sizes, dim, size, step):
    """Each window's gradient added back where the window read (windows may overlap)."""
    out = np.zeros(input_sizes, grad_in.dtype)
    if not input_sizes:
        if size:
            out[()] = grad_in[0]
        return out
    n = grad_in.shape[dim]
    for k in range(size):  # the k-th element of every window: distinct positions
        where = (slice(None),) * dim + (slice(k, k + step * (n - 1) + 1, step),)
        out[where] += grad_in[..., k]
    return out


unfold = primitive(
    "unfold",
    _unfold_forward,
    lambda grad, x, *, result, dimension, size, step: unfold_backward(
        grad, input_sizes=tuple(x.shape), dim=dimension, size=size, step=step
    ),
    kind=Linear(),
    saves=("dimension", "size", "step"),
    node_name="UnfoldBackward0",
    dtype_rule="keep",
    view=True,
    plain_rules=True,
)

unfold_backward = primitive(
    "unfold_backward",
    _unfold_backward_forward,
    lambda grad, grad_in, *, result, input_sizes, dim, size, step: unfold(
        grad, dimension=dim, size=size, step=step
    ),
    kind=Linear(),
    inputs=("grad_in",),
    saves=("dim", "size", "step"),
    node_name="UnfoldBackwardBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


__all__: list = []
