"""The in-place activations PyTorch records with nodes of their own (derivatives.yaml entries
for the in-place op): ``leaky_relu_`` (LeakyReluBackward1) and ``rrelu_`` (its
``rrelu_with_noise_``, RreluWithNoiseBackward1) save the result, whose sign is the input's for
a slope >= 0, and refuse a backward with a negative one; ``threshold_`` (ThresholdBackward1)
saves the input (a copy from before the write) and the threshold, not the value."""

from __future__ import annotations

from ..ops._optable import PiecewiseLinear
from ..ops._primitive import primitive
from ..ops.activations import _leaky_relu_forward, leaky_relu_backward, threshold_backward
from ..ops.rrelu import _forward as _rrelu_forward
from ..ops.rrelu import rrelu_with_noise_backward
from ..ops.shrink import _threshold_forward


def _refuse_negative_slope(slope) -> None:
    """PyTorch's leaky_relu_backward from a result: a negative slope flipped its sign."""
    if slope < 0:
        # PyTorch's words first: tests match "call out-of-place version"
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            "is not supported. This is caused by calling in-place forward function with a "
            "negative slope, please call out-of-place version instead (leaky_relu / rrelu): "
            f"with slope {slope} the result's sign no longer tells where the input was negative."
        )


def _leaky_relu_vjp(grad, x, result, *, negative_slope):
    _refuse_negative_slope(negative_slope)
    return leaky_relu_backward(grad, result, negative_slope=negative_slope)


leaky_relu_on_result = primitive(
    "leaky_relu_",
    _leaky_relu_forward,
    (_leaky_relu_vjp,),
    kind=PiecewiseLinear(),
    saves=("result", "negative_slope"),
    node_name="LeakyReluBackward1",
    dtype_rule="float",
    plain_rules=True,
)


def _rrelu_vjp(grad, x, result, *, noise, lower, upper, training):
    if not training:  # the mean slope: leaky_relu_backward from the result
        _refuse_negative_slope((lower + upper) / 2)
    return rrelu_with_noise_backward(
        grad, result, noise=noise, lower=lower, upper=upper, training=training
    )


rrelu_with_noise_on_result = primitive(
    "rrelu_with_noise_",
    _rrelu_forward,
    (_rrelu_vjp,),
    kind=PiecewiseLinear(),
    saves=("result", "noise", "lower", "upper", "training"),
    node_name="RreluWithNoiseBackward1",
    dtype_rule="keep",
    plain_rules=True,
)


def _threshold_vjp(grad, x, result, *, threshold, value):
    return threshold_backward(grad, x, threshold=threshold)


threshold_on_input = primitive(
    "threshold_",
    _threshold_forward,
    (_threshold_vjp,),
    kind=PiecewiseLinear(),
    saves=("self", "threshold"),
    node_name="ThresholdBackward1",
    dtype_rule="keep",
    plain_rules=True,
)


__all__: list = []
