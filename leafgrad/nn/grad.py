"""``torch.nn.grad``: the gradients of a convolution with respect to its input and weight,
computed by differentiating the convolution itself (so they are differentiable too)."""

from __future__ import annotations

import leafgrad as _lg

from .. import Tensor
from ._conv_functions import conv1d, conv2d, conv3d

__all__ = [
    "conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
    "conv3d_weight",
]  # fmt: skip


def _probe_grad(conv, what: str, size, input, weight, grad_output, *args):
    """The gradient of ``conv`` with respect to its ``what`` ("input" or "weight") of shape
    ``size``: a zero probe of that shape stands in for it and is differentiated."""
    probe = _lg.zeros(tuple(size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(probe, weight, None, *args) if what == "input" else conv(input, probe, None, *args)
    if tuple(out.shape) != tuple(grad_output.shape):
        raise RuntimeError(
            f"conv {what} gradient: grad_output has shape {list(grad_output.shape)}, but the "
            f"convolution with {what} size {list(size)} gives {list(out.shape)}"
        )
    return _lg.autograd.grad(out, probe, grad_output, create_graph=True)[0]


def _input_grad(conv, input_size, weight, grad_output, *args):
    return _probe_grad(conv, "input", input_size, None, weight, grad_output, *args)


def _weight_grad(conv, input, weight_size, grad_output, *args):
    return _probe_grad(conv, "weight", weight_size, input, None, grad_output, *args)


def conv1d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0,
                 dilation=1, groups=1) -> Tensor:  # fmt: skip
    """Gradient of ``conv1d`` with respect to an input of ``input_size``."""
    return _input_grad(conv1d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)  # fmt: skip


def conv1d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0,
                  dilation=1, groups=1) -> Tensor:  # fmt: skip
    """Gradient of ``conv1d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(conv1d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)  # fmt: skip


def conv2d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0,
                 dilation=1, groups=1) -> Tensor:  # fmt: skip
    """Gradient of ``conv2d`` with respect to an input of ``input_size``."""
    return _input_grad(conv2d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)  # fmt: skip


def conv2d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0,
                  dilation=1, groups=1) -> Tensor:  # fmt: skip
    """Gradient of ``conv2d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(conv2d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)  # fmt: skip


def conv3d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0,
                 dilation=1, groups=1) -> Tensor:  # fmt: skip
    """Gradient of ``conv3d`` with respect to an input of ``input_size``."""
    return _input_grad(conv3d, input_size, weight, grad_output, stride, padding, dilation,
                       groups)  # fmt: skip


def conv3d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0,
                  dilation=1, groups=1) -> Tensor:  # fmt: skip
    """Gradient of ``conv3d`` with respect to a weight of ``weight_size``."""
    return _weight_grad(conv3d, input, weight_size, grad_output, stride, padding, dilation,
                        groups)  # fmt: skip
