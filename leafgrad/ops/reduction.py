"""Reductions over ``dim`` (an int, a tuple or None for all) with ``keepdim``.

Here: sum, mean, prod, cumsum, any, all. Their relatives live in
``extrema.py`` (amax/amin, max/min, argmax/argmin), ``softmax.py`` (logsumexp, softmax,
log_softmax) and ``statistics.py`` (var, std, norm).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._engine import grad_mode
from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from . import _running, _sums
from ._optable import Generic, Linear, NonDifferentiable
from ._out import accepts_out
from ._plain import operand, values_of
from ._primitive import primitive
from ._reduce import (
    _as_np,
    _axes,
    _dims,
    _int_to_long,
    _np_axis,
    _one_dim,
    _require_tensor,
    _restore,
    _unsqueezed,
    check_keepdim,
)
from .arithmetic import div_scalar
from .joining import _cat
from .reorder import flip
from .slicing import narrow

# ----- sum and mean -----


def _sum_forward(x, *, dim, keepdim, dtype=None):
    axis = None if dim is None or x.ndim == 0 else dim
    if dtype is None and x.dtype.kind in "bui":
        dtype = np.int64  # PyTorch sums bools and integers in int64 unless told otherwise
    if type(x) is np.ndarray:
        if dtype is None:  # leading or trailing axes by BLAS, else NumPy's reduction
            return _sums.add_reduce(x, axis, keepdim)
        # What np.sum calls for an ndarray, without its ~1.5 us of argument handling.
        return np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdim)
    return np.sum(x, axis=axis, keepdims=keepdim, dtype=dtype)


def _sum_grad(grad, x, result, *, dim, keepdim, dtype=None):
    return _restore(grad, tuple(x.shape), dim, keepdim)


_sum_all = primitive(
    "sum",
    _sum_forward,
    _sum_grad,
    kind=Linear(),
    node_name="SumBackward0",
    dtype_rule="keep",
    plain_rules=True,
    metadata=("self_sym_sizes",),
)
_sum_dim = primitive(
    "sum",
    _sum_forward,
    _sum_grad,
    kind=Linear(),
    overload="dim_IntList",
    saves=("dim", "keepdim"),
    node_name="SumBackward1",
    dtype_rule="keep",
    plain_rules=True,
    metadata=("self_sym_sizes",),
)


@public()
@accepts_out
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over ``dim`` (all elements when None); integers sum in int64 like PyTorch."""
    check_keepdim(keepdim, "sum")
    np_dtype = None if dtype is None else _as_np(dtype)
    if dim is None and not keepdim:
        return _sum_all(input, dim=None, keepdim=False, dtype=np_dtype)
    dims = _axes(dim, input.ndim, "sum")  # .ndim: an array too, in a plain rule
    return _sum_dim(input, dim=dims, keepdim=keepdim, dtype=np_dtype)


def _mean_forward(x, *, dim, keepdim, dtype=None):
    if x.dtype.kind != "f" and dtype is None:
        raise RuntimeError(
            f"mean: input dtype should be floating point, got {x.dtype}; convert with .float() "
            "or pass dtype="
        )
    if x.size == 0:
        # NumPy warns "Mean of empty slice" here; PyTorch returns nan silently.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.mean(x, axis=_np_axis(x, dim), keepdims=keepdim, dtype=dtype)
    if type(x) is np.ndarray:
        return _mean_of_array(x, None if dim is None or x.ndim == 0 else dim, keepdim, dtype)
    return np.mean(x, axis=_np_axis(x, dim), keepdims=keepdim, dtype=dtype)


def _mean_of_array(x: np.ndarray, axis, keepdims: bool, dtype):
    """``np.mean(x, axis, dtype, keepdims=...)`` for a non-empty ndarray: the same ufunc calls
    in the same dtypes (a float16 input summed in float32, the count an ``intp`` as NumPy's,
    so the division runs in float64 and is cast back), without np.mean's ~3 us of Python;
    bit for bit NumPy's except that float32/float64 sums over leading or trailing axes are
    BLAS's, as the sum op's (``_sums``). ``axis``: None, an int or a tuple of ints."""
    if axis is None:
        count = x.size
    else:
        count = 1
        for a in (axis,) if type(axis) is int else axis:
            count *= x.shape[a]
    count = np.intp(count)
    half = False
    if dtype is None:
        kind = x.dtype.kind
        if kind in "bui":
            dtype = np.float64
        elif x.dtype == np.float16:
            dtype, half = np.float32, True
    if dtype is None:
        total = _sums.add_reduce(x, axis, keepdims)
    else:
        total = np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)
    if type(total) is np.ndarray:
        np.true_divide(total, count, out=total, casting="unsafe")
        return total.astype(np.float16) if half else total
    # A NumPy scalar (everything reduced without keepdims): divided as NumPy scalars.
    return np.float16(total / count) if half else total.dtype.type(total / count)


def _mean_grad(grad, x, result, *, dim, keepdim, dtype=None):
    shape = tuple(x.shape)  # a tensor's, or an array's in a plain rule
    count = math.prod(shape) if dim is None or not shape else math.prod(map(shape.__getitem__, dim))
    if dim is None and type(grad) is np.ndarray:  # a plain rule: what the two ops compute
        out = np.empty(shape, grad.dtype)  # (np.broadcast_to alone costs ~2 us)
        return np.true_divide(grad, count, out=out)
    # As PyTorch's: expanded, then divided, which gives a fresh, contiguous gradient.
    return div_scalar(_restore(grad, shape, dim, keepdim), other=count)  # div.Scalar


_mean_all = primitive(
    "mean",
    _mean_forward,
    _mean_grad,
    kind=Linear(),
    node_name="MeanBackward0",
    dtype_rule="keep",
    plain_rules=True,
    metadata=("self_sym_numel", "self_sym_sizes"),
)
_mean_dim = primitive(
    "mean",
    _mean_forward,
    _mean_grad,
    kind=Linear(),
    overload="dim",
    saves=("dim", "keepdim"),
    node_name="MeanBackward1",
    dtype_rule="keep",
    plain_rules=True,
    metadata=("self_sym_numel", "self_sym_sizes"),
)


@public()
@accepts_out
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Arithmetic mean over ``dim`` (all elements when None); floating inputs only."""
    check_keepdim(keepdim, "mean")
    np_dtype = None if dtype is None else _as_np(dtype)
    if dim is None and not keepdim:
        return _mean_all(input, dim=None, keepdim=False, dtype=np_dtype)
    dims = _axes(dim, input.ndim, "mean")  # .ndim: an array too, in a plain rule
    return _mean_dim(input, dim=dims, keepdim=keepdim, dtype=np_dtype)


# ----- prod -----


def _prod_forward(x, *, dim, keepdim, dtype=None):
    return np.prod(x, axis=_np_axis(x, dim), keepdims=keepdim, dtype=_int_to_long(x, dtype))


# prod's rules run on tensors and on a plain rule's arrays alike (shapes through .shape,
# values through values_of, the ops themselves).
def _prod_grad(grad, x, result, *, dim, keepdim, dtype=None):
    """PyTorch's ``prod_backward``: ``grad * result / x`` without zeros; with any zero (in
    the whole input, not per slice) every slice's products of the others, from two
    exclusive running products; a full product with two or more zeros has a zero gradient
    unless a graph of it is wanted."""
    shape = tuple(x.shape)
    if x.ndim == 0:
        return grad
    g = _unsqueezed(grad, shape, dim, keepdim)  # broadcast by the products, not expanded
    zeros = np.count_nonzero(values_of(x) == 0)
    if zeros == 0:
        return g * (_unsqueezed(result, shape, dim, keepdim) / x)
    if dim is None:
        if zeros > 1 and not grad_mode._state.enabled:
            return operand(np.zeros(shape, values_of(x).dtype), x)
        return g * _products_of_others(x.reshape(-1), 0).reshape(shape)
    return g * _products_of_others(x, dim[0])


def _products_of_others(x, d: int):
    """``out[j] = prod_{k < j} x[k] * prod_{k > j} x[k]`` along ``d`` (PyTorch's
    ``prod_safe_zeros_backward``): a running product of ``x`` shifted by one, times the
    same from the other end; exact with zeros, and differentiable."""
    # why: cumulative imports this module (its _cumsum)
    from .cumulative import _cumprod

    n, dtype = x.shape[d], values_of(x).dtype
    ones = operand(np.ones(x.shape[:d] + (1,) + x.shape[d + 1 :], dtype), x)
    before = _cumprod(_cat(ones, narrow(x, d, 0, n - 1), dim=d, dtype=dtype), dim=d)
    reversed_after = _cat(ones, flip(narrow(x, d, 1, n - 1), d), dim=d, dtype=dtype)
    return before * flip(_cumprod(reversed_after, dim=d), d)


def _prod_jvp(tx, x, result, *, dim, keepdim, dtype=None):
    # As PyTorch: the derivative the VJP builds (exact with zeros) dotted with the tangent.
    ones = _wrap(np.ones_like(result._data))
    return (_prod_grad(ones, x, result, dim=dim, keepdim=keepdim) * tx).sum(dim, keepdim=keepdim)


_prod_all = primitive(
    "prod",
    _prod_forward,
    _prod_grad,
    kind=Generic(jvp=_prod_jvp),
    saves=("self", "result"),
    node_name="ProdBackward0",
    dtype_rule="keep",
    plain_rules=True,
)
_prod_dim = primitive(
    "prod",
    _prod_forward,
    _prod_grad,
    kind=Generic(jvp=_prod_jvp),
    overload="dim_int",
    saves=("self", "result", "keepdim"),
    metadata=(("dim", lambda values, params: params["dim"][0]),),  # one dim, an int
    node_name="ProdBackward1",
    dtype_rule="keep",
    plain_rules=True,
)


@public()
@accepts_out
def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product over one ``dim`` (all elements when None); bools and integers give int64."""
    check_keepdim(keepdim, "prod")
    _require_tensor(input, "prod")
    np_dtype = None if dtype is None else _as_np(dtype)
    if dim is None:
        return _prod_all(input, dim=None, keepdim=False, dtype=np_dtype)
    d = _one_dim(dim, input._data.ndim, "prod")
    return _prod_dim(input, dim=(d,), keepdim=keepdim, dtype=np_dtype)


# ----- cumsum -----


def _cumsum_forward(x, *, dim, reverse=False, dtype=None):
    dtype = _int_to_long(x, dtype)
    if x.ndim == 0:
        return x.astype(dtype) if dtype is not None else x.copy()
    return _running.running(False, x, dim, dtype, reverse)


def _cumsum_grad(grad, x, result, *, dim, reverse=False, dtype=None):
    # Each input feeds every later running sum: the gradient is the reversed running sum,
    # one pass on a plain rule's arrays (the same sums in the same order).
    if type(grad) is np.ndarray or reverse:
        return _cumsum(grad, dim=dim, reverse=not reverse)
    # On tensors PyTorch's cumsum_backward: grad itself where nothing runs, else
    # reversed_cumsum, a flip, a running sum and a flip back.
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    return flip(_cumsum(flip(grad, dim), dim=dim), dim)


_cumsum = primitive(
    "cumsum",
    _cumsum_forward,
    _cumsum_grad,
    kind=Linear(),
    saves=("dim",),
    node_name="CumsumBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


@public(inplace=True)
@accepts_out
def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Running sum along ``dim``; bools and integers accumulate in int64."""
    _require_tensor(input, "cumsum")
    d = _one_dim(dim, input._data.ndim, "cumsum")
    if dtype is not None:
        return _cumsum(input, dim=d, dtype=_as_np(dtype))
    return _cumsum(input, dim=d)


# ----- any / all -----


def _logical_reduction(fn):
    def forward(x, *, dim, keepdim):
        if dim == ():  # PyTorch reduces over no dimension: an elementwise truth test
            out = x != 0
        else:
            out = fn(x, axis=_np_axis(x, dim), keepdims=keepdim)
        return out.astype(np.uint8) if x.dtype == np.uint8 else out

    return forward


_any = primitive("any", _logical_reduction(np.any), kind=NonDifferentiable(), dtype_rule="keep")
_all = primitive("all", _logical_reduction(np.all), kind=NonDifferentiable(), dtype_rule="keep")


def _logical_dims(dim, ndim, op):
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        return ()
    return _dims(dim, ndim, op)


@public()
@accepts_out(same_dtype=True)
def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Whether any element over ``dim`` is nonzero (bool; uint8 stays uint8)."""
    check_keepdim(keepdim, "any")
    _require_tensor(input, "any")
    return _any(input, dim=_logical_dims(dim, input._data.ndim, "any"), keepdim=keepdim)


@public()
@accepts_out(same_dtype=True)
def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Whether every element over ``dim`` is nonzero (bool; uint8 stays uint8)."""
    check_keepdim(keepdim, "all")
    _require_tensor(input, "all")
    return _all(input, dim=_logical_dims(dim, input._data.ndim, "all"), keepdim=keepdim)


__all__ = exports(globals())
