"""``beta * input + alpha * product``: ``addmv`` (matrix @ vector), ``addr`` (outer product),
``baddbmm`` (batched matrix products) and ``addbmm`` (their sum), with in-place twins.

As in PyTorch, ``beta == 0`` ignores ``input``'s values (nan and inf in it do not
propagate; its gradient is zero) and ``input`` broadcasts to the product's shape.
"""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._out import accepts_out
from .linalg import bmm, mv, outer


def _check(op: str, **tensors) -> None:
    for what, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{what}' must be Tensor, not {type(t).__name__}")
    dtypes = {t._data.dtype for t in tensors.values()}
    if len(dtypes) > 1:
        got = ", ".join(f"{w} {t.dtype}" for w, t in tensors.items())
        raise RuntimeError(
            f"{op}: expected all tensors to have the same dtype, got {got}; convert them first"
        )


def _ndim(op: str, t: Tensor, n: int, what: str) -> None:
    if t._data.ndim != n:
        raise RuntimeError(
            f"{op}: {what} must be a {n}-D tensor, got {t._data.ndim}-D of shape {list(t.shape)}"
        )


def _scaled_sum(op: str, input: Tensor, product: Tensor, beta, alpha) -> Tensor:
    """``beta * input + alpha * product``, ``input`` broadcast to the product's shape."""
    shape = product._data.shape
    try:
        fits = np.broadcast_shapes(input._data.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"{op}: input of shape {list(input.shape)} cannot be broadcast to the product's "
            f"shape {list(shape)}"
        )
    if input._data.dtype.kind in "iub" and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError(
            f"{op}: for integer tensors beta and alpha must be integers, got beta={beta}, "
            f"alpha={alpha}"
        )
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # zeros with a zero gradient, whatever input holds
        term = input.masked_fill(_wrap(np.array(True)), 0)
    else:
        term = input if beta == 1 else input * beta
    return term + product


@public(inplace=True)
@accepts_out(same_dtype=True)
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``; ``mat``: (n, m), ``vec``: (m,)."""
    _check("addmv", input=input, mat=mat, vec=vec)
    _ndim("addmv", mat, 2, "mat")
    _ndim("addmv", vec, 1, "vec")
    if mat._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(
            f"addmv: size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}"
            f"), mat ({mat._data.shape[0]}x{mat._data.shape[1]}), vec ({vec._data.shape[0]})"
        )
    return _scaled_sum("addmv", input, mv(mat, vec), beta, alpha)


@public(inplace=True)
@accepts_out(same_dtype=True)
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``; ``vec1``: (n,), ``vec2``: (m,)."""
    _check("addr", input=input, vec1=vec1, vec2=vec2)
    _ndim("addr", vec1, 1, "vec1")
    _ndim("addr", vec2, 1, "vec2")
    return _scaled_sum("addr", input, outer(vec1, vec2), beta, alpha)


def _batched(op: str, batch1: Tensor, batch2: Tensor) -> None:
    _ndim(op, batch1, 3, "batch1")
    _ndim(op, batch2, 3, "batch2")
    (b1, _, k1), (b2, k2, _) = batch1._data.shape, batch2._data.shape
    if b1 != b2 or k1 != k2:
        raise RuntimeError(
            f"{op}: batch1 {list(batch1.shape)} and batch2 {list(batch2.shape)} must have the "
            "same batch size and inner size (b, n, k) @ (b, k, m)"
        )


@public(inplace=True)
@accepts_out(same_dtype=True)
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)``, per batch: (b, n, k) @ (b, k, m)."""
    _check("baddbmm", input=input, batch1=batch1, batch2=batch2)
    _batched("baddbmm", batch1, batch2)
    return _scaled_sum("baddbmm", input, bmm(batch1, batch2), beta, alpha)


@public(inplace=True)
@accepts_out(same_dtype=True)
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]``: (b, n, k), (b, k, m)."""
    _check("addbmm", input=input, batch1=batch1, batch2=batch2)
    _batched("addbmm", batch1, batch2)
    return _scaled_sum("addbmm", input, bmm(batch1, batch2).sum(0), beta, alpha)


__all__ = exports(globals())
