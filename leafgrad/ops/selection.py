"""Order statistics that pick one element: median, nanmedian, kthvalue and mode.

Whole-tensor medians share the gradient evenly among the elements equal to the result (as
PyTorch's evenly_distribute_backward); per-dim forms return ``(values, indices)`` and send
the gradient to the returned index, as max(dim) does. Among ties median, nanmedian and mode
take what PyTorch's kernels take (a stable sort's k-th element, NaN last; mode's last
occurrence), kthvalue what PyTorch's quickselect leaves (``_quickselect``).
"""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _stdsort
from ._optable import Generic
from ._out import with_outs
from ._plain import operand, values_of
from ._primitive import primitive
from ._quickselect import kth_positions
from ._reduce import _one_dim, _require_tensor, check_keepdim
from ._returned import returned
from .extrema import _select_grad, _select_jvp
from .piecewise import where


def _returned(name: str):
    """The ``(values, indices)`` return type ``torch.return_types.<name>``."""
    return returned(name, ["values", "indices"])


_MedianResult = _returned("median")
_NanmedianResult = _returned("nanmedian")
_KthvalueResult = _returned("kthvalue")
_ModeResult = _returned("mode")
# What the same calls return with out=(values, indices), as PyTorch names them.
_OUT_TYPES = {
    name: _returned(f"{name}_out") for name in ("median", "nanmedian", "kthvalue", "mode")
}


def _into(op: str, out, compute, input):
    """``compute()`` written into ``out``, a ``(values, indices)`` pair of tensors."""
    return with_outs(op, compute, (input,), out, _OUT_TYPES[op])


# ----- which element each row selects (arrays only) -----


def _median_positions(x, axis, ignore_nan: bool):
    """Per row along ``axis`` (kept as size 1): the index of the lower median.

    A NaN makes the median NaN (the first NaN's index); ``ignore_nan`` takes the lower median
    of the numbers instead, and of the whole row when it is all NaN.
    """
    order = np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    if x.dtype.kind != "f":
        k = np.full(order.shape[:axis] + (1,) + order.shape[axis + 1 :], (n - 1) // 2)
        return np.take_along_axis(order, k, axis)
    nan = np.isnan(x)
    if ignore_nan:
        count = n - nan.sum(axis=axis, keepdims=True)
        k = np.where(count > 0, (count - 1) // 2, (n - 1) // 2)
        return np.take_along_axis(order, k, axis)
    k = np.full(nan.shape[:axis] + (1,) + nan.shape[axis + 1 :], (n - 1) // 2)
    first_nan = np.argmax(nan, axis=axis, keepdims=True)
    median = np.take_along_axis(order, k, axis)
    return np.where(nan.any(axis=axis, keepdims=True), first_nan, median)


def _mode_positions(x, axis):
    """Per row: PyTorch's CPU pick, the last of the first longest run of equal values in the
    row as its std::sort (comparing with ``<``) leaves it, replayed (``_stdsort``); each NaN
    is a run of its own, where that sort happened to leave it."""
    order = _stdsort.sort_order(x, axis, _stdsort.LESS)
    ordered = np.moveaxis(np.take_along_axis(x, order, axis), axis, -1)
    order = np.moveaxis(order, axis, -1)
    n = ordered.shape[-1]
    # A run starts where the sorted value changes (NaN != NaN, so each NaN starts one).
    starts = np.ones(ordered.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = np.ones(ordered.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    position = np.broadcast_to(np.arange(n), ordered.shape)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, n), -1), -1), -1)
    # argmax takes the first longest run (PyTorch's strict ``>``), and its last element.
    best = np.argmax(last - first, axis=-1)[..., None]
    picked = np.take_along_axis(order, np.take_along_axis(last, best, -1), -1)
    return np.moveaxis(picked, -1, axis)


def _selecting(positions):
    """The forward of a per-dim selection: ``(values, indices)`` from the picked positions."""

    def forward(x, *, dim, keepdim, **params):
        if x.ndim == 0:
            return x.copy(), np.zeros((), dtype=np.int64)
        if x.shape[dim] == 0 or x.size == 0:
            # keepdim keeps the reduced dim as size 1, even beside an empty one.
            shape = x.shape[:dim] + ((1,) if keepdim else ()) + x.shape[dim + 1 :]
            return np.empty(shape, x.dtype), np.empty(shape, np.int64)
        idx = positions(x, dim, **params).astype(np.int64, copy=False)
        values = np.take_along_axis(x, idx, axis=dim)
        if not keepdim:
            values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
        return values, idx

    return forward


def _kth_positions(x, axis, *, k):
    return kth_positions(x, axis, k)


def _whole(ignore_nan: bool):
    def forward(x, *, batch_dims=0):
        lead = x.shape[:batch_dims]
        if x.size == 0:
            return np.full(lead, np.nan, dtype=x.dtype)
        flat = x.reshape(lead + (-1,))
        picked = np.take_along_axis(flat, _median_positions(flat, batch_dims, ignore_nan), -1)
        return picked[..., 0]

    return forward


# The whole-tensor medians of each of the first ``batch_dims`` dims' entries (vmap's batch):
# the gradient shared evenly among the entry's elements equal to its median (among its NaNs
# when that is NaN), as PyTorch's evenly_distribute_backward and evenly_read_jvp do.


# The rules run on tensors and on a plain rule's arrays alike (values through values_of,
# masks as operands beside the gradient).
def _trailing(x, batch_dims: int) -> tuple:
    return tuple(range(batch_dims, x.ndim))


def _picked(x, result, batch_dims: int, nan_picks: bool) -> np.ndarray:
    xd, rd = values_of(x), values_of(result)
    r = rd.reshape(rd.shape + (1,) * (xd.ndim - batch_dims))
    return np.where(np.isnan(r), np.isnan(xd), xd == r) if nan_picks else xd == r


def _evenly_grad(grad, x, result, *, batch_dims=0):
    picked = _picked(x, result, batch_dims, True)
    count = picked.sum(axis=_trailing(x, batch_dims), keepdims=True).astype(values_of(x).dtype)
    grad = grad.reshape(tuple(grad.shape) + (1,) * (x.ndim - batch_dims))
    return where(operand(picked, grad), grad / operand(count, grad), 0.0)


def _evenly_jvp(tx, x, result, *, batch_dims=0):
    # The tangent is masked by multiplying, so a non-finite tangent anywhere makes NaN.
    picked = _picked(x, result, batch_dims, False).astype(x._data.dtype)
    trailing = _trailing(x, batch_dims)
    spread = tx / _wrap(picked.sum(axis=trailing, keepdims=True)) * _wrap(picked)
    return spread.sum(trailing) if trailing or not batch_dims else spread


def _vjp(grad, x, result, *, dim, keepdim, **which):
    return _select_grad(grad, x, result, dim=dim, keepdim=keepdim)


def _jvp(tx, x, result, *, dim, keepdim, **which):
    return _select_jvp(tx, x, result, dim=dim, keepdim=keepdim)


def _per_dim(name, positions, node_name, overload=""):
    # ``which`` (kthvalue's k) chose the element; the rules read only the returned indices.
    return primitive(
        name,
        _selecting(positions),
        _vjp,
        kind=Generic(jvp=_jvp),
        overload=overload,
        saves=("indices", "dim", "keepdim"),
        outputs=("values", "indices"),
        node_name=node_name,
        dtype_rule="keep",
        num_outputs=2,
        plain_rules=True,  # max.dim's rule, already written for both
    )


def _all_of(name, forward, node_name):
    return primitive(
        name,
        forward,
        _evenly_grad,
        kind=Generic(jvp=_evenly_jvp),
        saves=("self", "result"),
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )


_median_all = _all_of("median", _whole(False), "MedianBackward0")
_nanmedian_all = _all_of("nanmedian", _whole(True), "NanmedianBackward0")
_median_dim = _per_dim(
    "median", lambda x, a: _median_positions(x, a, False), "MedianBackward1", "dim"
)
_nanmedian_dim = _per_dim(
    "nanmedian", lambda x, a: _median_positions(x, a, True), "NanmedianBackward1", "dim"
)
_kthvalue = _per_dim("kthvalue", _kth_positions, "KthvalueBackward0")
_mode = _per_dim("mode", _mode_positions, "ModeBackward0")


# ----- the public functions -----


def _check_input(input, op: str) -> None:
    _require_tensor(input, op)
    if input._data.dtype == np.bool_ and op != "mode":
        raise NotImplementedError(
            f"{op}(): not implemented for bool tensors; convert with .int() or .float() first"
        )


def _reduced_dim(input: Tensor, dim, op: str) -> int:
    """``dim`` made non-negative; IndexError when it has size 0 (there is nothing to pick)."""
    d = _one_dim(dim, input._data.ndim, op)
    data = input._data
    if data.ndim and data.shape[d] == 0:
        raise IndexError(
            f"{op}(): cannot reduce dimension {d} of a tensor of shape {list(data.shape)}: it "
            "has size 0; reduce over a non-empty dimension"
        )
    return d


def _select(prim, result_type, input, d, keepdim, **params):
    values, indices = prim(input, dim=d, keepdim=keepdim, **params)
    # Integer indices never require grad; as in PyTorch they stay leaves.
    indices.grad_fn = None
    return result_type(values, indices)


def _needs_dim(dim, op: str):
    if dim is None:
        raise TypeError(f"{op}(): out= needs dim (the whole-tensor {op} has no out= form)")
    return dim


def _median(op, whole, per_dim, result_type, input, dim, keepdim):
    _check_input(input, op)
    if dim is None:
        return whole(input)
    return _select(per_dim, result_type, input, _reduced_dim(input, dim, op), keepdim)


@public()
def median(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """``median(x)``: the lower median of all elements (NaN if any is NaN; the gradient is
    shared among equal elements); ``median(x, dim)``: ``(values, indices)`` per row."""
    check_keepdim(keepdim, "median")
    if out is not None:
        return _into(
            "median", out, lambda: median(input, _needs_dim(dim, "median"), keepdim), input
        )
    return _median("median", _median_all, _median_dim, _MedianResult, input, dim, keepdim)


@public()
def nanmedian(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """As ``median``, ignoring NaNs (NaN only where a whole row is NaN)."""
    check_keepdim(keepdim, "nanmedian")
    if out is not None:
        dim = _needs_dim(dim, "nanmedian")
        return _into("nanmedian", out, lambda: nanmedian(input, dim, keepdim), input)
    return _median(
        "nanmedian", _nanmedian_all, _nanmedian_dim, _NanmedianResult, input, dim, keepdim
    )


@public()
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """``(values, indices)`` of the k-th smallest element (1-based) along ``dim``."""
    check_keepdim(keepdim, "kthvalue")
    if out is not None:
        return _into("kthvalue", out, lambda: kthvalue(input, k, dim, keepdim), input)
    _check_input(input, "kthvalue")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"kthvalue(): k must be an int, not {type(k).__name__}")
    d = _reduced_dim(input, dim, "kthvalue")
    size = input._data.shape[d] if input._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(
            f"kthvalue(): k={k} is out of range for dimension {d} of size {size} (shape "
            f"{list(input.shape)}); pass 1 <= k <= {size}"
        )
    return _select(_kthvalue, _KthvalueResult, input, d, keepdim, k=int(k))


@public()
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of equally
    frequent ones) and the index of its last occurrence."""
    check_keepdim(keepdim, "mode")
    if out is not None:
        return _into("mode", out, lambda: mode(input, dim, keepdim), input)
    _check_input(input, "mode")
    d = _reduced_dim(input, dim, "mode")
    return _select(_mode, _ModeResult, input, d, keepdim)


__all__ = exports(globals())
