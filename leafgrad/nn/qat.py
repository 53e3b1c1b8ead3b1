"""Refused on purpose: ``torch.nn.qat`` holds quantized layers, and leafgrad has no
quantized tensors; the classes exist so imports work, and making one raises
NotImplementedError."""

from __future__ import annotations

from ._quantization import refused_namespace

_REFUSED = ["Linear", "Conv1d", "Conv2d", "Conv3d", "Embedding", "EmbeddingBag"]
globals().update(refused_namespace("torch.nn.qat", _REFUSED))
__all__ = list(_REFUSED)
