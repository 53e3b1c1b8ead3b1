"""matmul and ``@``: products of every rank, batch dimensions broadcast.

``matmul`` dispatches to the primitive PyTorch would use (dot, mm, mv, the vector-matrix
product of ``linalg.py``, or a batched product here), which also gives PyTorch's ``grad_fn``
names. The batched product's VJP is matmul again (with ``sum_to`` where a 1-D operand was
broadcast), so gradients of any order come for free.
"""

from __future__ import annotations

import math

import numpy as np

from .._engine.grad_mode import _state as _grad_state
from .._exposure import exports, public
from .._tensor import Tensor
from . import _primitive
from ._inputs import _check_tensors
from ._optable import Bilinear
from ._out import accepts_out
from ._primitive import primitive
from .broadcast import _sum_to
from .linalg import (
    _check_dtypes,
    _check_inner,
    _dot,
    _matmul_forward,
    _mm,
    _mv,
    _shape,
    _swap_last_two,
    _unsqueeze_last,
    _vecmat,
)
from .shape import _unsafe_view


def _unsqueeze_second_last(x: Tensor) -> Tensor:
    s = x.shape
    return x.reshape(s[:-1] + (1,) + s[-1:])


# The rules read shapes through .shape and .ndim and call the products past their checks
# (_product, _sum_to), so they also run on a plain rule's arrays. The 1-D operand's cases
# have a batched other operand (ndim >= 3), so sum_to's shapes always differ there.
def _matmul_nd_grad_a(grad, a, b, result):
    if b.ndim == 1:  # a: (..., n, k), grad: (..., n)
        return _unsqueeze_last(grad) * b
    if a.ndim == 1:  # a: (k,), b: (..., k, m), grad: (..., m)
        g = _product(b, _unsqueeze_last(grad))  # (..., k, 1)
        return _sum_to(g, shape=tuple(a.shape) + (1,)).reshape(tuple(a.shape))
    return _product(grad, _swap_last_two(b))  # summed over broadcast batch dims by the machinery


def _matmul_nd_grad_b(grad, a, b, result):
    if a.ndim == 1:  # a: (k,), b: (..., k, m), grad: (..., m)
        return _unsqueeze_last(a) * _unsqueeze_second_last(grad)
    if b.ndim == 1:  # a: (..., n, k), b: (k,), grad: (..., n)
        g = _product(_swap_last_two(a), _unsqueeze_last(grad))  # (..., k, 1)
        return _sum_to(g, shape=tuple(b.shape) + (1,)).reshape(tuple(b.shape))
    return _product(_swap_last_two(a), grad)


def _matmul_nd(overload, node_name):
    return primitive(
        "matmul",
        _matmul_forward,
        (_matmul_nd_grad_a, _matmul_nd_grad_b),
        kind=Bilinear(),
        overload=overload,
        saves=("self if other", "other if self"),
        node_name=node_name,
        dtype_rule="keep",
        broadcast=True,
        plain_rules=True,
    )


# PyTorch folds batches into one mm and views back (UnsafeViewBackward0), except when it has
# to transpose the problem and copy the result (CloneBackward0).
_matmul_view = _matmul_nd("", "UnsafeViewBackward0")
_matmul_clone = _matmul_nd("clone", "CloneBackward0")


def _batch_shape(a: Tensor, b: Tensor) -> tuple:
    ba = a._data.shape[:-2] if a._data.ndim > 1 else ()
    bb = b._data.shape[:-2] if b._data.ndim > 1 else ()
    try:
        return np.broadcast_shapes(ba, bb)
    except ValueError:
        raise RuntimeError(
            f"matmul: shapes {_shape(a)} and {_shape(b)} cannot be multiplied: their batch "
            f"dimensions {list(ba)} and {list(bb)} do not broadcast (aligned from the right, "
            "each pair of sizes must be equal or one of them 1)"
        ) from None


def _transposes_problem(a: Tensor, b: Tensor) -> bool:
    da, db = a.ndim, b.ndim
    # A plain rule's arrays record nothing: there both products compute the same.
    if db < 3 or type(a) is np.ndarray or not a._requires_grad:
        return False
    return da == 2 or (da == 3 and db == 3 and a.shape[0] == 1 and b.shape[0] != 1)


@public()
@accepts_out(same_dtype=True)
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy/PyTorch semantics.

    1-D @ 1-D is a dot product (0-D); a 1-D first operand is a row vector and a 1-D second a
    column vector (the added dimension is removed again); batch dimensions (all but the last
    two) broadcast. Raises RuntimeError for 0-D operands, mismatched inner sizes, batch
    dimensions that do not broadcast and mixed dtypes.
    """
    plain = (Tensor, _primitive._PARAMETER)
    if type(input) in plain and type(other) in plain:  # floating matrices or vectors that fit:
        a, b = input._data, other._data  # the common case, its checks at once
        da, db = a.ndim, b.ndim
        if (
            0 < da <= 2
            and 0 < db <= 2
            and a.dtype is b.dtype
            and a.dtype.kind == "f"
            and a.shape[-1] == b.shape[0]  # (b's rows, or its length)
        ):
            if da == 2:  # (_product's first cases, without its frame)
                return _mm(input, other) if db == 2 else _mv(input, other)
            return _product(input, other, da, db)
    _check_tensors("matmul", input, other)
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"matmul: both arguments need at least 1 dimension, got shapes {_shape(input)} and "
            f"{_shape(other)}; use * to multiply by a scalar"
        )
    _check_dtypes("matmul", input, other)
    _check_inner("matmul", input, other)
    if da > 2 or db > 2:
        _batch_shape(input, other)
    return _product(input, other, da, db)


def _product(a, b, da=None, db=None):
    """``matmul`` past its checks: the primitive PyTorch would record for these ranks (on a
    plain rule's arrays each computes ``np.matmul``, as on tensors), or where a graph is
    recorded for a batched product, PyTorch's own ops (``_recorded``). ``da``, ``db``: the
    operands' ranks, if known."""
    if da is None:
        da, db = a.ndim, b.ndim
    if da == 1 and db == 1:
        return _dot(a, b)
    if da == 2 and db == 2:
        return _mm(a, b)
    if da == 2 and db == 1:
        return _mv(a, b)
    if da == 1 and db == 2:
        return _vecmat(a, b)
    if _records(a, b):
        return _recorded(a, b)
    if _transposes_problem(a, b):
        return _matmul_clone(a, b)
    return _matmul_view(a, b)


def _records(a, b) -> bool:
    """Whether a batched product of ``a`` and ``b`` is recorded in a graph (plain tensors, one
    of them requiring grad, grad mode on)."""
    plain = (Tensor, _primitive._PARAMETER)
    return (
        type(a) in plain
        and type(b) in plain
        and (a._requires_grad or b._requires_grad)
        and _grad_state.enabled
    )


def _recorded(t1: Tensor, t2: Tensor) -> Tensor:
    """A product of at least one operand of three or more dims as PyTorch's ``_matmul_impl``
    composes it, so the graph holds PyTorch's nodes: the larger operand folded into rows of
    one ``mm`` (or ``mv``) and viewed back, transposed first where the other operand is the
    larger; otherwise both expanded to the broadcast batch, reshaped, one ``bmm``."""
    d1, d2 = t1.ndim, t2.ndim
    if d1 <= 2 and d2 <= 2:
        return _product(t1, t2, d1, d2)
    if _should_fold(t1, t2):
        transpose = d2 > d1
        rows = t2.mT if transpose else t1
        other = (t1.t() if d1 == 2 else t1) if transpose else t2
        shape = tuple(rows.shape[:-1])
        folded = rows.reshape(math.prod(shape), rows.shape[-1])
        if other.ndim == 2:
            out = _unsafe_view(folded.mm(other), shape=shape + (other.shape[1],))
            return out.mT.contiguous() if transpose else out
        return _unsafe_view(folded.mv(other), shape=shape)
    n = t1.shape[-2] if d1 > 1 else 1
    m2 = t2.shape[-2] if d2 > 1 else t2.shape[0]
    p = t2.shape[-1] if d2 > 1 else 1
    batch1, batch2 = tuple(t1.shape[: max(d1 - 2, 0)]), tuple(t2.shape[: max(d2 - 2, 0)])
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and t1._requires_grad:
            return _recorded(t1.squeeze(0), t2)
        if batch2[0] == 1 and t2._requires_grad:
            return _recorded(t1, t2.squeeze(0))
    batch = tuple(np.broadcast_shapes(batch1, batch2))
    count = math.prod(batch)
    left = t1.expand(batch + (n, t1.shape[-1])).reshape(count, n, t1.shape[-1])
    if d2 == 1:
        right = t2.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
    else:
        right = t2.expand(batch + (m2, p)).reshape(count, m2, p)
    shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    out = left.bmm(right)
    return _unsafe_view(out.squeeze(-1) if d2 == 1 else out, shape=shape)


def _should_fold(t1: Tensor, t2: Tensor) -> bool:
    """PyTorch's ``should_fold``: whether the larger operand (three or more dims, the other
    at most two) folds into the rows of one matrix product without a copy, or the smaller
    requires grad (then folding spares its gradient a batch of copies)."""
    larger = t1.ndim >= t2.ndim
    rows = t1 if larger else t2.mT
    if not (rows.ndim >= 3 and (t2.ndim if larger else t1.ndim) <= 2):
        return False
    if (t2 if larger else t1)._requires_grad:
        return True
    if t1.ndim == 2:
        return False
    if rows.numel() == 0:
        return True
    shape, strides = rows._data.shape, rows._data.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(rows.ndim - 2))


# What the operators call: matmul past its keyword wrappers (NumPy names, out=).
_matmul_operands = matmul._without_out


@public(function=False, method=False, operators=("__matmul__",))
def _matmul_method(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return _matmul_operands(self, other)


@public(function=False, method=False, operators=("__rmatmul__",))
def _rmatmul_method(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return _matmul_operands(other, self)


__all__ = exports(globals())
