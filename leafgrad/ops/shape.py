"""Shape ops: views, broadcasting and its inverse, concatenation and splitting."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._primitive import primitive


def _broadcast_shapes_error(op, shape, target):
    return RuntimeError(
        f"{op}: shape {list(shape)} cannot be broadcast to {list(target)}; each dimension must "
        "match or be 1 (dimensions are aligned from the right)"
    )


def _sum_to_forward(x, *, shape):
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1
    )
    out = x.sum(axis=axes, keepdims=True) if axes else x
    return out.reshape(shape)


_sum_to = primitive(
    "sum_to",
    _sum_to_forward,
    lambda grad, x, result, *, shape: expand(grad, x._data.shape),
    node_name="SumBackward1",
    dtype_rule="keep",
)


def sum_to(x: Tensor, shape) -> Tensor:
    """Sum ``x`` over broadcast dimensions so it has ``shape`` (the inverse of expand)."""
    shape = tuple(shape)
    if x._data.shape == shape:
        return x
    return _sum_to(x, shape=shape)


def _expand_forward(x, *, shape):
    return np.broadcast_to(x, shape)


_expand = primitive(
    "expand",
    _expand_forward,
    lambda grad, x, result, *, shape: sum_to(grad, x._data.shape),
    node_name="ExpandBackward0",
    dtype_rule="keep",
)


def _expand_shape(x_shape, sizes, op):
    sizes = tuple(sizes)
    if len(sizes) < len(x_shape):
        raise RuntimeError(
            f"{op}: the number of sizes ({len(sizes)}) must be at least the tensor's number of "
            f"dimensions ({len(x_shape)}); tensor shape {list(x_shape)}, sizes {list(sizes)}"
        )
    lead = len(sizes) - len(x_shape)
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"{op}: -1 is not allowed for a new leading dimension ({list(sizes)})")
            out.append(s)
            continue
        cur = x_shape[i - lead]
        if s == -1:
            out.append(cur)
        elif cur == 1 or cur == s:
            out.append(s)
        else:
            raise _broadcast_shapes_error(op, x_shape, sizes)
    return tuple(out)


def expand(x: Tensor, *sizes) -> Tensor:
    """A broadcast view of ``x`` with ``sizes`` (-1 keeps a dimension)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return _expand(x, shape=_expand_shape(x._data.shape, sizes, "expand"))


def _reshape_forward(x, *, shape):
    return x.reshape(shape)


_view = primitive(
    "view",
    _reshape_forward,
    lambda grad, x, result, *, shape: grad.reshape(x._data.shape),
    node_name="ViewBackward0",
    dtype_rule="keep",
)


def _infer_shape(numel, shape, op, x_shape):
    shape = tuple(int(s) for s in shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError(f"{op}: only one dimension can be -1, got shape {list(shape)}")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"{op}: invalid negative size in shape {list(shape)}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(
                f"{op}: shape {list(shape)} is invalid for a tensor of shape {list(x_shape)} "
                f"({numel} elements)"
            )
        shape = shape[: neg[0]] + (numel // known,) + shape[neg[0] + 1 :]
    elif known != numel:
        raise RuntimeError(
            f"{op}: shape {list(shape)} is invalid for a tensor of shape {list(x_shape)} "
            f"({numel} elements)"
        )
    return shape


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return shape


def reshape(x: Tensor, *shape) -> Tensor:
    """``x`` with a new shape of the same number of elements (-1 infers one size)."""
    shape = _infer_shape(x._data.size, _shape_arg(shape), "reshape", x._data.shape)
    return _view(x, shape=shape)


def view(x: Tensor, *shape) -> Tensor:
    """A view of ``x`` with a new shape (-1 infers one size)."""
    shape = _infer_shape(x._data.size, _shape_arg(shape), "view", x._data.shape)
    return _view(x, shape=shape)


__all__ = ["reshape", "sum_to"]
METHODS = {"reshape": reshape, "view": view, "expand": expand, "sum_to_size": sum_to}
