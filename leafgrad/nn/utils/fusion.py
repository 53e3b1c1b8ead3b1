"""Folding an eval-mode batch norm into the convolution or linear layer before it."""

from __future__ import annotations

import copy

from ... import Tensor, no_grad, rsqrt, zeros_like
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
]  # fmt: skip


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """``(weight, bias)`` of one convolution equal to ``conv`` then eval-mode batch norm."""
    dtype = conv_w.dtype
    conv_b = zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = bn_w if bn_w is not None else bn_rm.new_ones(tuple(bn_rm.shape))
    bn_b = bn_b if bn_b is not None else zeros_like(bn_rm)
    scale = bn_w * rsqrt(bn_rv + bn_eps)
    shape = [1] * conv_w.dim()
    shape[1 if transpose else 0] = -1
    weight = (conv_w * scale.reshape(shape)).to(dtype)
    bias = ((conv_b - bn_rm) * scale + bn_b).to(conv_b.dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` computing ``bn(conv(x))`` (both in eval mode)."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fuse_conv_bn_eval: the batch norm must track running stats")
    with no_grad():
        fused.weight, fused.bias = fuse_conv_bn_weights(
            fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight,
            bn.bias, transpose,
        )  # fmt: skip
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """``(weight, bias)`` of one linear layer equal to ``linear`` then eval-mode batch norm."""
    linear_b = zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * rsqrt(bn_rv + bn_eps)
    weight = linear_w * scale.unsqueeze(-1)
    bias = (linear_b - bn_rm) * scale + bn_b
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` computing ``bn(linear(x))`` (both in eval mode)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features must equal bn.num_features or bn.num_features must be 1"
        )
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("fuse_linear_bn_eval: the batch norm must track running stats")
    fused = copy.deepcopy(linear)
    with no_grad():
        fused.weight, fused.bias = fuse_linear_bn_weights(
            fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
        )
    return fused
