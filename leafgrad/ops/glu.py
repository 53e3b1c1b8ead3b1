"""``glu`` and its backward as PyTorch's ops (GluBackward0, GluBackwardBackward0), with
PyTorch's formulas: the forward ``a * (1 / (1 + exp(-b)))`` over the halves ``a, b`` of the
input along ``dim``; the backward ``glu_backward``, ``[s g, (1 - s) s a g]`` with
``s = sigmoid(b)``; and its derivatives, ``glu_double_backward`` in the input and
``glu_double_backward_grad_output`` in the incoming gradient (FunctionsManual.cpp).
"""

from __future__ import annotations

import numpy as np

from ._optable import Composite
from ._plain import operand, values_of
from ._primitive import primitive
from ._tangents import tangent_sum
from .elementwise import _sigmoid_forward, sigmoid
from .joining import _cat
from .slicing import narrow


def _halves(x, dim: int) -> tuple:
    """The two halves of ``x`` along ``dim`` (a tensor's, or an array's in a plain rule)."""
    n = x.shape[dim] // 2
    return narrow(x, dim, 0, n), narrow(x, dim, n, n)


def _array_halves(x: np.ndarray, dim: int) -> tuple:
    n = x.shape[dim] // 2
    index = [slice(None)] * x.ndim
    first, second = list(index), list(index)
    first[dim], second[dim] = slice(0, n), slice(n, None)
    return x[tuple(first)], x[tuple(second)]


def _glu_forward(x, *, dim):
    a, b = _array_halves(x, dim)
    return a * _sigmoid_forward(b)  # sigmoid's kernel: PyTorch's 1 / (1 + exp(-b))


def _glu(x, *, dim):
    """``_glu_forward`` in leafgrad ops (Taylor mode)."""
    a, b = _halves(x, dim)
    return a * sigmoid(b)


def _glu_backward_forward(grad, x, *, dim):
    """PyTorch's glu_backward kernel: ``s g`` for the first half, ``(1 - s) s a g`` for the
    second, in its order."""
    a, b = _array_halves(x, dim)
    s = _sigmoid_forward(b)
    return np.concatenate([s * grad, (1 - s) * s * a * grad], axis=dim)


def _glu_backward(grad, x, *, dim):
    """``_glu_backward_forward`` in leafgrad ops (Taylor mode)."""
    a, b = _halves(x, dim)
    s = sigmoid(b)
    first, second = s * grad, (1 - s) * s * a * grad
    return _cat(first, second, dim=dim, dtype=values_of(first).dtype)


def _glu_double_backward(gg, grad, x, dim):
    """PyTorch's ``glu_double_backward``: the input's gradient through glu_backward."""
    a, b = _halves(x, dim)
    s = sigmoid(b)
    one_minus_s = 1 - s
    s_one_minus_s = s * one_minus_s
    gg_first, gg_second = _halves(gg, dim)
    gg_second_times_a = gg_second * a
    first = gg_second * grad * s_one_minus_s
    second_order = s_one_minus_s * one_minus_s - s * s_one_minus_s
    second = gg_second_times_a * grad * second_order + gg_first * grad * s_one_minus_s
    return _cat(first, second, dim=dim, dtype=values_of(first).dtype)


def _glu_double_backward_grad_output(gg, x, dim):
    """PyTorch's ``glu_double_backward_grad_output``: ``gg`` times glu_backward of ones,
    its two halves added."""
    sizes = list(x.shape)
    sizes[dim] //= 2
    ones = operand(np.ones(sizes, values_of(x).dtype), x)
    t = gg * glu_backward(ones, x, dim=dim)
    first, second = _halves(t, dim)
    return first + second


def _glu_jvp(tx, x, result, *, dim):
    """The derivative along ``tx``: ``da s + db (1 - s) s a``."""
    a, b = _halves(x, dim)
    da, db = _halves(tx, dim)
    s = sigmoid(b)
    return da * s + db * ((1 - s) * s * a)


glu = primitive(
    "glu",
    _glu_forward,
    (lambda grad, x, result, *, dim: glu_backward(grad, x, dim=dim),),
    kind=Composite(taylor_as=_glu, jvp=_glu_jvp),
    saves=("self", "dim"),
    node_name="GluBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


def _glu_backward_jvp(tg, tx, grad, x, result, *, dim):
    """glu_backward is linear in ``grad``; in the input its Jacobian is a Hessian of
    ``<grad, glu(x)>``, symmetric, so its derivative along ``tx`` is the double backward's."""
    return tangent_sum(
        None if tg is None else glu_backward(tg, x, dim=dim),
        None if tx is None else _glu_double_backward(tx, grad, x, dim),
    )


glu_backward = primitive(
    "glu_backward",
    _glu_backward_forward,
    (
        lambda gg, grad, x, result, *, dim: _glu_double_backward_grad_output(gg, x, dim),
        lambda gg, grad, x, result, *, dim: _glu_double_backward(gg, grad, x, dim),
    ),
    kind=Composite(taylor_as=_glu_backward, jvp=_glu_backward_jvp),
    inputs=("grad_output", "self"),
    saves=("grad_output", "self", "dim"),
    node_name="GluBackwardBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


__all__: list = []
