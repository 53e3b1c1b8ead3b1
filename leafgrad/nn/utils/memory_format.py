"""``convert_conv2d_weight_memory_format`` / ``3d``: relayout convolution weights."""

from __future__ import annotations

from ... import no_grad
from ..conv import Conv2d, Conv3d
from ..conv_transpose import ConvTranspose2d, ConvTranspose3d
from ..module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module: Module, memory_format, kinds) -> Module:
    if isinstance(module, kinds):
        with no_grad():
            relaid = module.weight.detach().clone().contiguous(memory_format=memory_format)
            module.weight.data = relaid
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: Module, memory_format) -> Module:
    """Lay out the weight of every ``Conv2d``/``ConvTranspose2d`` in ``module`` (recursively)
    in ``memory_format``; returns ``module``."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: Module, memory_format) -> Module:
    """Lay out the weight of every ``Conv3d``/``ConvTranspose3d`` in ``module`` (recursively)
    in ``memory_format``; returns ``module``."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
