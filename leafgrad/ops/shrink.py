"""``softshrink``, ``hardshrink`` and ``threshold`` as ops of their own, recorded as PyTorch
records them (SoftshrinkBackward0, HardshrinkBackward0, ThresholdBackward0, saving the input
and the parameters). Their backwards are ops too (``softshrink_backward``,
``hardshrink_backward``, and relu's ``threshold_backward`` given the threshold): a gate on
the input that passes the gradient or gives 0, whose own derivative is the same gate in the
incoming gradient and zeros in the input, as in PyTorch's derivatives.yaml.

Forwards follow PyTorch's CPU kernels: a NaN input stays NaN (softshrink's middle branch is
``x * 0``); its gradient is 0 through the shrinks (their vectorised gate) and passes through
threshold (its gate is ``x <= threshold``, which a NaN fails).
"""

from __future__ import annotations

import numpy as np

from . import _select
from ._optable import PiecewiseLinear
from ._primitive import primitive
from .activations import gate_backward, threshold_backward  # (relu's, given the threshold)


def _as_dtype(value, x):
    return np.asarray(value, x.dtype)


def _softshrink_forward(x, *, lambd):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else ``x * 0``."""
    lo = _select.where(x < -lambd, x + _as_dtype(lambd, x), x * _as_dtype(0, x))
    return _select.where(x > lambd, x - _as_dtype(lambd, x), lo).astype(x.dtype, copy=False)


def _hardshrink_forward(x, *, lambd):
    """0 on ``[-lambd, lambd]``, else ``x``."""
    inside = (x >= -lambd) & (x <= lambd)
    return _select.where(inside, _as_dtype(0, x), x).astype(x.dtype, copy=False)


def _threshold_forward(x, *, threshold, value):
    """``value`` where ``x <= threshold``, else ``x``."""
    return _select.where(x <= threshold, _as_dtype(value, x), x).astype(x.dtype, copy=False)


def _shrink_backward_forward(grad, x, *, lambd):
    """PyTorch's shrink_backward kernel, vectorised: ``grad`` where ``x < -lambd`` or ``x >
    lambd``, else 0 (a NaN input too: its scalar loop, which runs only an array's last
    elements, would pass ``grad``)."""
    outside = (x < -lambd) | (x > lambd)
    return _select.where(outside, grad, _as_dtype(0, grad)).astype(grad.dtype, copy=False)


softshrink_backward = gate_backward(
    "softshrink_backward",
    "SoftshrinkBackwardBackward0",
    ("self", "lambd"),
    _shrink_backward_forward,
)
hardshrink_backward = gate_backward(
    "hardshrink_backward",
    "HardshrinkBackwardBackward0",
    ("self", "lambd"),
    _shrink_backward_forward,
)


def _activation(name: str, node_name: str, forward, backward, saves: tuple):
    return primitive(
        name,
        forward,
        (lambda grad, x, result, **params: backward(grad, x, **_gate_params(params)),),
        kind=PiecewiseLinear(),
        saves=("self", *saves),
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )


def _gate_params(params: dict) -> dict:
    """The forward's parameters the backward takes (threshold's ``value`` is not one)."""
    return {k: v for k, v in params.items() if k != "value"}


softshrink = _activation(
    "softshrink", "SoftshrinkBackward0", _softshrink_forward, softshrink_backward, ("lambd",)
)
hardshrink = _activation(
    "hardshrink", "HardshrinkBackward0", _hardshrink_forward, hardshrink_backward, ("lambd",)
)
threshold = _activation(
    "threshold",
    "ThresholdBackward0",
    _threshold_forward,
    threshold_backward,
    ("threshold",),  # (its value is no save of PyTorch's node: the backward never reads it)
)


__all__: list = []
