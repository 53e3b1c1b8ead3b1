"""scatter_reduce: ``src`` combined into ``input`` at ``index`` by sum, prod, mean, amax or
amin, with or without ``input``'s own values (``include_self``), and its in-place twin.

The gradients are PyTorch's scatter_reduce_backward, written in differentiable ops: sum
and mean spread ``grad`` (divided by the counts for mean); prod divides the product by
each factor, with the zeros handled as PyTorch handles them; amax/amin share ``grad``
evenly among the entries that reach the extremum.
"""

from __future__ import annotations

import numpy as np

from .._engine import grad_mode
from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._add_at import add_at
from ._batch_whole import batches_index
from ._inputs import guarding_indices
from ._optable import Generic, NoDerivative
from ._out import with_out
from ._primitive import primitive
from .indexing import _gather_key, gather, masked_fill
from .piecewise import where
from .scatter import _checked, _covered, _scatter_value, scatter_add

_state = grad_mode._state
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_UFUNCS = {
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "amax": np.maximum,
    "amin": np.minimum,
}


def _identity(reduce: str, dtype: np.dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:  # bool
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max


def _counts(shape, index, dim, include_self) -> np.ndarray:
    """How many values each place of the result averages (at least 1)."""
    counts = np.full(shape, 1 if include_self else 0, np.int64)
    add_at(counts, _gather_key(index, dim), 1)
    return np.maximum(counts, 1)


def _scatter_reduce_forward(x, src, *, dim, index, reduce, include_self):
    out = x.copy()
    key = _gather_key(index, dim)
    if not include_self:
        out[key] = _identity(reduce, x.dtype)
    _UFUNCS[reduce].at(out, key, src.astype(x.dtype, copy=False))
    if reduce == "mean":
        counts = _counts(x.shape, index, dim, include_self)
        # PyTorch divides integers with rounding towards minus infinity.
        out = out / counts if x.dtype.kind == "f" else (out // counts).astype(x.dtype)
    return out


def _scatter_reduce_grads(grad, x, src, *, result, needs, dim, index, reduce, include_self):
    idx = _wrap(index)
    if reduce == "sum":
        grad_x, grad_src = grad, gather(grad, dim, idx)
    elif reduce == "mean":
        counts = _wrap(_counts(x._data.shape, index, dim, include_self).astype(grad._data.dtype))
        grad_x = grad / counts
        grad_src = gather(grad, dim, idx) / gather(counts, dim, idx)
    elif reduce == "prod":
        grad_x, grad_src = _prod_grads(grad, x, src, result, dim, index, include_self)
    else:
        value = gather(result, dim, idx)
        x_is = (x == result).to(grad.dtype)
        src_is = (src == value).to(grad.dtype)
        shared = grad / scatter_add(x_is, dim, idx, src_is)
        grad_x, grad_src = x_is * shared, src_is * gather(shared, dim, idx)
    if not include_self:
        grad_x = _scatter_value(grad_x, dim=dim, index=index, value=0)
    return grad_x if needs[0] else None, grad_src if needs[1] else None


def _prod_grads(grad, x, src, result, dim, index, include_self):
    """PyTorch's: ``grad * result / x`` with zeros of ``x`` taken as 1 (the product of the
    others); for ``src``, a lone zero at its place gets the product of the others, a place
    with two or more zeros gives 0."""
    idx = _wrap(index)
    params = {"dim": dim, "index": index, "reduce": "prod", "include_self": include_self}
    ones_for_zeros = masked_fill(x, x == 0, 1)
    grad_x = grad * _scatter_reduce(ones_for_zeros, src, **params) / ones_for_zeros
    src_zero = src._data == 0
    zeros_there = np.zeros(x._data.shape, np.int64)
    add_at(zeros_there, _gather_key(index, dim), src_zero)
    lone = _wrap(src_zero & (np.take_along_axis(zeros_there, index, dim) == 1))
    others = _scatter_reduce(x, masked_fill(src, lone, 1), **params)
    grad_src = where(
        lone,
        gather(grad * others, dim, idx),
        gather(grad * result, dim, idx) / masked_fill(src, src == 0, 1),
    )
    if _state.enabled and (zeros_there > 1).any():
        grad_src = _no_double_backward(grad_src)  # as PyTorch: the formula is wrong there
    return grad_x, grad_src


# PyTorch's DelayedError: the identity, whose backward raises (a double backward of prod
# where two or more zeros of src meet at one place).
_no_double_backward = primitive(
    "scatter_reduce_prod_zeros_double_backward",
    np.copy,
    kind=NoDerivative(),
    node_name="DelayedError",
    dtype_rule="keep",
)


def _scatter_reduce_jvp(tx, ts, x, src, *, result, dim, index, reduce, include_self):
    """Linear for sum and mean; for prod, amax and amin the derivatives the VJP reads off
    (its rule applied to a gradient of ones) weight the tangents of each place."""
    params = {"dim": dim, "index": index, "reduce": reduce, "include_self": include_self}
    tx = tx if tx is not None else _wrap(np.zeros(x._data.shape, result._data.dtype))
    ts = ts if ts is not None else _wrap(np.zeros(src._data.shape, result._data.dtype))
    if reduce in ("sum", "mean"):
        return _scatter_reduce(tx, ts, **params)
    ones = _wrap(np.ones(result._data.shape, result._data.dtype))
    weight_x, weight_src = _scatter_reduce_grads(
        ones, x, src, result=result, needs=(True, True), **params
    )
    return scatter_add(weight_x * tx, dim, _wrap(index), weight_src * ts)


_scatter_reduce = primitive(
    "scatter_reduce",
    _scatter_reduce_forward,
    vjp_all=_scatter_reduce_grads,
    kind=Generic(jvp=_scatter_reduce_jvp),
    overload="two",
    inputs=("self", "src"),
    saves=("self", "dim", "index", "src", "reduce", "include_self", "result"),
    node_name="ScatterReduceBackward0",
    dtype_rule="keep",
)


@public(inplace=True)
@batches_index("scatter_reduce", ("input", "index", "src"))
@guarding_indices("index")
def scatter_reduce(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Tensor,
    reduce: str,
    *,
    include_self: bool = True,
    out=None,
) -> Tensor:
    """``input`` with ``src[i][j][k]`` combined into ``[index[i][j][k]][j][k]`` (for dim 0)
    by ``reduce`` ("sum", "prod", "mean", "amax", "amin"); ``include_self=False`` leaves
    ``input``'s values out of the places written to."""
    if out is not None:
        args = (input, dim, index, src)
        compute = lambda: scatter_reduce(*args, reduce, include_self=include_self)
        return with_out("scatter_reduce", compute, args, out)
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): src must be a Tensor, not {type(src).__name__}")
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch takes these too
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            f"scatter_reduce(): reduce must be one of {', '.join(_REDUCTIONS)}, got {reduce!r}"
        )
    d, idx = _checked("scatter_reduce", input, dim, index, src)
    x = input.reshape(1) if input._data.ndim == 0 else input
    result = _scatter_reduce(
        x, _covered(src, idx), dim=d, index=idx, reduce=reduce, include_self=bool(include_self)
    )
    return result.reshape(()) if input._data.ndim == 0 else result


__all__ = exports(globals())
