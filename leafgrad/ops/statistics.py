"""Moments and norms: var, std (with Bessel's ``correction``) and the vector norm."""

from __future__ import annotations

import math

import numpy as np

from .._dtype import promote_types
from .._exposure import exports, public
from .._tensor import Tensor, _wrap, _zeros_like
from .._warn import warn_at_user
from . import _sums
from ._optable import Generic
from ._out import accepts_out, check_out, write_out
from ._plain import operand, values_of
from ._primitive import primitive
from ._reduce import (
    _axes,
    _dims,
    _np_axis,
    _require_tensor,
    _unsqueezed,
    check_keepdim,
)
from .arithmetic import abs, mul_scalar, sgn
from .indexing import _masked_fill_scalar
from .norms import matrix_norm
from .piecewise import where
from .power import power_in_place, power_of
from .reduction import mean


def _count(shape, dims) -> int:
    """How many elements a reduction over ``dims`` combines (1 for a 0-d tensor)."""
    n = 1
    for d in dims if shape else ():
        n *= shape[d]
    return n


# ----- var / std -----


def _dof_correction(correction) -> int | float:
    """The correction a reduction divides by: None (PyTorch's node shows it for ``x.var()``,
    no argument given) is Bessel's, 1."""
    return 1 if correction is None else correction


def _var_forward(x, *, dim, correction, keepdim):
    if dim is None or x.ndim == 0:  # (``_np_axis``, inline: a hot forward)
        axis, n = None, x.size
    else:
        axis, n = dim, _count(x.shape, dim)
    centred = x - _sums.add_reduce(x, axis, True) / n
    # PyTorch divides by max(0, n - correction): zero degrees of freedom give inf or nan.
    dof = n - (1 if correction is None else correction)  # (``_dof_correction``)
    return _sums.add_reduce(centred * centred, axis, keepdim) / max(0, dof)


def _std_forward(x, *, dim, correction, keepdim):
    return np.sqrt(_var_forward(x, dim=dim, correction=correction, keepdim=keepdim))


def _var_backward(grad, x, dim, correction, keepdim):
    """d var / dx = 2 (x - mean) / (n - correction), as PyTorch's var_backward."""
    correction = _dof_correction(correction)
    shape = tuple(x.shape)
    if dim is None or not shape:
        dof = math.prod(shape) - correction
        if dof <= 0:
            # 2 / 0 is inf; times (x - mean) it is nan where x equals the mean.
            return grad * where(x == mean(x), math.nan, math.inf)
        return mul_scalar(grad, other=2.0 / dof) * (x - mean(x))  # mul.Scalar, as there
    dof = _count(shape, dim) - correction
    scale = 2.0 / dof if dof != 0 else math.inf
    grad = _unsqueezed(grad, shape, dim, keepdim)
    return mul_scalar(grad, other=scale) * (x - mean(x, dim, keepdim=True))


def _std_grad(grad, x, result, *, dim, correction, keepdim):
    """PyTorch's std_backward: ``(grad / (result * 2)).masked_fill_(result == 0, 0)``, then
    var_backward."""
    var_grad = _masked_fill_scalar(grad / mul_scalar(result, other=2), result == 0, fill=0)
    return _var_backward(var_grad, x, dim, correction, keepdim)


def _var_jvp(tx, x, result, *, dim, correction, keepdim):
    """PyTorch's var_jvp: the VJP rule applied to the tangent, summed over ``dim`` (so zero
    degrees of freedom give infinities that add up to inf or nan)."""
    return _var_backward(tx, x, dim, correction, True).sum(dim, keepdim=keepdim)


def _std_jvp(tx, x, result, *, dim, correction, keepdim):
    # d sqrt(v) = dv / (2 sqrt(v)), and 0 where the standard deviation is 0 (as PyTorch).
    var_t = _var_jvp(tx, x, result, dim=dim, correction=correction, keepdim=keepdim)
    return where(result == 0, 0.0, var_t / (result * 2))


_var = primitive(
    "var",
    _var_forward,
    (
        lambda grad, x, result, *, dim, correction, keepdim: _var_backward(
            grad, x, dim, correction, keepdim
        ),
    ),
    kind=Generic(jvp=_var_jvp),
    overload="correction",
    saves=("self", "correction", "dim", "keepdim"),
    node_name="VarBackward0",
    dtype_rule="keep",
    plain_rules=True,
)
_std = primitive(
    "std",
    _std_forward,
    _std_grad,
    kind=Generic(jvp=_std_jvp),
    overload="correction",
    saves=("self", "result", "correction", "dim", "keepdim"),
    node_name="StdBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


def _moment(op, prim, input, dim, unbiased, keepdim, correction):
    _require_tensor(input, op)
    if isinstance(dim, bool):  # the legacy var(input, unbiased) form
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either unbiased= or correction=, not both")
    # The correction as PyTorch's node shows it: as given, 0 or 1 from ``unbiased`` or with a
    # dim, None with no argument at all (``x.var()``: computed as 1).
    if correction is None and (unbiased is not None or dim is not None):
        correction = 0 if unbiased is False else 1
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            f"{op}: only floating point tensors are supported, got {input.dtype} (shape "
            f"{list(input.shape)}); convert with .float() or .double() first"
        )
    shape = input._data.shape
    ndim = len(shape)
    if type(dim) is int and 0 <= dim < ndim:
        dims, n = (dim,), shape[dim]  # the common ``x.std(1)``, without the general checks
    else:
        dims = _dims(dim, ndim, op)
        if dims is None and keepdim:
            dims = tuple(range(ndim))
        n = input._data.size if dims is None else _count(shape, dims)
    if n - _dof_correction(correction) <= 0:
        warn_at_user(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
        )
    return prim(input, dim=dims, correction=correction, keepdim=keepdim)


@public()
@accepts_out
def var(
    input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None
) -> Tensor:
    """Variance over ``dim`` dividing by ``N - correction`` (default 1, Bessel's correction).

    Also accepts PyTorch's legacy forms ``var(x, unbiased)`` and ``var(x, dim, unbiased,
    keepdim)``. Warns (UserWarning) when ``N - correction <= 0``.
    """
    check_keepdim(keepdim, "var")
    return _moment("var", _var, input, dim, unbiased, keepdim, correction)


@public()
@accepts_out
def std(
    input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None
) -> Tensor:
    """Standard deviation: ``sqrt(var(...))`` with the same arguments; its gradient is 0
    where the result is 0."""
    check_keepdim(keepdim, "std")
    return _moment("std", _std, input, dim, unbiased, keepdim, correction)


# ----- norm -----


def _norm_forward(x, *, ord, dim, keepdim):
    axis = _np_axis(x, dim)
    if ord == 2:
        return _two_norm(x, axis, keepdim)
    a = np.abs(x)
    if ord == 1:
        return _sums.add_reduce(a, axis, keepdim)
    if ord == math.inf:
        return np.amax(a, axis=axis, keepdims=keepdim)
    if ord == -math.inf:
        return np.amin(a, axis=axis, keepdims=keepdim)
    if ord == 0:
        return np.sum(a != 0, axis=axis, keepdims=keepdim, dtype=x.dtype)
    return np.sum(a**ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)


def _two_norm(x, axis, keepdim):
    """The 2-norm. Of a whole C-contiguous float32/float64 array of 1024 elements or more, as
    ``sqrt(dot(x, x))``: BLAS's dot product, faster than NumPy's square-and-sum passes
    ((2e4, 64) float32: 1.3 -> 0.19 ms; PyTorch 0.18) and more accurate than PyTorch's float32 norm
    (sums of squares of 4e6 float32 values off by 5e-7 relative, PyTorch's 9e-6; NumPy's
    pairwise sum 8e-9)."""
    if (
        type(x) is np.ndarray
        and x.dtype.char in "fd"
        and x.size >= 1024
        and x.flags.c_contiguous
        and (axis is None or len(axis) == x.ndim)  # every axis (distinct, as _axes makes them)
    ):
        flat = x.reshape(-1)
        total = np.sqrt(np.dot(flat, flat))
        return np.reshape(total, (1,) * x.ndim) if keepdim else total
    return np.sqrt(_sums.add_reduce(np.multiply(x, x), axis, keepdim))


def _norm_grad(grad, x, result, *, ord, dim, keepdim):
    """PyTorch's linalg_vector_norm_backward; 0 wherever the norm is 0 (a subgradient)."""
    shape = tuple(x.shape)  # (a norm of every element, a 0-d one: broadcast as they are)
    g, norm = _unsqueezed(grad, shape, dim, keepdim), _unsqueezed(result, shape, dim, keepdim)
    if ord == 1:
        return sgn(x) * g
    if ord == 2:
        return g * _masked_fill_scalar(x / norm, norm == 0, fill=0)
    if math.isinf(ord):
        a = np.abs(values_of(x))
        picked = (a == values_of(norm)) | np.isnan(a)
        count = picked.sum(axis=_np_axis(a, dim), keepdims=True)
        return sgn(x) * ((g / operand(count, g)) * operand(picked, g))
    # PyTorch's operations in its order (GCC makes an operator's right operand first): a
    # second backward meets their nodes, and sums into them, in that order.
    if ord < 1:
        powered = _masked_fill_scalar(power_in_place(abs(x), ord - 1), x == 0, fill=0)
        scaled = sgn(x) * powered
        norm_power = power_of(norm, 1 - ord)
        return scaled * g * norm_power
    if ord < 2:
        powered = power_in_place(abs(x), ord - 1)
        scaled = sgn(x) * powered
    else:
        scaled = x * power_in_place(abs(x), ord - 2)
    scale = _masked_fill_scalar(g / power_of(norm, ord - 1), norm == 0, fill=0)
    return scaled * scale


def _norm_vjp_all(grad, x, *, result, needs, ord, dim, keepdim):
    # The 0-"norm" counts nonzeros: like PyTorch it has no gradient at all (not even zeros),
    # so x.grad stays None and autograd.grad reports x as unused.
    if ord == 0:
        return [None]
    return [_norm_grad(grad, x, result, ord=ord, dim=dim, keepdim=keepdim)]


def _norm_jvp(tx, x, result, *, ord, dim, keepdim):
    """PyTorch's linalg_vector_norm_jvp: ``sum(d norm / dx * t)`` over ``dim``, 0 where the
    norm is 0 (orders 1 < p, and 2), and zeros for the 0-"norm" (a count)."""
    if ord == 0:
        return _zeros_like(result)

    def total(t):
        return t.sum(dim, keepdim=keepdim)

    if ord == 1:
        return total(x.sign() * tx)
    if ord == 2:
        return where(result == 0, 0.0, total(x * tx) / result)
    if math.isinf(ord):
        xd, nd = x._data, result._data
        if not keepdim and xd.ndim and dim is not None:
            nd = np.expand_dims(nd, dim)
        picked = (np.abs(xd) == nd) | (np.isnan(xd) & np.isnan(nd))
        count = picked.sum(axis=_np_axis(xd, dim), keepdims=True)
        return total(x.sign() * tx * _wrap(picked.astype(xd.dtype)) / _wrap(count))
    if ord < 1:
        powered = where(x == 0, 0.0, x.abs() ** (ord - 1))
        return total(powered * x.sign() * tx) * result ** (1 - ord)
    if ord < 2:
        out = total(x.abs() ** (ord - 1) * x.sign() * tx) / result ** (ord - 1)
    else:
        out = total(x.abs() ** (ord - 2) * x * tx) / result ** (ord - 1)
    return where(result == 0, 0.0, out)


def _norm_op(node_name: str, overload: str = ""):
    """The vector norm recorded as ``node_name`` (one forward and norm_backward for both)."""
    return primitive(
        "norm",
        _norm_forward,
        vjp_all=_norm_vjp_all,
        kind=Generic(jvp=_norm_jvp),
        overload=overload,
        saves=("self", "result", "ord", "dim", "keepdim"),
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )


_norm = _norm_op("LinalgVectorNormBackward0")
# ATen's norm.ScalarOpt_dim (NormBackward1, the same norm_backward): what PyTorch's C++
# composites call (pairwise_distance), where Python's torch.norm reaches linalg_vector_norm.
norm_scalaropt_dim = _norm_op("NormBackward1", "ScalarOpt_dim")


def _norm_order(p, dim, ndim) -> float:
    if p is None or p == "fro":
        if isinstance(dim, (list, tuple)) and len(dim) > 2:
            raise RuntimeError(
                f"norm: the Frobenius norm takes at most 2 dims, got dim={list(dim)}; for a "
                "vector norm over more dims pass p=2"
            )
        return 2.0
    if isinstance(p, str):
        # PyTorch raises RuntimeError here, not TypeError.
        raise RuntimeError(f"norm: order {p!r} is not supported; pass a number, 'fro' or 'nuc'")
    return float(p)


def _check_norm_dtype(input: Tensor, dtype) -> None:
    """PyTorch's vector_norm dtype rule: a floating dtype the input widens into."""
    if not dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vector_norm: dtype should be floating point or complex, but got {dtype}"
        )
    if promote_types(input.dtype, dtype) != dtype:
        raise RuntimeError(
            f"linalg.vector_norm: the dtype of the input ({input.dtype}) should be convertible "
            f"without narrowing to the specified dtype ({dtype})"
        )


@public()
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """Vector p-norm over ``dim`` (all elements when None): p = 'fro'/2, 1, inf, -inf, 0 or
    any float. ``dtype`` casts the input first. The gradient is 0 where the norm is 0."""
    check_keepdim(keepdim, "norm")
    _require_tensor(input, "norm")
    if out is not None:  # written into out, as PyTorch's (refused while grad is wanted)
        check_out("norm", [input], out)
        return write_out("norm", norm(input, p, dim, keepdim, dtype=dtype), out, same_dtype=True)
    if p == "nuc":  # a matrix norm: over the dims given, else over every dim (PyTorch's)
        if dim is None:
            dim = tuple(range(input._data.ndim))
        elif isinstance(dim, int):
            dim = (dim,)
        if dtype is not None:
            input = input.to(dtype)
        return matrix_norm(input, "nuc", dim=tuple(dim), keepdim=keepdim)
    if input._data.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{input.dtype} (shape {list(input.shape)}); convert with .float() or .double() first"
        )
    if dtype is not None:
        _check_norm_dtype(input, dtype)
        input = input.to(dtype)
    order = _norm_order(p, dim, input._data.ndim)
    dims = _axes(dim, input._data.ndim, "norm")
    # no identity for max/min, nor for negative orders (a sum of |x|^-p over nothing is 0)
    lacks_identity = math.isinf(order) or order < 0
    if lacks_identity and input._data.ndim and any(input._data.shape[d] == 0 for d in dims):
        raise RuntimeError(
            f"norm: the {order} norm of a tensor of shape {list(input.shape)} over dims "
            f"{list(dims)} reduces an empty dimension and has no identity"
        )
    # Saved as given (PyTorch's _saved_dim: None for every element), reduced over ``dims``.
    given = None if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    return _norm(input, ord=order, dim=given if given else None, keepdim=keepdim)


__all__ = exports(globals())
