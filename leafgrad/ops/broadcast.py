"""Broadcasting and its inverse: expand (a broadcast view) and sum_to (the sum over the
broadcast dimensions), each the other's VJP.

``sum_to`` is how gradients are un-broadcast everywhere: the op machinery applies it (as
``Tensor.sum_to_size``) to the gradients of ``broadcast=True`` ops, and rules call it where
they broadcast themselves.
"""

from __future__ import annotations

import numpy as np

from .._dtype import legacy_type_name
from .._exposure import exports, public
from .._tensor import Tensor
from ._inputs import _varargs_or_keyword
from ._optable import Linear
from ._plain import _sum_to_forward, values_of
from ._primitive import primitive
from .shape import _view

_sum_to = primitive(
    "sum_to",
    _sum_to_forward,
    lambda grad, x, result, *, shape: _expand(grad, shape=tuple(x.shape)),
    node_name="SumBackward1",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
)


@public(method=("sum_to_size",))
def sum_to(x: Tensor, *shape, size=None) -> Tensor:
    """Sum ``x`` over broadcast dimensions so it has ``shape`` (the inverse of expand); as
    ``Tensor.sum_to_size`` the sizes may come as varargs, one sequence or ``size=``."""
    if size is not None:
        shape = _varargs_or_keyword(shape, size, "size", "sum_to_size")
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if values_of(x).shape == shape:  # an array too, in a plain rule
        return x
    return _sum_all(x) if shape == () else _summed_over(x, shape)


def _summed_over(x, shape: tuple):
    """PyTorch's ``at::sum_to`` to a non-empty ``shape``: on a tensor with leading dims to
    drop, a sum keeping them (SumBackward1) and a view without them (ViewBackward0)."""
    lead = len(x.shape) - len(shape)
    if lead > 0 and type(x) is Tensor:
        # The view op itself: the sum is fresh and contiguous, so view()'s checks would pass.
        return _view(_sum_to(x, shape=(1,) * lead + shape), shape=shape)
    return _sum_to(x, shape=shape)


def _sum_all(x):
    """The sum of every element, PyTorch's ``sum_to`` of a 0-d shape (SumBackward0)."""
    # why: reduction imports this module (through _reduce)
    from .reduction import _sum_all as sum_all

    return sum_all(x, dim=None, keepdim=False)


def _expand_forward(x, *, shape):
    """A read-only broadcast view of ``x``, as ``np.broadcast_to`` makes it.

    ``np.broadcast_to`` costs several microseconds (it builds an iterator), more than the
    rest of a small backward rule; for a contiguous ``x`` the view is built directly from
    its strides, with 0 where a dimension is broadcast.
    """
    lead = len(shape) - x.ndim
    if lead < 0 or not x.flags.c_contiguous:
        return np.broadcast_to(x, shape)
    strides = [0] * lead
    for n, s, stride in zip(x.shape, shape[lead:] if lead else shape, x.strides):
        if n == s:
            strides.append(stride)
        elif n == 1:
            strides.append(0)
        else:
            return np.broadcast_to(x, shape)  # raises NumPy's error
    out = np.ndarray(shape, x.dtype, x, 0, tuple(strides))
    out.setflags(write=False)  # (cheaper than through out.flags)
    return out


_expand = primitive(
    "expand",
    _expand_forward,
    lambda grad, x, result, *, shape: summed_to(grad, tuple(x.shape)),
    node_name="ExpandBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
    plain_rules=True,
    metadata=("self_sym_sizes",),
)


def summed_to(grad, shape: tuple):
    """``grad`` (a tensor, or an array in a plain rule) summed over broadcast dimensions to
    ``shape``: itself when it has that shape already."""
    if grad.shape == shape:
        return grad
    return _sum_all(grad) if shape == () else _summed_over(grad, shape)


def _expand_shape(x_shape, sizes, op, dtype=np.float32):
    """The shape ``x_shape`` expands to for ``sizes`` (-1 keeps a dimension); ``dtype``: the
    tensor's, which PyTorch's message names."""
    sizes = tuple(sizes)
    lead = len(sizes) - len(x_shape)
    if lead < 0:
        raise RuntimeError(
            f"expand({legacy_type_name(dtype)}{{{list(x_shape)}}}, size="
            f"{list(sizes)}): the number of sizes "
            f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in "
            f"the tensor ({len(x_shape)}) ({op})"
        )
    out = list(sizes[:lead]) if lead else []
    for s in out:
        if s < 0:
            raise RuntimeError(
                f"{op}: -1 is not allowed for a new leading dimension ({list(sizes)})"
            )
    for cur, s in zip(x_shape, sizes[lead:] if lead else sizes):
        if s == cur or (cur == 1 and s != -1):
            out.append(s)
        elif s == -1:
            out.append(cur)
        else:
            i = len(out)  # PyTorch names the first size that differs, and both shapes
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(x_shape)} ({op}: each size must match or be 1, aligned from the right)"
            )
    return tuple(out)


def _plain_expansion(shape: tuple, sizes: tuple) -> bool:
    """Whether ``sizes`` are non-negative Python ints that ``shape`` expands to as they are
    (no -1, each size ``shape``'s or in place of a 1): the common call, needing no other
    check; anything else goes through ``_expand_shape``."""
    lead = len(sizes) - len(shape)
    if lead < 0:
        return False
    for s in sizes:
        if type(s) is not int or s < 0:
            return False
    for n, s in zip(shape, sizes[lead:]):
        if n != s and n != 1:
            return False
    return True


@public(function=False)
def expand(x: Tensor, *sizes, size=None) -> Tensor:
    """A broadcast view of ``x`` with ``sizes`` (-1 keeps a dimension)."""
    if size is None and _plain_expansion(x._data.shape, sizes):  # ``v.expand(8, 8)``
        return _expand(x, shape=sizes)
    if size is not None:
        sizes = _varargs_or_keyword(sizes, size, "size", "expand")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return _expand(x, shape=_expand_shape(x._data.shape, sizes, "expand", x._data.dtype))


@public(function=False)
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input`` expanded to ``other``'s shape."""
    shape = _expand_shape(input._data.shape, other._data.shape, "expand_as", input._data.dtype)
    return _expand(input, shape=shape)


__all__ = exports(globals())
