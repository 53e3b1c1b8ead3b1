"""Refused on purpose: ``torch.nn.quantizable`` holds quantized layers, and leafgrad has no
quantized tensors; the classes exist so imports work, and making one raises
NotImplementedError."""

from __future__ import annotations

from ._quantization import refused_namespace

_REFUSED = ["LSTM", "LSTMCell", "MultiheadAttention"]
globals().update(refused_namespace("torch.nn.quantizable", _REFUSED))
__all__ = list(_REFUSED)
