"""The exp-normalising reductions: logsumexp, softmax, log_softmax.

Forwards subtract the maximum first so large inputs neither overflow nor lose precision.
"""

from __future__ import annotations

import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _softmax_rows, _sums
from ._optable import Generic
from ._out import accepts_out
from ._primitive import primitive
from ._reduce import (
    _axes,
    _np_axis,
    _one_dim,
    _require_tensor,
    _unsqueezed,
    check_keepdim,
)
from ._sums import ones
from ._tangents import tangent_sum
from .elementwise import _same_arrays, exp
from .reduction import sum as _sum

# NumPy reduces a C-contiguous matrix along its rows one short row at a time (~50-80 ns a
# row): (1000, 10) float32's row maxima take 50 us, its row sums 16 us; PyTorch's whole
# softmax there takes ~10 us. Rows up to this wide are reduced otherwise (``_narrow_rows``).
NARROW_ROW = 32


def _narrow_rows(x, axis) -> bool:
    """Whether ``x`` is a C-contiguous float32/float64 matrix of many rows of at most
    ``NARROW_ROW`` reduced along its rows (``axis`` 1 or -1, or that one axis as a tuple)."""
    # (the shape first: a small array is refused by its first test)
    if type(x) is not np.ndarray or x.ndim != 2 or x.shape[0] < NARROW_ROW:
        return False
    if type(axis) is tuple:
        axis = axis[0] if len(axis) == 1 else None
    return (
        axis in (1, -1)
        and 2 <= x.shape[1] <= NARROW_ROW
        and x.dtype.char in "fd"
        and x.flags.c_contiguous
    )


def _row_max(x, axis):
    """``np.amax(x, axis, keepdims=True)``; narrow rows from a transposed copy, reduced down
    its columns (NumPy's fast order), the same values: (1000, 10) float32 50 -> 5 us."""
    if _narrow_rows(x, axis):
        return np.maximum.reduce(np.ascontiguousarray(x.T), axis=0)[:, None]
    # (the ufunc's reduce: np.amax's own call, without its ~2 us of argument handling)
    return np.maximum.reduce(x, axis, None, None, True)


def _row_sum(x, axis):
    """``np.sum(x, axis, keepdims=True)``; narrow rows by a product with a vector of ones
    (BLAS's sums, another order of the same few terms): (1000, 10) float32 16 -> 2.4 us."""
    if _narrow_rows(x, axis):
        return np.dot(x, ones(x.shape[1], x.dtype))[:, None]  # the cached vector of ones
    return np.add.reduce(x, axis, None, None, True)  # (np.sum's own call, as above)


def _shifted(x, axis, finite_shift=False):
    """``(x - m, m)`` with ``m`` the maximum over ``axis`` (kept).

    ``finite_shift``: an infinite maximum shifts by 0 instead, so logsumexp of all -inf is
    -inf and of +inf is +inf (softmax, like PyTorch's, gives NaN there).
    """
    if x.size == 0:
        return x, np.zeros((1,) * x.ndim, dtype=x.dtype)
    m = _row_max(x, axis)
    if finite_shift:
        m = np.where(np.isfinite(m), m, 0).astype(x.dtype, copy=False)
    return x - m, m


def _logsumexp_forward(x, *, dim, keepdim):
    axis = _np_axis(x, dim)
    shifted, m = _shifted(x, axis, finite_shift=True)
    out = np.log(_row_sum(np.exp(shifted), axis)) + m
    if not keepdim:
        out = out.reshape(()) if axis is None else np.squeeze(out, axis)
    return out


def _logsumexp_grad(grad, x, result, *, dim, keepdim):
    shape = tuple(x.shape)
    return _unsqueezed(grad, shape, dim, keepdim) * exp(
        x - _unsqueezed(result, shape, dim, keepdim)
    )


def _logsumexp_jvp(tx, x, result, *, dim, keepdim):
    """``sum(exp(x) t) / sum(exp(x))`` as PyTorch's logsumexp_jvp: shifted by the maximum
    (a constant, as the ratio does not depend on it), so an infinite maximum gives NaN and
    an empty reduction 0 / 0."""
    xd = x._data
    if xd.size:
        e = (x - _wrap(np.amax(xd, axis=_np_axis(xd, dim), keepdims=True))).exp()
    else:
        e = x.exp()
    return (e * tx).sum(dim, keepdim=keepdim) / e.sum(dim, keepdim=keepdim)


_logsumexp = primitive(
    "logsumexp",
    _logsumexp_forward,
    _logsumexp_grad,
    kind=Generic(jvp=_logsumexp_jvp),
    saves=("self", "result", "dim", "keepdim"),
    node_name="LogsumexpBackward0",
    dtype_rule="float",
    plain_rules=True,
)


@public()
@accepts_out
def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input), dim))`` computed stably; integers give the default float dtype."""
    check_keepdim(keepdim, "logsumexp")
    _require_tensor(input, "logsumexp")
    return _logsumexp(input, dim=_axes(dim, input._data.ndim, "logsumexp"), keepdim=keepdim)


def _row_major(x):
    """``x`` as PyTorch's softmax kernels read it (``input.contiguous()``), so that the
    result is row-major too, whatever the input's layout."""
    return x if x.flags.c_contiguous else np.ascontiguousarray(x)


def _softmax_forward(x, *, dim):
    if x.ndim == 0:
        return np.ones_like(x)
    x = _row_major(x)
    dim %= x.ndim  # (the dim as given: PyTorch's node shows it so)
    if dim == x.ndim - 1 and _softmax_rows.usable(x):  # one compiled call (float32 rows)
        return _softmax_rows.softmax(x)
    if not x.size:  # (no maximum to shift by)
        e = np.exp(x)
        return np.divide(e, _row_sum(e, dim))
    e = np.subtract(x, _row_max(x, dim))  # a fresh array: the passes below run in it
    np.exp(e, out=e)
    return np.divide(e, _row_sum(e, dim), out=e)


def _log_softmax_forward(x, *, dim):
    if x.ndim == 0:
        return np.zeros_like(x)
    x = _row_major(x)
    dim %= x.ndim
    if dim == x.ndim - 1 and _softmax_rows.usable(x):  # one compiled call (float32 rows)
        return _softmax_rows.log_softmax(x)
    if not x.size:  # (no maximum to shift by)
        return np.subtract(x, np.log(_row_sum(np.exp(x), dim)))
    shifted = np.subtract(x, _row_max(x, dim))  # a fresh array, as above
    return np.subtract(shifted, np.log(_row_sum(np.exp(shifted), dim)), out=shifted)


def _row_total(t, dim):
    """``sum(t, dim, keepdim=True)`` as the sum op computes it on arrays."""
    return _sums.add_reduce(t, (dim % t.ndim,), True) if t.ndim else t


def _softmax_backward_data_forward(grad, output, *, dim):
    """PyTorch's ``_softmax_backward_data``: ``output (grad - sum(grad output, dim))``, in
    one buffer where the two share a shape and dtype."""
    if output.ndim:
        dim %= output.ndim
    if dim == output.ndim - 1 and _softmax_rows.usable(output):  # compiled float32 rows
        result = _softmax_rows.softmax_backward(grad, output)
        if result is not None:
            return result
    if not _same_arrays(grad, output):
        return output * (grad - _row_total(grad * output, dim))
    t = np.multiply(grad, output)
    total = _row_total(t, dim)
    np.subtract(grad, total, out=t)
    t *= output
    return t


def _softmax_double_backward(gg, grad, output, dim):
    """PyTorch's softmax_double_backward: the VJP of ``_softmax_backward_data`` in ``output``."""
    return (
        grad * gg
        - _sum(output * grad, dim, keepdim=True) * gg
        - grad * _sum(output * gg, dim, keepdim=True)
    )


def _softmax_backward_data_jvp(tg, to, grad, output, *, result, dim):
    """The tangent of ``output (grad - sum(grad output))`` in both operands."""
    by_output = None
    if to is not None:
        centred = grad - (grad * output).sum(dim, keepdim=True)
        by_output = to * centred - output * (grad * to).sum(dim, keepdim=True)
    by_grad = None if tg is None else _softmax_backward_data(tg, output, dim=dim)
    return tangent_sum(by_grad, by_output)


# PyTorch's _softmax_backward_data (SoftmaxBackwardDataBackward0): softmax's VJP as an op of
# the gradient and the output, so a second derivative records PyTorch's nodes.
_softmax_backward_data = primitive(
    "_softmax_backward_data",
    _softmax_backward_data_forward,
    (
        lambda gg, grad, output, result, *, dim: _softmax_backward_data(gg, output, dim=dim),
        lambda gg, grad, output, result, *, dim: _softmax_double_backward(gg, grad, output, dim),
    ),
    kind=Generic(jvp=_softmax_backward_data_jvp),
    inputs=("grad_output", "output"),
    saves=("grad_output", "output", "dim"),
    node_name="SoftmaxBackwardDataBackward0",
    dtype_rule="promote",
    plain_rules=True,
)


def _log_softmax_backward_data_forward(grad, output, *, dim):
    """PyTorch's ``_log_softmax_backward_data``: ``grad - exp(output) sum(grad, dim)``, in one
    buffer where the two share a shape and dtype."""
    if output.ndim:
        dim %= output.ndim
    if dim == output.ndim - 1 and _softmax_rows.usable(output):  # compiled float32 rows
        result = _softmax_rows.log_softmax_backward(grad, output)
        if result is not None:
            return result
    total = _row_total(grad, dim)
    if not _same_arrays(grad, output):
        return grad - np.exp(output) * total
    t = np.exp(output)
    t *= total
    return np.subtract(grad, t, out=t)


def _log_softmax_backward_data_jvp(tg, to, grad, output, *, result, dim):
    """The tangent of ``grad - exp(output) sum(grad)`` in both operands."""
    return tangent_sum(
        None if tg is None else _log_softmax_backward_data(tg, output, dim=dim),
        None if to is None else -(output.exp() * to) * grad.sum(dim, keepdim=True),
    )


# PyTorch's _log_softmax_backward_data (LogSoftmaxBackwardDataBackward0), with its formulas.
_log_softmax_backward_data = primitive(
    "_log_softmax_backward_data",
    _log_softmax_backward_data_forward,
    (
        lambda gg, grad, output, result, *, dim: gg - _sum(gg * exp(output), dim, keepdim=True),
        lambda gg, grad, output, result, *, dim: -_sum(grad, dim, keepdim=True) * exp(output) * gg,
    ),
    kind=Generic(jvp=_log_softmax_backward_data_jvp),
    inputs=("grad_output", "output"),
    saves=("grad_output", "output", "dim"),
    node_name="LogSoftmaxBackwardDataBackward0",
    dtype_rule="promote",
    plain_rules=True,
)


_softmax = primitive(
    "softmax",
    _softmax_forward,
    lambda grad, x, result, *, dim: _softmax_backward_data(grad, result, dim=dim),
    kind=Generic(
        jvp=lambda tx, x, result, *, dim: result * (tx - (result * tx).sum(dim, keepdim=True))
    ),
    saves=("result", "dim"),
    node_name="SoftmaxBackward0",
    dtype_rule="keep",
    plain_rules=True,
)
_log_softmax = primitive(
    "log_softmax",
    _log_softmax_forward,
    lambda grad, x, result, *, dim: _log_softmax_backward_data(grad, result, dim=dim),
    kind=Generic(jvp=lambda tx, x, result, *, dim: tx - (result.exp() * tx).sum(dim, keepdim=True)),
    saves=("result", "dim"),
    node_name="LogSoftmaxBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


def _normalising(op, prim, input, dim, dtype):
    if type(input) is Tensor and type(dim) is int and dtype is None:  # the common call
        x = input._data
        if -x.ndim <= dim < x.ndim and x.dtype.kind == "f":  # (what the checks below pass)
            return prim(input, dim=dim)
    _require_tensor(input, op)
    _one_dim(dim, input._data.ndim, op)  # (checked; passed as given: PyTorch's node shows it)
    d = operator.index(dim)
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"{op}: not implemented for {input.dtype} tensors (shape {list(input.shape)}); "
            "convert to a floating dtype first or pass dtype=torch.float32"
        )
    return prim(input, dim=d)


@public()
@accepts_out(same_dtype=True)
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x), dim)`` computed stably; ``dtype`` casts the input first."""
    return _normalising("softmax", _softmax, input, dim, dtype)


@public()
@accepts_out(same_dtype=True)
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``x - logsumexp(x, dim, keepdim=True)`` computed stably; ``dtype`` casts the input first."""
    return _normalising("log_softmax", _log_softmax, input, dim, dtype)


__all__ = exports(globals())
