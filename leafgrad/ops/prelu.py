"""``prelu`` as PyTorch records it: ``_prelu_kernel`` (PreluKernelBackward0) of the input and
the weight viewed to broadcast over it, and its backward ``_prelu_kernel_backward``
(PreluKernelBackwardBackward0), whose two outputs are the input's and the weight's
gradients, with PyTorch's derivative formulas (derivatives.yaml).

The kernels test ``x > 0``; the backward's own derivatives test ``x >= 0``, as PyTorch's
formulas do (they differ only at an input of exactly zero).
"""

from __future__ import annotations

import numpy as np

from .._tensor import _zeros_like
from ._optable import Generic
from ._plain import operand, values_of
from ._primitive import primitive
from ._tangents import tangent_sum
from .piecewise import where


def _reduced(g: np.ndarray, shape: tuple) -> np.ndarray:
    """``g`` summed over the dims where the weight (viewed to the input's rank) has size 1."""
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=dims, keepdims=True) if dims else g


def _kernel_forward(x, w):
    """PyTorch's kernel: ``x > 0 ? x : w x``."""
    return np.where(x > 0, x, w * x).astype(x.dtype, copy=False)


def _kernel_backward_forward(grad, x, w):
    """PyTorch's kernel: ``x > 0 ? g : w g`` for the input, ``x > 0 ? 0 : x g`` for the
    weight, the latter summed over the dims the weight broadcasts along."""
    positive = x > 0
    gx = np.where(positive, grad, w * grad).astype(x.dtype, copy=False)
    gw = np.where(positive, x.dtype.type(0), x * grad).astype(x.dtype, copy=False)
    return gx, _reduced(gw, w.shape)


def _zero(like):
    """A 0-d zero beside ``like`` (PyTorch's ``at::zeros({}, options)``)."""
    return operand(np.zeros((), values_of(like).dtype), like)


def _prelu_vjp(grad, x, w, *, result, needs):
    return tuple(prelu_kernel_backward(grad, x, w))  # both, as PyTorch's backward gives


def _prelu_jvp(tx, tw, x, w, result):
    """``where(x >= 0, tx, w tx + tw x)`` (PyTorch's formula; a missing tangent is zero)."""
    nonnegative = x >= 0
    slope_part = tangent_sum(None if tx is None else w * tx, None if tw is None else tw * x)
    tx = _zeros_like(x) if tx is None else tx
    return where(nonnegative, tx, slope_part)


prelu_kernel = primitive(
    "_prelu_kernel",
    _kernel_forward,
    vjp_all=_prelu_vjp,
    kind=Generic(jvp=_prelu_jvp),
    inputs=("self", "weight"),
    saves=("self", "weight"),
    node_name="PreluKernelBackward0",
    broadcast=True,
    dtype_rule="keep",
    plain_rules=True,
)


def _kernel_backward_vjp(grads, grad, x, w, *, result, needs):
    """PyTorch's derivatives of ``_prelu_kernel_backward`` for cotangents ``(ggx, ggw)``
    (either may be None)."""
    ggx, ggw = grads
    nonnegative = x >= 0
    zero = _zero(x)
    g_grad = g_x = g_w = None
    if needs[0]:
        if ggx is not None:
            other = ggx * w if ggw is None else ggx * w + ggw * x
            g_grad = where(nonnegative, ggx, other)
        else:
            g_grad = where(nonnegative, zero, ggw * x)
    if needs[1]:
        g_x = _zeros_like(x) if ggw is None else where(nonnegative, zero, grad * ggw)
    if needs[2]:
        g_w = _zeros_like(x) if ggx is None else where(nonnegative, zero, grad * ggx)
    return g_grad, g_x, g_w


def _kernel_backward_jvp(tg, tx, tw, grad, x, w, *, result):
    """PyTorch's: ``where(x >= 0, tg, tg w + g tw)`` and ``where(x >= 0, 0, g tx + tg x)``,
    the latter summed to the weight's shape."""
    nonnegative = x >= 0
    t_gx = where(
        nonnegative,
        _zeros_like(x) if tg is None else tg,
        tangent_sum(None if tg is None else tg * w, None if tw is None else grad * tw),
    )
    t_gw = tangent_sum(None if tx is None else grad * tx, None if tg is None else tg * x)
    if t_gw is None:  # only the weight moves: its gradient does not
        return t_gx, _zeros_like(w)
    t_gw = where(nonnegative, _zero(x), t_gw)
    dims = [i for i, s in enumerate(w.shape) if s == 1 and x.shape[i] != 1]
    return t_gx, t_gw.sum(dims, keepdim=True) if dims else t_gw


prelu_kernel_backward = primitive(
    "_prelu_kernel_backward",
    _kernel_backward_forward,
    vjp_all=_kernel_backward_vjp,
    kind=Generic(jvp=_kernel_backward_jvp),
    inputs=("grad_output", "self", "weight"),
    saves=("grad_output", "self", "weight"),
    node_name="PreluKernelBackwardBackward0",
    broadcast=True,
    dtype_rule="keep",
    num_outputs=2,
    materialize_grads=False,
    plain_rules=True,
)


__all__: list = []
