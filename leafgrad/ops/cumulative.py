"""Running reductions along one dim: cumprod, cummax, cummin, logcumsumexp (cumsum lives
with the sums in ``reduction``).

cumprod is a primitive because inputs with zeros need PyTorch's gradient, which is the true
derivative even there: an O(n) formula when no graph is wanted, the omitted-products O(n^2)
one (itself differentiable) when one is; its forward rule uses that table too where there
are zeros, so Taylor mode stays exact. cummax/cummin take their values at indices computed
on arrays (one node each, CummaxBackward0 / CumminBackward0, saving the input, dim and the
indices returned), so their gradients go to the chosen entries, as PyTorch's do. logcumsumexp is a
primitive for a stable forward (NumPy's ``logaddexp.accumulate``, in PyTorch's wider
accumulator) and PyTorch's stable
backward.
"""

from __future__ import annotations

import numpy as np

from .._engine import grad_mode
from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _running
from ._batch_whole import batches_along
from ._inputs import guard_indices
from ._optable import Generic
from ._out import with_out, with_outs
from ._plain import cast_like, operand, values_of
from ._primitive import primitive
from ._reduce import _as_np, _int_to_long, _one_dim, _require_tensor
from ._returned import returned
from .arithmetic import abs
from .elementwise import exp, log
from .indexing import _sorted_values
from .piecewise import where
from .reduction import _cumsum
from .reorder import flip, movedim

_state = grad_mode._state

# ----- cumprod -----


def _cumprod_forward(x, *, dim, dtype=None):
    dtype = _int_to_long(x, dtype)
    if x.ndim == 0:
        return x.astype(dtype) if dtype is not None else x.copy()
    return _running.running(True, x, dim, dtype)


def _omitted_products(x, dim):
    """``[..., k, j] = prod_{i <= j, i != k} x_i`` for ``j >= k`` (0 below), ``dim`` moved
    last: the Jacobian of cumprod, a table of cumprods of x with x_k replaced by 1. Exact
    with zeros, and differentiable."""
    n = x._data.shape[dim]
    rows = where(_wrap(np.eye(n, dtype=bool)), 1, movedim(x, dim, -1).unsqueeze(-2))
    later = _wrap(np.triu(np.ones((n, n), bool)))  # [k, j]: j >= k
    return where(later, _cumprod(rows, dim=rows._data.ndim - 1), 0)


def _omitted_products_grad(grad, x, dim):
    """``grad_k = sum_{j >= k} grad_j prod_{i <= j, i != k} x_i``."""
    jacobian = _omitted_products(x, dim)
    return movedim((jacobian * movedim(grad, dim, -1).unsqueeze(-2)).sum(-1), -1, dim)


def _first_zero_grad(grad, x, result, dim, zero):
    """The same gradient in O(n): before the first zero, ``reversed_cumsum(grad * result) /
    x``; at it, the products that skip it; after it, 0 (each product there holds a zero).
    Tensors, or a plain rule's arrays (the masks are operands beside ``x``)."""
    zeros_so_far = np.cumsum(zero, axis=dim)
    before = operand(zeros_so_far == 0, x)
    first_zero = zero & (zeros_so_far == 1)
    first = operand(first_zero, x)
    from_first = operand(np.cumsum(first_zero, axis=dim) > 0, x)
    head = _cumsum(where(before, grad * result, 0), dim=dim, reverse=True) / where(before, x, 1)
    skipping = _cumprod(where(first, 1, x), dim=dim)
    at_zero = _cumsum(where(from_first, grad * skipping, 0), dim=dim, reverse=True)
    return where(before, head, 0) + where(first, at_zero, 0)


# cumprod's rule runs on tensors and on a plain rule's arrays alike (shapes through .shape,
# values through values_of); the graph-recording formula below needs tensors, and a plain
# rule records nothing.
def _cumprod_grad(grad, x, result, *, dim, dtype=None):
    data = values_of(x)
    if values_of(grad).dtype != data.dtype:  # PyTorch casts grad to the input's dtype first
        grad = cast_like(grad, x)
    zero = data == 0  # read first: after release this raises, as PyTorch's unpacking does
    if x.ndim == 0 or x.shape[dim] <= 1:
        return grad
    if not zero.any():
        return _cumsum(result * grad, dim=dim, reverse=True) / x
    if _state.enabled:  # a graph of the gradient is wanted: the differentiable formula
        return _omitted_products_grad(grad, x, dim)
    return _first_zero_grad(grad, x, result, dim, zero)


def _cumprod_jvp(t, x, result, *, dim, dtype=None):
    """``result * cumsum(t / x)`` (PyTorch's formula) without zeros; with them, the table of
    omitted products applied to ``t``, which stays exact in higher orders (Taylor mode),
    where PyTorch's first-zero shortcut would not."""
    if x._data.ndim == 0:
        return t.to(result.dtype)
    if not (x._data == 0).any():
        return _cumsum(t / x, dim=dim) * result
    jacobian = _omitted_products(x, dim)
    return movedim((jacobian * movedim(t, dim, -1).unsqueeze(-1)).sum(-2), -1, dim)


_cumprod = primitive(
    "cumprod",
    _cumprod_forward,
    _cumprod_grad,
    kind=Generic(jvp=_cumprod_jvp),
    saves=("self", "dim", "result"),
    node_name="CumprodBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


@public(inplace=True)
def cumprod(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    """Running product along ``dim``; bools and integers multiply in int64."""
    _require_tensor(input, "cumprod")
    d = _one_dim(dim, input._data.ndim, "cumprod")
    if out is not None:
        return with_out("cumprod", lambda: cumprod(input, d, dtype=dtype), (input,), out)
    if dtype is not None:
        return _cumprod(input, dim=d, dtype=_as_np(dtype))
    return _cumprod(input, dim=d)


# ----- cummax / cummin -----

_Cummax = returned("cummax", ["values", "indices"])
_Cummin = returned("cummin", ["values", "indices"])
_CummaxOut = returned("cummax_out", ["values", "indices"])
_CumminOut = returned("cummin_out", ["values", "indices"])


def _running_extreme_indices(x: np.ndarray, axis: int, greater: bool) -> np.ndarray:
    """Where each running extreme was last reached (ties: the later; NaN: the latest NaN, as
    PyTorch's kernel takes every NaN it meets and nothing after one but another NaN)."""
    values = (np.maximum if greater else np.minimum).accumulate(x, axis=axis)
    takes = x == values  # (False from the first NaN on: the running extreme is NaN)
    if x.dtype.kind in "fc":
        takes |= np.isnan(x)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    positions = np.where(takes, np.arange(x.shape[axis]).reshape(shape), 0)
    return np.maximum.accumulate(positions, axis=axis).astype(np.int64)


_cummax_values = _sorted_values("cummax", "CummaxBackward0", ("self", "dim", "indices"))
_cummin_values = _sorted_values("cummin", "CumminBackward0", ("self", "dim", "indices"))


def _running_extreme(op: str, result, input: Tensor, dim: int, greater: bool):
    _require_tensor(input, op)
    d = _one_dim(dim, input._data.ndim, op)
    data = input._data
    if data.ndim == 0 or data.size == 0:
        positions = np.zeros(data.shape, np.int64)
    else:
        # row-major, as PyTorch's results (the values are gathered in its layout)
        positions = _running_extreme_indices(np.ascontiguousarray(data), d, greater)
    values = (_cummax_values if greater else _cummin_values)(input, dim=d, indices=positions)
    indices = _wrap(positions.copy())  # the node keeps its own copy, watched through this one
    guard_indices(values, [indices])
    return result(values, indices)


@public()
@batches_along("dim", "cummax")
def cummax(input: Tensor, dim: int, *, out=None):
    """``(values, indices)``: the running maximum along ``dim`` and where it was last reached;
    NaN, once met, stays."""
    if out is not None:
        return with_outs("cummax", lambda: cummax(input, dim), (input,), out, _CummaxOut)
    return _running_extreme("cummax", _Cummax, input, dim, greater=True)


@public()
@batches_along("dim", "cummin")
def cummin(input: Tensor, dim: int, *, out=None):
    """``(values, indices)``: the running minimum along ``dim`` and where it was last reached;
    NaN, once met, stays."""
    if out is not None:
        return with_outs("cummin", lambda: cummin(input, dim), (input,), out, _CumminOut)
    return _running_extreme("cummin", _Cummin, input, dim, greater=False)


# ----- logcumsumexp -----


def _logcumsumexp_forward(x, *, dim):
    """Accumulated as PyTorch's CPU kernel does, float32 in double and float16 in float
    (``_running.WIDER``), each value rounded once."""
    if x.ndim == 0:
        return x.copy()
    x = np.ascontiguousarray(x)  # PyTorch's result is row-major, whatever x's layout
    wide = _running.WIDER.get(x.dtype)
    if wide is None:
        return np.logaddexp.accumulate(x, axis=dim)
    return np.logaddexp.accumulate(x.astype(wide), axis=dim).astype(x.dtype)


def _reversed_logcumsumexp(t: Tensor, dim: int) -> Tensor:
    return flip(_logcumsumexp(flip(t, dim), dim=dim), dim)


def _logcumsumexp_grad(grad, x, result, *, dim):
    """PyTorch's stable form of ``exp(x) * reversed_cumsum(grad * exp(-result))``: the
    positive and negative parts of ``grad`` summed in log space (tensors, or a plain rule's
    arrays: functions, not methods)."""
    values = values_of(grad)
    if values.ndim == 0 or values.size == 0:
        return grad
    lowest = float(np.finfo(values.dtype).min)
    log_abs = log(abs(grad))
    positive = where(grad > 0, log_abs, lowest)
    negative = where(grad < 0, log_abs, lowest)
    return exp(_reversed_logcumsumexp(positive - result, dim) + x) - exp(
        _reversed_logcumsumexp(negative - result, dim) + x
    )


def _logcumsumexp_jvp(t, x, result, *, dim):
    """``cumsum(exp(x) t) / cumsum(exp(x))`` shifted by the maximum along ``dim`` (a
    constant: the ratio does not depend on it), as PyTorch's logcumsumexp_jvp."""
    if x._data.ndim == 0:
        return t
    if not x._data.size:
        return t
    e = (x - _wrap(np.amax(x._data, axis=dim, keepdims=True))).exp()
    return _cumsum(e * t, dim=dim) / _cumsum(e, dim=dim)


_logcumsumexp = primitive(
    "logcumsumexp",
    _logcumsumexp_forward,
    _logcumsumexp_grad,
    kind=Generic(jvp=_logcumsumexp_jvp),
    saves=("self", "dim", "result"),
    node_name="LogcumsumexpBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


@public()
def logcumsumexp(input: Tensor, dim: int, *, out=None) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, without overflow (floating inputs)."""
    _require_tensor(input, "logcumsumexp")
    d = _one_dim(dim, input._data.ndim, "logcumsumexp")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"logcumsumexp: not implemented for {input.dtype}; convert with .float() first"
        )
    if out is not None:
        return with_out("logcumsumexp", lambda: logcumsumexp(input, d), (input,), out)
    return _logcumsumexp(input, dim=d)


__all__ = exports(globals())
