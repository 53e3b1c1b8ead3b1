"""``diagonal`` as a view of its input (writes through it reach the input, as in PyTorch) and
its adjoint ``diagonal_backward`` (zeros with the diagonal filled); each is the other's VJP,
so derivatives of any order stay exact."""

from __future__ import annotations

import numpy as np

from ._optable import Linear
from ._primitive import primitive


def _diagonal_forward(x, *, offset, dim1, dim2):
    # np.diagonal's view is read-only, so the same layout is built from ``x`` itself:
    # the other dims as they are, then one dim stepping along both dim1 and dim2.
    start = [slice(None)] * x.ndim
    start[dim2 if offset >= 0 else dim1] = slice(abs(offset), None)
    corner = x[tuple(start)]
    n = max(0, min(corner.shape[dim1], corner.shape[dim2]))
    rest = [d for d in range(x.ndim) if d not in (dim1, dim2)]
    shape = tuple(corner.shape[d] for d in rest) + (n,)
    strides = tuple(corner.strides[d] for d in rest) + (
        corner.strides[dim1] + corner.strides[dim2],
    )
    return np.lib.stride_tricks.as_strided(corner, shape, strides, writeable=x.flags.writeable)


def _diagonal_backward_forward(grad, *, input_sizes, offset, dim1, dim2):
    out = np.zeros(input_sizes, grad.dtype)
    _diagonal_forward(out, offset=offset, dim1=dim1, dim2=dim2)[...] = grad
    return out


_diagonal = primitive(
    "diagonal",
    _diagonal_forward,
    lambda grad, x, *, offset, dim1, dim2, **_: _diagonal_backward(
        grad, input_sizes=tuple(x._data.shape), offset=offset, dim1=dim1, dim2=dim2
    ),
    node_name="DiagonalBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
)

_diagonal_backward = primitive(
    "diagonal_backward",
    _diagonal_backward_forward,
    lambda grad, g, *, offset, dim1, dim2, **_: _diagonal(
        grad, offset=offset, dim1=dim1, dim2=dim2
    ),
    inputs=("grad_output",),
    node_name="DiagonalBackwardBackward0",
    dtype_rule="keep",
    kind=Linear(),
)


def diagonal_view(x, offset: int, dim1: int, dim2: int):
    """The ``offset``-th diagonal of (normalized, distinct) dims ``dim1``/``dim2``, last."""
    return _diagonal(x, offset=offset, dim1=dim1, dim2=dim2)
