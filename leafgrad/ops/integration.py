"""Differences and the trapezoidal rule along one dim: diff, trapezoid (trapz),
cumulative_trapezoid.

Composites of slices, sums and cumsum written as PyTorch writes them, so values, dtypes and
gradients (to any order) follow from those ops.
"""

from __future__ import annotations

import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim, _wrap
from ._out import with_out
from .arithmetic import div_scalar, mul_scalar
from .joining import cat
from .reduction import cumsum


def _along(t: Tensor, dim: int, s: slice) -> Tensor:
    return t[(slice(None),) * dim + (s,)]


@public()
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None, *, out=None):
    """The ``n``-th forward difference along ``dim``, after joining ``prepend`` and ``append``
    (tensors of ``input``'s number of dims) at its ends; bools differ by xor."""
    if out is not None:
        args = (input, prepend, append)
        return with_out("diff", lambda: diff(input, n, dim, prepend, append), args, out)
    if not isinstance(input, Tensor):
        raise TypeError(f"diff(): input must be a Tensor, not {type(input).__name__}")
    if input._data.ndim == 0:
        raise RuntimeError("diff: input must have at least one dim, got a 0-dim tensor")
    n = operator.index(n)
    if n < 0:
        raise RuntimeError(f"diff: the order n must be non-negative, got {n}")
    d = _normalize_dim(operator.index(dim), input._data.ndim, "diff")
    parts = [input]
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        if not isinstance(extra, Tensor) or extra._data.ndim != input._data.ndim:
            got = extra.shape if isinstance(extra, Tensor) else type(extra).__name__
            raise RuntimeError(
                f"diff: {name} must be a tensor with as many dims as the input (shape "
                f"{list(input.shape)}), got {got}"
            )
        parts = [extra, *parts] if name == "prepend" else [*parts, extra]
    x = cat(parts, d) if len(parts) > 1 else input
    if n == 0:
        return x.clone()
    for _ in range(n):
        if x._data.shape[d] == 0:
            break
        later, earlier = _along(x, d, slice(1, None)), _along(x, d, slice(None, -1))
        x = later != earlier if x._data.dtype == np.bool_ else later - earlier
    return x


def _integration_dim(op: str, y: Tensor, x, dx, dim) -> int:
    if not isinstance(y, Tensor):
        raise TypeError(f"{op}(): y must be a Tensor, not {type(y).__name__}")
    if x is not None and dx is not None:
        raise TypeError(f"{op}(): pass either the sample points x or the spacing dx, not both")
    if y._data.ndim == 0:
        raise IndexError(f"{op}: y must have at least one dim, got a 0-dim tensor")
    if y._data.dtype == np.bool_ or (isinstance(x, Tensor) and x._data.dtype == np.bool_):
        raise RuntimeError(f"{op}: bool tensors are not supported; convert with .float()")
    if isinstance(dx, bool) or (dx is not None and not isinstance(dx, (int, float))):
        raise TypeError(f"{op}(): dx must be a real number, got {type(dx).__name__}")
    return _normalize_dim(operator.index(dim), y._data.ndim, op)


def _spacings(op: str, y: Tensor, x: Tensor, dim: int) -> Tensor:
    """``x[1:] - x[:-1]`` along ``dim``, ``x`` laid out to broadcast against ``y`` (a 1-d x
    along ``dim``, a shorter one padded with leading dims)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): x must be a Tensor, not {type(x).__name__}")
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[dim]:
            raise RuntimeError(
                f"{op}: x has {x._data.shape[0]} points but y has {y._data.shape[dim]} along "
                f"dim {dim}; pass one x value per sample"
            )
        shape = [1] * y._data.ndim
        shape[dim] = x._data.shape[0]
        x = x.reshape(shape)
    elif x._data.ndim < y._data.ndim:
        x = x.reshape((1,) * (y._data.ndim - x._data.ndim) + x._data.shape)
    return _along(x, dim, slice(1, None)) - _along(x, dim, slice(None, -1))


def _pair_sums(y: Tensor, dim: int) -> Tensor:
    return _along(y, dim, slice(None, -1)) + _along(y, dim, slice(1, None))


@public(method=False)
def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: samples ``y`` at points ``x`` (or spaced ``dx``,
    default 1); no samples integrate to 0."""
    d = _integration_dim("trapezoid", y, x, dx, dim)
    if y._data.shape[d] == 0:
        return _wrap(np.zeros(y._data.shape[:d] + y._data.shape[d + 1 :], y._data.dtype))
    # PyTorch's formulas op for op (numbers as mul.Scalar / div.Scalar, as ATen's C++ writes
    # them): (sum - (first + last) 0.5) dx, or ((left + right) dx).sum / 2.
    if x is None:
        ends = y.select(d, 0) + y.select(d, -1)
        return _times(y.sum(d) - _times(ends, 0.5), 1 if dx is None else dx)
    return _over((_pair_sums(y, d) * _spacings("trapezoid", y, x, d)).sum(d), 2.0)


trapz = trapezoid


@public(method=False)
def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoidal rule along ``dim`` (one entry fewer than ``y`` there)."""
    d = _integration_dim("cumulative_trapezoid", y, x, dx, dim)
    if x is None:  # PyTorch's (dx / 2. * (left + right)).cumsum
        return cumsum(_times(_pair_sums(y, d), (1 if dx is None else dx) / 2.0), d)
    spacings = _spacings("cumulative_trapezoid", y, x, d)
    return _over(cumsum(_pair_sums(y, d) * spacings, d), 2.0)


# A number in ATen's formulas is mul.Scalar / div.Scalar on a floating tensor; an integer
# one (no graph) takes Python's operator, which promotes it to the default float dtype.
def _times(t: Tensor, number) -> Tensor:
    return mul_scalar(t, other=number) if t._data.dtype.kind == "f" else t * number


def _over(t: Tensor, number) -> Tensor:
    return div_scalar(t, other=number) if t._data.dtype.kind == "f" else t / number


__all__ = exports(globals())
