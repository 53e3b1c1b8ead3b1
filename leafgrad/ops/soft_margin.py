"""``soft_margin_loss`` as PyTorch records it (SoftMarginLossBackward0, no edge for the target,
which PyTorch refuses to differentiate) with its backward an op too
(SoftMarginLossBackwardBackward0), each computed as PyTorch's CPU kernels compute it:

    loss = log1p(exp(-x * y))                       (then the reduction)
    grad = y z (-norm) / (z + 1) * g,  z = exp(-y * x),  norm = 1/n for a mean, else 1

and the backward's derivatives as FunctionsManual.cpp's ``soft_margin_loss_double_backward``
(in the input) and ``..._grad_output`` (in the incoming gradient). As in PyTorch, a large
margin overflows: ``exp(-x y)`` of a large positive ``-x y`` is inf and so is the loss.
"""

from __future__ import annotations

import numpy as np

from ._optable import Composite
from ._plain import operand, values_of
from ._primitive import primitive
from ._tangents import tangent_sum
from .arithmetic import add_scalar, mul_scalar
from .elementwise import exp, log1p
from .losses import _norm, _reduce, _weighted_mean


def _loss_forward(x, y, *, reduction):
    return _reduce(np.log1p(np.exp(np.negative(x) * y)), reduction)


def _loss(x, y, *, reduction):
    """``_loss_forward`` in leafgrad ops (Taylor mode, vmap)."""
    return _reduce(log1p(exp(-x * y)), reduction)


def _backward_forward(grad, x, y, *, reduction):
    z = np.exp(np.negative(y) * x)
    out = y * z * x.dtype.type(-_norm(x, 1.0, reduction))
    return out / (z + 1) * grad


def _backward(grad, x, y, *, reduction):
    """``_backward_forward`` in leafgrad ops (Taylor mode, vmap)."""
    z = exp(-y * x)
    return mul_scalar(y * z, other=-_norm(x, 1.0, reduction)) / add_scalar(z, other=1) * grad


def _double_backward(gg, x, y, reduction):
    """PyTorch's ``soft_margin_loss_double_backward``: ``gg y^2 z / (z + 1)^2`` (over n)."""
    z = exp(x * -y)
    z_plus_one = add_scalar(z, other=1)
    return _weighted_mean(gg * (y * y) * z / (z_plus_one * z_plus_one), x, None, reduction)


def _double_backward_grad_output(gg, grad, x, y, reduction):
    """PyTorch's ``soft_margin_loss_double_backward_grad_output``: the backward of ``gg``
    unreduced, else of ones times ``gg``, summed."""
    if reduction == 0:
        return soft_margin_loss_backward(gg, x, y, reduction=reduction)
    ones = operand(np.ones(values_of(grad).shape, values_of(grad).dtype), grad)
    return (soft_margin_loss_backward(ones, x, y, reduction=reduction) * gg).sum()


soft_margin_loss_backward = primitive(
    "soft_margin_loss_backward",
    _backward_forward,
    (
        lambda gg, grad, x, y, result, *, reduction: _double_backward_grad_output(
            gg, grad, x, y, reduction
        ),
        # derivatives.yaml passes ``grad * grad_output`` as the double backward's gradient
        lambda gg, grad, x, y, result, *, reduction: _double_backward(gg * grad, x, y, reduction),
    ),
    kind=Composite(
        taylor_as=_backward,
        jvp=lambda tg, tx, ty, grad, x, y, *, result, reduction: _backward_jvp(
            tg, tx, grad, x, y, reduction
        ),
    ),
    inputs=("grad_output", "self", "target"),
    edgeless=(2,),  # the target: no derivative, no edge
    saves=("grad_output", "self", "target", "reduction"),
    node_name="SoftMarginLossBackwardBackward0",
    broadcast=True,
)


def _backward_jvp(tg, tx, grad, x, y, reduction):
    """Linear in the incoming gradient; in the input, the double backward's slope."""
    return tangent_sum(
        None if tg is None else soft_margin_loss_backward(tg, x, y, reduction=reduction),
        None if tx is None else _double_backward(tx * grad, x, y, reduction),
    )


soft_margin_loss = primitive(
    "soft_margin_loss",
    _loss_forward,
    (
        lambda grad, x, y, result, *, reduction: soft_margin_loss_backward(
            grad, x, y, reduction=reduction
        ),
        None,
    ),
    kind=Composite(
        taylor_as=_loss,
        jvp=lambda tx, ty, x, y, *, result, reduction: _reduce(
            soft_margin_loss_backward(tx, x, y, reduction=0), reduction
        ),
    ),
    inputs=("self", "target"),
    edgeless=(1,),
    saves=("self", "target", "reduction"),
    node_name="SoftMarginLossBackward0",
    broadcast=True,
)


__all__: list = []
