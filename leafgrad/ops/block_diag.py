"""``block_diag`` as PyTorch records it: one op (BlockDiagBackward0) with an edge per tensor,
whose gradient is PyTorch's ``block_diag_backward``: each tensor's block sliced out of the
gradient (rows, then columns), squeezed back for 0-d and 1-d tensors.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._optable import Composite
from ._plain import operand, values_of
from ._primitive import primitive
from .joining import cat
from .slicing import narrow


def _block_shape(shape: tuple) -> tuple:
    """The block a tensor fills: 0-d is ``(1, 1)``, 1-d one row ``(1, n)``."""
    return (1, 1) if len(shape) == 0 else (1, shape[0]) if len(shape) == 1 else shape


def _corners(shapes) -> list:
    """Where each block starts: ``(row, column)``, each block right below the last."""
    corners, row, col = [], 0, 0
    for shape in shapes:
        corners.append((row, col))
        rows, cols = _block_shape(shape)
        row, col = row + rows, col + cols
    return corners


def _block_diag_forward(*arrays, dtype):
    shapes = [_block_shape(a.shape) for a in arrays]
    out = np.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype)
    for a, (rows, cols), (row, col) in zip(arrays, shapes, _corners(shapes)):
        out[row : row + rows, col : col + cols] = a.reshape(rows, cols)
    return out


def _block_grad(grad, shape: tuple, row: int, col: int):
    """PyTorch's slice of ``grad`` for one tensor of ``shape``: its block's rows then columns;
    ``squeeze(-1)`` once for 1-d, twice for 0-d."""
    rows, cols = _block_shape(shape)
    block = narrow(narrow(grad, 0, row, rows), 1, col, cols)
    if len(shape) == 1:
        block = block.squeeze(-1)
        if tuple(block.shape) != shape:
            # (1, n): that squeeze keeps the row, which PyTorch's engine then sums away
            # (its sum_to: a sum over dim 0 kept, then a view)
            block = block.sum((0,), keepdim=True).view(shape)
    elif not shape:
        block = block.squeeze(-1).squeeze(-1)
    return block


def _block_diag_grads(grad, *tensors, result, needs, dtype):
    """PyTorch's ``block_diag_backward``; a 1-d empty tensor gets empty zeros. (PyTorch's
    skips that tensor's row, so its later blocks' gradients come from the rows above theirs:
    here each block's own.)"""
    shapes = [tuple(t.shape) for t in tensors]
    outs = []
    for shape, (row, col), need in zip(shapes, _corners(shapes), needs):
        if not need:
            outs.append(None)
        elif shape == (0,):
            outs.append(operand(np.zeros((0,), values_of(grad).dtype), grad))
        else:
            outs.append(_block_grad(grad, shape, row, col))
    return outs


def _block_diag_composite(*tensors, dtype):
    """The blocks joined with zeros by ``cat`` (Taylor mode and vmap)."""
    shapes = [_block_shape(tuple(t.shape)) for t in tensors]
    width = sum(s[1] for s in shapes)
    rows = []
    for t, (r, c), (_, col) in zip(tensors, shapes, _corners(shapes)):
        left = _wrap(np.zeros((r, col), dtype))
        right = _wrap(np.zeros((r, width - col - c), dtype))
        rows.append(cat([left, t.reshape(r, c), right], 1))  # cat promotes to dtype
    return cat(rows, 0)


def _block_diag_jvp(*tangents_and_tensors, result, dtype):
    """PyTorch's ``block_diag_jvp``: the blocks of the tangents (zeros where missing)."""
    n = len(tangents_and_tensors) // 2
    tangents, tensors = tangents_and_tensors[:n], tangents_and_tensors[n:]
    if all(t is None for t in tangents):
        return None
    blocks = [
        t if t is not None else _wrap(np.zeros(x._data.shape, dtype))
        for t, x in zip(tangents, tensors)
    ]
    return _block_diag(*blocks, dtype=dtype)


_block_diag = primitive(
    "block_diag",
    _block_diag_forward,
    vjp_all=_block_diag_grads,
    kind=Composite(taylor_as=_block_diag_composite, jvp=_block_diag_jvp),
    node_name="BlockDiagBackward0",
    dtype_rule="keep",
)


@public(method=False)
def block_diag(*tensors) -> Tensor:
    """A block-diagonal matrix of the tensors (0-d is [1, 1], 1-d is one row [1, n]), of
    their promoted dtype (0-d tensors count less, as in PyTorch's ``result_type``)."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument {i} is {type(t).__name__}, not a Tensor")
        if t._data.ndim > 2:
            raise RuntimeError(
                f"block_diag(): tensors must have at most 2 dims; tensor {i} has shape "
                f"{list(t._data.shape)}"
            )
    if not tensors:
        return _wrap(np.zeros((1, 0), np.float32))
    return _block_diag(*tensors, dtype=_dtype.result_type(*tensors).np)


__all__ = exports(globals())
