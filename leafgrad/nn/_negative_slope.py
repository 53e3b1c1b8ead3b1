"""The in-place leaky ReLUs (``leaky_relu_``, ``rrelu_`` outside training) with a negative
slope: like PyTorch, they run forward but have no backward, since the input the gradient
needs (its sign) is overwritten and a negative slope flips it."""

from __future__ import annotations

from ..autograd.function import BackwardCFunction, Function


class _NegativeSlopeInPlace(Function):
    """The identity, whose backward raises the error PyTorch raises there."""

    @staticmethod
    def forward(ctx, result, op, slope):
        ctx.op, ctx.slope = op, slope
        return result.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(
            f"{ctx.op}: the in-place leaky ReLU with a negative slope ({ctx.slope}) has no "
            "backward, because it overwrites the input whose sign the gradient needs; "
            "call out-of-place version (leaky_relu / rrelu) instead, or use a slope >= 0"
        )


def _node_class(name: str) -> type:
    """A node class named as PyTorch names the in-place forms' nodes (class and ``name()``)."""
    return type(name, (BackwardCFunction,), {"name": lambda self: name})


class _LeakyReluInPlace(_NegativeSlopeInPlace):
    _backward_cls = _node_class("LeakyReluBackward1")


class _RreluInPlace(_NegativeSlopeInPlace):
    _backward_cls = _node_class("RreluWithNoiseBackward1")


def guard_negative_slope(result, op: str, slope: float):
    """``result``, made to fail in backward when ``slope`` is negative and it has a graph."""
    if slope < 0 and result.requires_grad:
        fn = _LeakyReluInPlace if op == "leaky_relu_" else _RreluInPlace
        return fn.apply(result, op, slope)
    return result


def rrelu_slope(lower: float, upper: float, training: bool) -> float:
    """The slope whose sign decides whether ``rrelu_`` has a backward (PyTorch uses the noise,
    with no such limit, only while training with ``upper - lower > 1e-6``)."""
    if training and upper - lower > 1e-6:
        return 0.0
    return (lower + upper) / 2
