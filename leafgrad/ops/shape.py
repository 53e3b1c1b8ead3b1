"""Shape ops: views that reshape (view, reshape, flatten, unflatten), squeeze and unsqueeze.

Views return NumPy views of the input, as PyTorch's share storage. Broadcasting (expand) and
its inverse (sum_to) live in ``broadcast.py``; permutations, flip, roll and repeat in
``reorder.py``; select/narrow in ``slicing.py`` and cat/stack/split/chunk/unbind in
``joining.py``.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._dtype import as_dtype
from .._dtype import dtype as dtype_type
from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from ._inputs import _dim_args, _unique_dims, _varargs_or_keyword
from ._optable import Linear
from ._primitive import primitive

# ----- view / reshape / flatten -----


def _reshape_forward(x, *, shape, dims=None, dim=None):
    # (``dims``: the dims a squeeze drops, for its rule; ``dim``: the dims it was asked for,
    # as given, which PyTorch's node shows)
    return x.reshape(shape)


def _reshaping(name: str, node_name: str, view: bool):
    """A primitive reshaping its input to ``shape``; its gradient is reshaped back."""
    return primitive(
        name,
        _reshape_forward,
        lambda grad, x, result, *, shape: grad.reshape(x.shape),
        node_name=node_name,
        dtype_rule="keep",
        kind=Linear(),
        view=view,
        plain_rules=True,
        metadata=("self_sym_sizes",),
    )


_view = _reshaping("view", "ViewBackward0", view=True)
# reshape of a non-contiguous tensor: a view its strides allow (ReshapeAliasBackward0), or
# its contiguous copy reshaped, which PyTorch does not count as a view (UnsafeViewBackward0).
_reshape_alias = _reshaping("_reshape_alias", "ReshapeAliasBackward0", view=True)
_unsafe_view = _reshaping("_unsafe_view", "UnsafeViewBackward0", view=False)


def _infer_shape(numel, shape, op, x_shape):
    # The common case first: sizes given as non-negative Python ints, all of them known.
    known = 1
    for s in shape:
        if type(s) is not int or s < 0:
            break
        known *= s
    else:
        if known == numel:
            return shape if type(shape) is tuple else tuple(shape)
    shape = tuple(int(s) for s in shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError(f"only one dimension can be inferred ({op}: shape {list(shape)})")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"{op}: invalid negative size in shape {list(shape)}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise _invalid_shape(op, shape, numel, x_shape)
        shape = shape[: neg[0]] + (numel // known,) + shape[neg[0] + 1 :]
    elif known != numel:
        raise _invalid_shape(op, shape, numel, x_shape)
    return shape


def _invalid_shape(op: str, shape: tuple, numel: int, x_shape: tuple) -> RuntimeError:
    return RuntimeError(
        f"shape '{list(shape)}' is invalid for input of size {numel} ({op}: a tensor of shape "
        f"{list(x_shape)})"
    )


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return shape


@public()
def reshape(x: Tensor, *sizes, shape=None) -> Tensor:
    """``x`` with a new shape of the same number of elements (-1 infers one size): a view
    where the strides allow one, else a reshaped copy, recorded as PyTorch records each."""
    sizes = _varargs_or_keyword(sizes, shape, "shape", "reshape")
    shape = _infer_shape(x._data.size, _shape_arg(sizes), "reshape", x._data.shape)
    if x._data.flags.c_contiguous:
        return _view(x, shape=shape)
    try:
        np.reshape(x._data, shape, copy=False)
    except ValueError:
        return _unsafe_view(x.contiguous(), shape=shape)  # a copy (CloneBackward0) reshaped
    return _reshape_alias(x, shape=shape)


@public(function=False)
def view(x: Tensor, *sizes, size=None, dtype=None) -> Tensor:
    """A view of ``x`` with a new shape (-1 infers one size), or (``x.view(dtype)``) its
    memory read as another dtype.

    RuntimeError where ``x``'s strides allow no such view (``reshape`` copies instead).
    """
    if dtype is not None or (len(sizes) == 1 and type(sizes[0]) is not int and _is_dtype(sizes[0])):
        if size is not None or (sizes and dtype is not None):
            raise TypeError("view() takes either sizes or a dtype, not both")
        return _view_as_dtype(x, dtype if dtype is not None else sizes[0])
    sizes = _varargs_or_keyword(sizes, size, "size", "view")
    shape = _infer_shape(x._data.size, _shape_arg(sizes), "view", x._data.shape)
    if not x._data.flags.c_contiguous:
        try:  # the strides decide, as in PyTorch: only a reshape that needs no copy
            np.reshape(x._data, shape, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead. "
                f"(view: a tensor of shape {list(x._data.shape)} and strides {list(x.stride())} "
                f"viewed as {list(shape)})"
            ) from None
    return _view(x, shape=shape)


def _is_dtype(value) -> bool:
    return isinstance(value, dtype_type) or value in (float, int, bool)


def _view_as_dtype(x: Tensor, dtype) -> Tensor:
    """``x.view(dtype)``: the same memory read as ``dtype``, outside any graph (as in PyTorch,
    the result never requires grad); the last dim scales by the ratio of element sizes."""
    target = as_dtype(dtype).np
    old, new = x._data.dtype.itemsize, target.itemsize
    if old != new:
        last = x._data.shape[-1] if x._data.ndim else 1
        if x._data.ndim == 0:
            raise RuntimeError(
                f"view: a 0-dim {x.dtype} tensor cannot be viewed as {dtype} (different element "
                "sizes); unsqueeze it first"
            )
        if new > old and last % (new // old):
            raise RuntimeError(
                f"view: self.size(-1) must be divisible by {new // old} to view {x.dtype} as "
                f"{dtype} (different element sizes), but got {last}"
            )
        if x._data.strides[-1] != old and last != 1:
            raise RuntimeError(
                f"view: self.stride(-1) must be 1 to view {x.dtype} as {dtype} (different "
                f"element sizes), but got {x._data.strides[-1] // old}; call .contiguous() first"
            )
    out = x.detach()
    out._data = x._data.view(target)
    return out


@public(function=False)
def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other._data.shape)


@public(function=False)
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other._data.shape)


@public()
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Dims ``start_dim..end_dim`` merged into one; a 0-d tensor becomes shape (1,)."""
    x = input._data
    shape = x.shape
    if (
        type(start_dim) is int
        and type(end_dim) is int
        and start_dim == 0
        and end_dim == -1
        and len(shape) > 1
    ):  # the common call, ``t.flatten()`` of a tensor with dims to merge: no checks needed
        return _view(input, shape=(x.size,))
    start = _normalize_dim(operator.index(start_dim), len(shape), "flatten")
    end = _normalize_dim(operator.index(end_dim), len(shape), "flatten")
    if start > end:
        raise RuntimeError(
            f"flatten: start_dim ({start_dim}) comes after end_dim ({end_dim}) for a tensor of "
            f"shape {list(shape)}; pass start_dim <= end_dim"
        )
    if not shape:
        return _view(input, shape=(1,))
    if start == end:
        return input
    merged = math.prod(shape[start : end + 1])
    return _view(input, shape=shape[:start] + (merged,) + shape[end + 1 :])


@public()
def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Dim ``dim`` split into ``sizes`` (one of which may be -1)."""
    shape = input._data.shape
    d = _normalize_dim(operator.index(dim), len(shape), "unflatten")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    sizes = _infer_shape(shape[d], tuple(sizes), "unflatten", shape[d : d + 1])
    return _view(input, shape=shape[:d] + sizes + shape[d + 1 :])


# ----- squeeze / unsqueeze -----


def _plain_dims(dims: tuple, ndim: int):
    """``dims`` made non-negative when each is a Python int in range for ``ndim`` dims and
    none is named twice (the common call, ``t.flip(0)``), else None: the general checks then
    normalize them, or raise. (A 0-d tensor, whose one dim 0 or -1 is a special case, is
    left to them too.)"""
    out = []
    for d in dims:
        if type(d) is not int or not -ndim <= d < ndim:
            return None
        out.append(d + ndim if d < 0 else d)
    if len(out) > 1 and len(set(out)) < len(out):
        return None
    return tuple(out)


def _squeeze_grad(grad, x, *, dims=None, **_):
    """PyTorch's ``unsqueeze_to``: an unsqueeze per dropped dim, from the first
    (UnsqueezeBackward0 nodes); reshaped back where the dims are not known."""
    if dims is None:
        return grad.reshape(x.shape)
    for d in dims:
        grad = _unsqueeze(grad, dim=d)
    return grad


def _squeeze_op(number: int, overload: str):
    shown_dim = {  # PyTorch's _saved_dim: the dim asked for, or the tuple, as given
        "dim": (("dim", lambda values, params: _asked(params)),),
        "dims": (("dim", lambda values, params: tuple(_asked(params))),),
    }.get(overload, ())
    return primitive(
        "squeeze",
        _reshape_forward,
        _squeeze_grad,
        kind=Linear(),
        overload=overload,
        node_name=f"SqueezeBackward{number}",
        dtype_rule="keep",
        view=True,
        plain_rules=True,
        metadata=("self_sym_sizes", *shown_dim),
    )


def _asked(params: dict):
    """The dim(s) a squeeze was asked for, as given (else, made inside vmap: those dropped)."""
    if "dim" in params:
        return params["dim"]
    dims = params["dims"]
    return dims if len(dims) != 1 else dims[0]


# PyTorch names the node by overload: no dim, one dim, a tuple of dims.
_squeeze_all, _squeeze_dim, _squeeze_dims = (
    _squeeze_op(i, o) for i, o in enumerate(("", "dim", "dims"))
)
_SQUEEZES = {"all": _squeeze_all, "dim": _squeeze_dim, "dims": _squeeze_dims}


def squeeze_plan(shape: tuple, dim, op: str = "squeeze") -> tuple:
    """``(overload, params)`` of a squeeze of ``shape`` over ``dim`` (None: every dim; an int;
    a tuple): ``"all"``, ``"dim"`` or ``"dims"``, and the result's ``shape`` with the
    ``dims`` it drops in order (its rule unsqueezes them back)."""
    if dim is None:
        kind, drop = "all", range(len(shape))
    elif isinstance(dim, (tuple, list)):
        dim = _dim_args((dim,))
        kind, drop = "dims", _unique_dims(dim, len(shape), op)
    else:
        dim = operator.index(dim)
        kind, drop = "dim", (_normalize_dim(dim, len(shape), op),)
    drop = sorted({d for d in drop if d < len(shape) and shape[d] == 1})
    params = {"shape": tuple(s for i, s in enumerate(shape) if i not in drop), "dims": tuple(drop)}
    if kind != "all":
        params["dim"] = dim
    return kind, params


@public()
def squeeze(input: Tensor, *dims, dim=None) -> Tensor:
    """``input`` without size-1 dims: all of them, or those among ``dim`` (int or tuple;
    ``t.squeeze(0, 1)`` as ``t.squeeze((0, 1))``)."""
    if dim is None and len(dims) == 1:
        plain = _plain_dims(dims, input._data.ndim)
        if plain is not None:  # the common call, ``t.squeeze(0)``: squeeze_plan's "dim" case
            shape = input._data.shape
            d = plain[0]
            if shape[d] != 1:
                return _squeeze_dim(input, shape=shape, dims=(), dim=dims[0])
            return _squeeze_dim(input, shape=shape[:d] + shape[d + 1 :], dims=plain, dim=dims[0])
    dims = _varargs_or_keyword(dims, dim, "dim", "squeeze")
    dim = dims if len(dims) > 1 else dims[0] if dims else None
    kind, params = squeeze_plan(input._data.shape, dim)
    return _SQUEEZES[kind](input, **params)


def _unsqueeze_forward(x, *, dim):
    return x[(slice(None),) * dim + (None,)]


_unsqueeze = primitive(
    "unsqueeze",
    _unsqueeze_forward,
    lambda grad, x, *, dim, **_: _squeeze_dim(grad, shape=tuple(x.shape), dims=(dim,), dim=dim),
    node_name="UnsqueezeBackward0",
    dtype_rule="keep",
    kind=Linear(),
    view=True,
    plain_rules=True,
    metadata=("dim",),
)


@public()
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """A view of ``input`` with a size-1 dim inserted at ``dim`` (in [-ndim-1, ndim])."""
    ndim = input.ndim  # an array too, in a plain rule
    if type(dim) is int and 0 <= dim <= ndim:  # the common call: nothing to normalize
        return _unsqueeze(input, dim=dim)
    return _unsqueeze(input, dim=_normalize_dim(operator.index(dim), ndim + 1, "unsqueeze"))


__all__ = exports(globals())
