"""renorm: each slice along a dim scaled down to a maximum p-norm.

One op, as PyTorch records it (RenormBackward0, saving self, p, dim and maxnorm), computing
``x * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1)`` with the norm over the other dims;
its gradient is PyTorch's renorm_backward and its tangent renorm_jvp, written in
differentiable ops (the vector norm's own rules inside), so every order follows.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from ._optable import Composite
from ._out import with_out
from ._primitive import primitive
from .piecewise import where
from .statistics import _norm, _norm_forward, _norm_grad, _norm_jvp

_EPS = 1e-7  # PyTorch's: keeps the factor finite where the norm is 0 (maxnorm 0 too)


def _others(ndim: int, dim: int) -> tuple:
    return tuple(i for i in range(ndim) if i != dim)


def _renorm_forward(x, *, p, dim, maxnorm):
    if not x.flags.c_contiguous:  # the result row-major, as PyTorch's
        x = np.ascontiguousarray(x)
    norm = _norm_forward(x, ord=p, dim=_others(x.ndim, dim), keepdim=True)
    return x * np.where(norm > maxnorm, maxnorm / (norm + _EPS), 1.0)


def _scaling(x, p, dim, maxnorm):
    """The norm of each slice (kept dims), ``1 / (norm + eps)`` and the factor, as tensors."""
    others = _others(x.ndim, dim)
    norm = _norm(x, ord=p, dim=others, keepdim=True)
    invnorm = (norm + _EPS).reciprocal()
    return others, norm, invnorm, invnorm * maxnorm


def _renorm_grad(grad, x, result, *, p, dim, maxnorm):
    """PyTorch's renorm_backward: the scaled slices also vary with their norm."""
    others, norm, invnorm, factor = _scaling(x, p, dim, maxnorm)
    along = _norm_grad(
        (x * grad).sum(others, keepdim=True), x, norm, ord=p, dim=others, keepdim=True
    )
    return where(norm > maxnorm, factor * (grad - invnorm * along), grad)


def _renorm_jvp(t, x, result, *, p, dim, maxnorm):
    """PyTorch's renorm_jvp: the tangent scaled, less the change of the norm's factor."""
    others, norm, invnorm, factor = _scaling(x, p, dim, maxnorm)
    norm_t = _norm_jvp(t, x, norm, ord=p, dim=others, keepdim=True)
    return where(norm > maxnorm, factor * (t - x * invnorm * norm_t), t)


def _renorm_as_ops(x, *, p, dim, maxnorm):
    """The same composed (Taylor mode, vmap)."""
    norm = x.norm(p, _others(x.ndim, dim), True)
    return x * where(norm > maxnorm, maxnorm / (norm + _EPS), 1.0)


_renorm = primitive(
    "renorm",
    _renorm_forward,
    _renorm_grad,
    kind=Composite(taylor_as=_renorm_as_ops, jvp=_renorm_jvp),
    saves=("self", "p", "dim", "maxnorm"),
    node_name="RenormBackward0",
    dtype_rule="keep",
)


@public(inplace=True)
def renorm(input: Tensor, p, dim: int, maxnorm, *, out=None) -> Tensor:
    """``input`` with each slice ``input.select(dim, i)`` whose ``p``-norm exceeds
    ``maxnorm`` scaled to norm ``maxnorm`` (floating tensors; ``p > 0``)."""
    if out is not None:
        return with_out("renorm", lambda: renorm(input, p, dim, maxnorm), (input,), out)
    if not isinstance(input, Tensor):
        raise TypeError(f"renorm(): input must be a Tensor, not {type(input).__name__}")
    for name, v in (("p", p), ("maxnorm", maxnorm)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"renorm(): {name} must be a real number, not {type(v).__name__}")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dims, got shape {list(input.shape)}")
    if p <= 0:
        raise RuntimeError(f"renorm: p must be positive, got {p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: maxnorm must be non-negative, got {maxnorm}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"renorm: input must be floating, got {input.dtype}; use .float()")
    d = _normalize_dim(operator.index(dim), nd, "renorm")
    return _renorm(input, p=float(p), dim=d, maxnorm=maxnorm)


__all__ = exports(globals())
