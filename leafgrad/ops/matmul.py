"""matmul and ``@``: products of every rank, batch dimensions broadcast.

``matmul`` dispatches to the primitive PyTorch would use (dot, mm, mv, the vector-matrix
product of ``linalg.py``, or a batched product here), which also gives PyTorch's ``grad_fn``
names. The batched product's VJP is matmul again (with ``sum_to`` where a 1-D operand was
broadcast), so gradients of any order come for free.
"""

from __future__ import annotations

import numpy as np

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
    if type(input) in plain and type(other) in plain:  # two floating matrices that fit:
        a, b = input._data, other._data  # the common case, its checks at once
        if (
            a.ndim == 2
            and b.ndim == 2
            and a.dtype is b.dtype
            and a.dtype.kind == "f"
            and a.shape[1] == b.shape[0]
        ):
            return _mm(input, other)
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
    plain rule's arrays each computes ``np.matmul``, as on tensors). ``da``, ``db``: the
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
    if _transposes_problem(a, b):
        return _matmul_clone(a, b)
    return _matmul_view(a, b)


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
