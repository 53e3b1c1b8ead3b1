"""Refused on purpose: ``torch.nn.quantized`` holds quantized layers, and leafgrad has no
quantized tensors; the classes exist so imports work, and making one raises
NotImplementedError."""

from __future__ import annotations

from ._quantization import refused_namespace

_REFUSED = [
    "BatchNorm2d",
    "BatchNorm3d",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "DeQuantize",
    "Dropout",
    "ELU",
    "Embedding",
    "EmbeddingBag",
    "GroupNorm",
    "Hardswish",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LSTM",
    "MultiheadAttention",
    "PReLU",
    "Quantize",
    "ReLU6",
    "Sigmoid",
    "Softmax",
    "FloatFunctional",
    "FXFloatFunctional",
    "QFunctional",
]
globals().update(refused_namespace("torch.nn.quantized", _REFUSED))
__all__ = list(_REFUSED)
