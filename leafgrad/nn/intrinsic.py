"""Refused on purpose: ``torch.nn.intrinsic`` holds quantized layers, and leafgrad has no
quantized tensors; the classes exist so imports work, and making one raises
NotImplementedError."""

from __future__ import annotations

from ._quantization import refused_namespace

_REFUSED = [
    "ConvBn1d",
    "ConvBn2d",
    "ConvBn3d",
    "ConvBnReLU1d",
    "ConvBnReLU2d",
    "ConvBnReLU3d",
    "ConvReLU1d",
    "ConvReLU2d",
    "ConvReLU3d",
    "LinearReLU",
    "BNReLU2d",
    "BNReLU3d",
    "LinearBn1d",
]
globals().update(refused_namespace("torch.nn.intrinsic", _REFUSED))
__all__ = list(_REFUSED)
