"""The in-place ELUs (``elu_``, ``selu_``, ``celu_``) as PyTorch's ops: their nodes
(EluBackward1, CeluBackward1) save the result, which the write leaves intact (not a copy of
the input), and their rule is ``elu_backward`` from that result (``is_result``), whose own
derivative is then ``gg grad input_scale`` times ``result < 0``."""

from __future__ import annotations

from ..ops._primitive import unary
from ..ops.activations import _elu_forward, elu_backward
from ..ops.inplace import inplace
from ..ops.piecewise import where
from ._activation_ops import _SELU_ALPHA, _SELU_SCALE, _celu_forward, _celu_input_scale
from ._kernel_dtype import _check_kernel_dtype


def _elu_d1(x, result, *, alpha, scale, input_scale):
    """The derivative from the result, as PyTorch's forward mode for the in-place ops too
    (``input_scale (result + alpha scale)`` where ``result <= 0``, else ``scale``): celu's
    rounded ``input_scale`` makes it differ from the input's slightly."""
    return where(result <= 0, input_scale * (result + alpha * scale), scale)


def _elu_d2(x, result, *, alpha, scale, input_scale):
    """``_elu_d1``'s derivative: ``input_scale`` times it where ``result < 0``."""
    return where(result < 0, input_scale * input_scale * (result + alpha * scale), 0.0)


_elu_on_result = unary(
    "elu_",
    _elu_forward,
    d1=_elu_d1,
    d2=_elu_d2,
    vjp=lambda grad, x, result, **params: elu_backward(grad, result, is_result=True, **params),
    saves=("result", "alpha", "scale", "input_scale"),
    node_name="EluBackward1",
    plain_rules=True,
)


def _celu_d(d):
    """``d`` (``_elu_d1`` or ``_elu_d2``) with celu's scales."""
    return lambda x, result, *, alpha: d(
        x, result, alpha=alpha, scale=1, input_scale=_celu_input_scale(alpha)
    )


_celu_on_result = unary(
    "celu_",
    _celu_forward,
    d1=_celu_d(_elu_d1),
    d2=_celu_d(_elu_d2),
    # PyTorch's: elu_backward(grad, alpha, 1, 1.0 / alpha.toFloat(), true, result)
    vjp=lambda grad, x, result, *, alpha: elu_backward(
        grad, result, alpha=alpha, scale=1, input_scale=_celu_input_scale(alpha), is_result=True
    ),
    saves=("result", "alpha"),
    node_name="CeluBackward1",
    plain_rules=True,
)


def _elu(input, alpha=1.0):
    _check_kernel_dtype("elu_", input)
    return _elu_on_result(input, alpha=alpha, scale=1, input_scale=1)


def _selu(input):
    _check_kernel_dtype("selu_", input)
    return _elu_on_result(input, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1)


def _celu(input, alpha=1.0):
    _check_kernel_dtype("celu_", input)
    if alpha == 0:
        raise RuntimeError("celu_: alpha must not be 0 (the input is divided by it)")
    return _celu_on_result(input, alpha=alpha)


elu_ = inplace(_elu, "elu_")
selu_ = inplace(_selu, "selu_")
celu_ = inplace(_celu, "celu_")
