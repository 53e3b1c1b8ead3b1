"""``rrelu`` as PyTorch records it: ``rrelu_with_noise`` (RreluWithNoiseBackward0) and its
backward op (RreluWithNoiseBackwardBackward0), in training and outside it.

While training, each element at or below zero takes a slope ``r ~ U(lower, upper)`` drawn as
PyTorch's CPU kernel draws it (one 64-bit word per such element, in order: on PyTorch's
stream the same values for the same seed), and the slopes, 1 elsewhere, are the ``noise``
the backward multiplies the gradient by. Outside training it is leaky_relu with slope
``(lower + upper) / 2``.
"""

from __future__ import annotations

import numpy as np

from .._tensor import _zeros_like
from .._torch_stream import TorchStream
from ._optable import PiecewiseLinear
from ._primitive import primitive
from .activations import _leaky_relu_forward, _threshold_backward_forward


def noise(rng, x: np.ndarray, lower: float, upper: float) -> np.ndarray:
    """The slopes of a training ``rrelu`` of ``x``: ``U(lower, upper)`` where ``x <= 0``, 1
    elsewhere (NaN too). On PyTorch's stream its kernel's values: ``uniform_real_distribution
    <double>(lower, upper)`` (bounds first rounded to the dtype's compute type) of one 64-bit
    word each, ``u (upper - lower) + lower`` in float64 (not contracted to a fused
    multiply-add here, unlike ``uniform_``'s), then rounded to the dtype; another NumPy
    generator draws with NumPy's ``uniform``."""
    low = np.asarray(x <= 0)
    out = np.ones(x.shape, x.dtype)
    n = int(np.count_nonzero(low))
    if isinstance(rng, TorchStream):
        lo, hi = (np.float64(x.dtype.type(v)) for v in (lower, upper))  # float32: opmath
        slopes = rng._unit(n, np.float64) * (hi - lo) + lo
    else:
        slopes = rng.uniform(lower, upper, n)
    out[low] = slopes.astype(x.dtype)
    return out


def _forward(x, *, noise, lower, upper, training):
    if training:
        return x * noise  # x where the slope is 1 (positive x, NaN), x r at or below zero
    return _leaky_relu_forward(x, negative_slope=(lower + upper) / 2)


def _backward_forward(grad, x, *, noise, lower, upper, training):
    if training:  # the noise, whatever the spread of the bounds (as PyTorch 2.13's)
        return grad * noise
    slope = (lower + upper) / 2
    return _threshold_backward_forward(grad, x, negative_slope=slope)


rrelu_with_noise_backward = primitive(
    "rrelu_with_noise_backward",
    _backward_forward,
    (
        lambda gg, grad, x, result, **params: rrelu_with_noise_backward(gg, x, **params),
        lambda gg, grad, x, result, **params: _zeros_like(x),
    ),
    kind=PiecewiseLinear(),
    inputs=("grad_output", "self"),
    saves=("self", "noise", "lower", "upper", "training"),
    node_name="RreluWithNoiseBackwardBackward0",
    dtype_rule="keep",
    plain_rules=True,
)

rrelu_with_noise = primitive(
    "rrelu_with_noise",
    _forward,
    (lambda grad, x, result, **params: rrelu_with_noise_backward(grad, x, **params),),
    kind=PiecewiseLinear(),
    saves=("self", "noise", "lower", "upper", "training"),
    node_name="RreluWithNoiseBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


__all__: list = []
