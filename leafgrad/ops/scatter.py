"""Writing by index tensors: scatter (a tensor or a number, optionally reduced by add or
multiply) and scatter_add, each with its in-place twin (``scatter_``, ``scatter_add_``).

scatter's gradients are PyTorch's: the overwritten places of ``input`` get none, ``src``
gets the gradient gathered at ``index``; with ``reduce=`` PyTorch defines no derivative.
scatter_add is a primitive of its own (ScatterAddBackward0, linear), whose gradients are
``grad`` and ``grad`` gathered, to any order. scatter_reduce lives in ``scatter_reduce``.
"""

from __future__ import annotations

import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from .._warn import warn_at_user
from ._add_at import add_at
from ._batch_whole import batches_index
from ._inputs import fill_number, guarding_indices
from ._optable import Linear, NoDerivative, PiecewiseLinear
from ._out import with_out
from ._primitive import primitive
from .indexing import _gather, _gather_key, _index_tensor, out_of_range, scatter_add_into


def _write_forward(x, src=None, *, dim, index, value=None, reduce=None):
    out = x.copy()
    key = _gather_key(index, dim)
    values = np.asarray(value if src is None else src).astype(x.dtype)
    if reduce == "add":
        add_at(out, key, values)
    elif reduce == "multiply":
        np.multiply.at(out, key, values)
    else:  # repeated indices: the last write wins, as on PyTorch's CPU
        out[key] = values
    return out


def _scatter_src_grads(grad, x, src, *, result, needs, dim, index):
    return (
        _scatter_value(grad, dim=dim, index=index, value=0) if needs[0] else None,
        _gather(grad, dim=dim, index=index) if needs[1] else None,  # gather past its checks
    )


_scatter_src = primitive(
    "scatter",
    _write_forward,
    vjp_all=_scatter_src_grads,
    kind=Linear(),
    overload="src",
    inputs=("self", "src"),
    saves=("dim", "index"),
    node_name="ScatterBackward0",
    dtype_rule="keep",
    plain_rules=True,
)
_scatter_value = primitive(
    "scatter",
    _write_forward,
    lambda grad, x, *, result, dim, index, value: _scatter_value(
        grad, dim=dim, index=index, value=0
    ),
    kind=PiecewiseLinear(),
    overload="value",
    saves=("dim", "index"),
    node_name="ScatterBackward1",
    dtype_rule="keep",
    plain_rules=True,
)
_scatter_reduce_src = primitive(
    "scatter", _write_forward, kind=NoDerivative(), overload="reduce", dtype_rule="keep"
)
_scatter_reduce_value = primitive(
    "scatter", _write_forward, kind=NoDerivative(), overload="value_reduce", dtype_rule="keep"
)


def _scatter_add_forward(x, src, *, dim, index):
    out = x.copy()
    scatter_add_into(out.reshape(out.shape or (1,)), dim, index, src.reshape(index.shape))
    return out


def _scatter_add_grad_src(grad, x, src, result, *, dim, index):
    g = _gather(grad.reshape((1,)) if grad.ndim == 0 else grad, dim=dim, index=index)
    return g if tuple(g.shape) == tuple(src.shape) else g.reshape(src.shape)


# ``index``: at least 1-D (a 0-d input runs as shape (1,)); ``src`` the part it covers.
_scatter_add = primitive(
    "scatter_add",
    _scatter_add_forward,
    (lambda grad, x, src, result, *, dim, index: grad, _scatter_add_grad_src),
    kind=Linear(),
    inputs=("self", "src"),
    saves=("dim", "index"),
    node_name="ScatterAddBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


def _checked(op: str, input: Tensor, dim, index, src):
    """``(dim, index array, the part of src that index covers)``, raising as PyTorch does."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): input must be a Tensor, not {type(input).__name__}")
    idx = _index_tensor(index, op)
    shape = input._data.shape
    d = _normalize_dim(operator.index(dim), len(shape), op)
    if max(idx.ndim, len(shape)) > 1 and idx.ndim != len(shape):
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as self tensor ({op}(): index "
            f"of shape {list(idx.shape)}, input of shape {list(shape)})"
        )
    if src is not None:
        if src._data.dtype != input._data.dtype:
            raise RuntimeError(
                f"{op}(): src ({src.dtype}) must have the input's dtype ({input.dtype}); "
                "convert it with .to(input.dtype)"
            )
        if max(idx.ndim, src._data.ndim) > 1 and idx.ndim != src._data.ndim:
            raise RuntimeError(
                f"{op}(): index of shape {list(idx.shape)} must have as many dims as src of "
                f"shape {list(src.shape)}"
            )
    wide = np.atleast_1d(idx)
    wide_shape = shape or (1,)
    too_big = any(i > s for k, (i, s) in enumerate(zip(wide.shape, wide_shape)) if k != d)
    if src is not None:
        too_big |= any(i > s for i, s in zip(wide.shape, src._data.shape or (1,)))
    if too_big:
        raise RuntimeError(
            f"{op}(): index of shape {list(idx.shape)} may be no larger than the input (shape "
            f"{list(shape)}) outside dim {d}"
            + ("" if src is None else f", nor larger than src (shape {list(src.shape)})")
        )
    size = wide_shape[d]
    if out_of_range(wide, size):
        bad = wide[(wide < 0) | (wide >= size)].flat[0]
        raise RuntimeError(f"{op}(): index {bad} is out of bounds for dim {d} with size {size}")
    return d, wide


def _covered(src: Tensor, index: np.ndarray) -> Tensor:
    """The corner of ``src`` that ``index`` covers (PyTorch reads only that part)."""
    src = src.reshape(-1) if src._data.ndim == 0 else src
    if src._data.shape == index.shape:
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


@public(inplace=True)
@batches_index("scatter", ("input", "index", "src"))
@guarding_indices("index")
def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None, out=None):
    """``input`` with ``src[i][j][k]`` written at ``[index[i][j][k]][j][k]`` (for dim 0),
    or the number ``value`` at those places; ``reduce="add"``/``"multiply"`` combines with
    what is there instead (no gradient, as in PyTorch)."""
    if out is not None:
        args = (input, dim, index, src)
        return with_out("scatter", lambda: scatter(*args, value=value, reduce=reduce), args, out)
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if src is None and value is None:
        raise TypeError("scatter(): pass src (a Tensor) or value (a number)")
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError(f"scatter(): reduce must be 'add' or 'multiply', got {reduce!r}")
    d, idx = _checked("scatter", input, dim, index, src)
    x = input.reshape(1) if input._data.ndim == 0 else input
    if src is not None:
        if reduce is not None:
            warn_at_user(
                "scatter(): the reduce argument with a Tensor src is deprecated in PyTorch; "
                "use scatter_reduce for more reductions",
            )
            out = _scatter_reduce_src(x, _covered(src, idx), dim=d, index=idx, reduce=reduce)
        else:
            out = _scatter_src(x, _covered(src, idx), dim=d, index=idx)
    elif reduce is not None:
        out = _scatter_reduce_value(x, dim=d, index=idx, value=value, reduce=reduce)
    else:
        out = _scatter_value(x, dim=d, index=idx, value=fill_number(value, input, "scatter"))
    return out.reshape(()) if input._data.ndim == 0 else out


@public(inplace=True)
@batches_index("scatter_add", ("input", "index", "src"))
@guarding_indices("index")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor, *, out=None) -> Tensor:
    """``input`` plus ``src`` added at the places ``index`` names along ``dim`` (repeated
    places accumulate)."""
    if out is not None:
        args = (input, dim, index, src)
        return with_out("scatter_add", lambda: scatter_add(*args), args, out)
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): src must be a Tensor, not {type(src).__name__}")
    d, idx = _checked("scatter_add", input, dim, index, src)
    return _scatter_add(input, _covered(src, idx), dim=d, index=idx)


__all__ = exports(globals())
