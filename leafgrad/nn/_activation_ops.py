"""The piecewise activations of ``nn.functional`` as ops of their own, recorded as PyTorch
records them: ``hardtanh`` (HardtanhBackward0; ``relu6`` too), ``hardswish``
(HardswishBackward0) and ``celu`` (CeluBackward0), saving what PyTorch saves.

Forwards follow PyTorch's CPU kernels operation for operation; the derivatives select with
PyTorch's own branch conditions, so the gradient at a kink (and at NaN) is PyTorch's.
``hardtanh_backward`` is an op too (HardtanhBackwardBackward0): its result depends on the
input, so under ``create_graph=True`` a second ``autograd.grad`` gives zeros, as in
PyTorch, instead of raising.
"""

from __future__ import annotations

import numpy as np

from .._tensor import _zeros_like
from ..ops import _select
from ..ops._optable import Generic, NoDerivative, PiecewiseLinear
from ..ops._primitive import primitive, unary
from ..ops._tangents import tangent_sum
from ..ops.activations import _elu_d1, _elu_d2, _elu_forward, elu_backward
from ..ops.piecewise import where

__all__ = ["celu", "hardsigmoid", "hardswish", "hardtanh"]

# SELU's constants (Klambauer et al. 2017), to the digits PyTorch uses.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ----- hardtanh -----


def _hardtanh_forward(x, *, min_val, max_val):
    """``clamp(x, min_val, max_val)`` as PyTorch's ``min(max(x, lo), hi)``: NaN stays NaN and
    a bound equal to ``x`` keeps ``x`` (``-0.0`` at 0)."""
    low = np.where(x < min_val, np.asarray(min_val, x.dtype), x)
    return np.where(low > max_val, np.asarray(max_val, x.dtype), low)


def _inside(x, min_val, max_val):
    """PyTorch's pass-through condition: not ``x <= min_val`` nor ``x >= max_val`` (NaN
    passes)."""
    return ~((x <= min_val) | (x >= max_val))


def _hardtanh_backward_forward(grad, x, *, min_val, max_val):
    return _select.where(_inside(x, min_val, max_val), grad, 0).astype(grad.dtype, copy=False)


hardtanh_backward = primitive(
    "hardtanh_backward",
    _hardtanh_backward_forward,
    (
        lambda grad, g, x, result, **bounds: hardtanh_backward(grad, x, **bounds),
        lambda grad, g, x, result, **bounds: _zeros_like(x),
    ),
    kind=PiecewiseLinear(),
    saves=("self", "min_val", "max_val"),
    inputs=("grad_output", "self"),
    node_name="HardtanhBackwardBackward0",
    dtype_rule="keep",
    plain_rules=True,
)

hardtanh = primitive(
    "hardtanh",
    _hardtanh_forward,
    (lambda grad, x, result, **bounds: hardtanh_backward(grad, x, **bounds),),
    kind=PiecewiseLinear(),
    saves=("self", "min_val", "max_val"),
    node_name="HardtanhBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


# ----- hardswish -----


def _hardswish_forward(x):
    """PyTorch's ``x * min(max(x + 3, 0), 6) / 6``."""
    return (x * np.minimum(np.maximum(x + 3, 0), 6) / 6).astype(x.dtype, copy=False)


def _hardswish_d1(x):
    """0 up to -3, ``x / 3 + 1/2`` below 3, else 1 (NaN too), as PyTorch's backward."""
    return where(x <= -3, 0.0, where(x < 3, x / 3 + 0.5, 1.0))


def _hardswish_d2(x):
    return where((x > -3) & (x < 3), _zeros_like(x) + 1.0 / 3, 0.0)


def _hardswish_backward_dx(gg, g, x):
    """The derivative of ``hardswish_backward`` in ``x``: ``gg g / 3`` inside (-3, 3), else
    0 (selected, as PyTorch's)."""
    return where((x > -3) & (x < 3), gg * g / 3, 0.0)


def _hardswish_backward_forward(grad, x):
    """The gradient selected, not multiplied, where the slope is 0 or 1 (an inf gradient
    gives 0 below -3, as in PyTorch)."""
    scaled = grad * (x / 3 + 0.5)
    return _select.where(x <= -3, 0, _select.where(x < 3, scaled, grad)).astype(grad.dtype)


# PyTorch's hardswish_backward (HardswishBackwardBackward0): linear in the gradient, whose
# own derivative in x is the gradient times hardswish's second derivative.
hardswish_backward = primitive(
    "hardswish_backward",
    _hardswish_backward_forward,
    (
        lambda gg, g, x, result: hardswish_backward(gg, x),
        lambda gg, g, x, result: _hardswish_backward_dx(gg, g, x),
    ),
    kind=Generic(
        jvp=lambda tg, tx, g, x, result: tangent_sum(
            None if tg is None else hardswish_backward(tg, x),
            None if tx is None else _hardswish_backward_dx(tx, g, x),
        )
    ),
    saves=("grad_output", "self"),
    inputs=("grad_output", "self"),
    node_name="HardswishBackwardBackward0",
    plain_rules=True,
)


hardswish = unary(
    "hardswish",
    _hardswish_forward,
    d1=_hardswish_d1,
    d2=_hardswish_d2,
    vjp=lambda grad, x, result: hardswish_backward(grad, x),
    node_name="HardswishBackward0",
    plain_rules=True,
)


# ----- hardsigmoid -----

# PyTorch's kernels scale by ``1.0f / 6.0f``, a float32 constant, in every dtype: float64
# gradients are 0.1666666716337204, not 1/6.
_ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))


def _hardsigmoid_forward(x):
    """PyTorch's ``min(max(x + 3, 0), 6) / 6`` (NaN stays NaN)."""
    return (np.minimum(np.maximum(x + 3, 0), 6) / 6).astype(x.dtype, copy=False)


def _hardsigmoid_d1(x):
    return where((x > -3) & (x < 3), _zeros_like(x) + _ONE_SIXTH, 0.0)


def _hardsigmoid_backward_forward(grad, x):
    """``grad / 6`` (by the float32 sixth) inside (-3, 3), else 0 (NaN too)."""
    inside = (x > -3) & (x < 3)
    return _select.where(inside, grad * _ONE_SIXTH, 0).astype(grad.dtype, copy=False)


# PyTorch's hardsigmoid_backward, for which PyTorch defines no derivative: its result
# requires grad, and a second backward through it raises.
hardsigmoid_backward = primitive(
    "hardsigmoid_backward",
    _hardsigmoid_backward_forward,
    kind=NoDerivative(),
    inputs=("grad_output", "self"),
)


hardsigmoid = unary(
    "hardsigmoid",
    _hardsigmoid_forward,
    d1=_hardsigmoid_d1,
    d2=lambda x: _zeros_like(x),
    vjp=lambda grad, x, result: hardsigmoid_backward(grad, x),
    node_name="HardsigmoidBackward0",
    plain_rules=True,
)


# ----- celu -----


def _celu_forward(x, *, alpha):
    """PyTorch's ``elu(x, alpha, scale=1, input_scale=1 / alpha)``."""
    return _elu_forward(x, alpha=alpha, scale=1, input_scale=1.0 / alpha)


def _celu_input_scale(alpha) -> float:
    """PyTorch's derivative of celu scales its input by ``1.0 / alpha.toFloat()``: one over
    alpha rounded to float32 (the forward divides by alpha itself)."""
    return 1.0 / float(np.float32(alpha))


celu = unary(
    "celu",
    _celu_forward,
    # PyTorch's elu_backward with input_scale 1 / alpha (alpha rounded to float32).
    d1=lambda x, *, alpha: _elu_d1(x, alpha=alpha, scale=1, input_scale=_celu_input_scale(alpha)),
    vjp=lambda grad, x, result, *, alpha: elu_backward(
        grad, x, alpha=alpha, scale=1, input_scale=_celu_input_scale(alpha), is_result=False
    ),
    d2=lambda x, *, alpha: _elu_d2(x, alpha=alpha, scale=1, input_scale=_celu_input_scale(alpha)),
    saves=("self", "alpha"),
    node_name="CeluBackward0",
    plain_rules=True,
)
