"""Small ``nn.functional`` ops composed from leafgrad ops: ``one_hot``, ``gumbel_softmax``,
``pdist``, ``channel_shuffle``, ``local_response_norm``; the in-place activations (``relu_``,
``elu_``, ...) are PyTorch's in-place ops, re-exported."""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ..ops import pdist as _pdist
from ..ops._batch_loop import loops_over_examples
from ._activation_functions import hardtanh_, leaky_relu_, relu_, rrelu_, threshold_
from ._elu_inplace import celu_, elu_, selu_

__all__ = [
    "celu_", "channel_shuffle", "conv_tbc", "elu_", "gumbel_softmax", "hardtanh_", "leaky_relu_",
    "local_response_norm", "native_channel_shuffle", "one_hot", "pdist", "relu_", "rrelu_",
    "selu_", "threshold_",
]  # fmt: skip


@loops_over_examples("one_hot", ("tensor",))
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``(*, num_classes)`` int64 with a 1 at each index of the int64 ``tensor``; ``-1``
    infers ``num_classes`` as ``max + 1``."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"one_hot(): argument 'input' must be a Tensor, not {type(tensor).__name__}"
        )
    if tensor.dtype != _lg.int64:
        raise RuntimeError(
            "one_hot is only applicable to index tensor of type LongTensor. Got "
            f"{tensor.dtype}; convert it with .long()"
        )
    values = tensor.numpy()
    if num_classes == -1:
        if values.size == 0:
            raise RuntimeError(
                "Can not infer total number of classes from empty tensor. Pass num_classes"
            )
        num_classes = int(values.max()) + 1
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if values.size and values.max() >= num_classes:
        raise RuntimeError(
            f"Class values must be smaller than num_classes. Got max {int(values.max())} for "
            f"num_classes={num_classes}"
        )
    out = (values[..., None] == np.arange(num_classes)).astype(np.int64)
    return _lg.tensor(out, dtype=_lg.int64)


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """``softmax((logits + g) / tau)`` with Gumbel(0, 1) noise ``g`` from leafgrad's generator;
    ``hard`` returns the one-hot argmax with the soft sample's gradient (straight through)."""
    # Exponential(1) draws as -log(1 - U); the Gumbel sample is -log of them.
    uniform = _lg.rand(*logits.shape, dtype=logits.dtype)
    gumbels = -_lg.log(-_lg.log1p(-uniform))
    soft = _lg.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.argmax(dim, keepdim=True)
    hard_sample = _lg.zeros_like(logits).scatter(dim, index, 1.0)
    return hard_sample - soft.detach() + soft


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The ``p``-norm distances between every pair of rows of ``input`` ``(N, M)``: the
    ``N * (N - 1) / 2`` entries above the diagonal of ``cdist(input, input)``, row by row,
    recorded as PyTorch's (PdistBackward0)."""
    if not isinstance(input, Tensor) or input.dim() != 2:
        shape = list(input.shape) if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"pdist only supports 2D tensors, got: {shape}; pass (N, M) rows")
    if p < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype}")
    if input.dtype == _lg.float16:  # PyTorch's CPU kernel has no half loop
        raise NotImplementedError("\"pdist\" not implemented for 'Half' (use float32)")
    return _pdist.pdist(input, p=p)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Split the channels (dim 1) into ``groups`` and interleave them:
    ``(N, g, C / g, *) -> (N, C / g, g, *)``."""
    if input.dim() < 3:
        raise RuntimeError(
            "channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"sizes {list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and "
            f"{groups} groups."
        )
    rest = input.shape[2:]
    out = input.reshape(input.shape[0], groups, channels // groups, *rest).transpose(1, 2)
    return out.reshape(input.shape)


native_channel_shuffle = channel_shuffle


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """``x / (k + alpha * mean of x^2 over size neighbouring channels)^beta``; the window
    ``[c - size // 2, c + (size - 1) // 2]`` is zero-padded at the edges (input
    ``(N, C, *)``)."""
    if input.dim() < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions); "
            "local_response_norm normalises across channels of (N, C, *)"
        )
    if input.numel() == 0:
        return input
    channels = input.shape[1]
    squares = input * input
    before, after = size // 2, (size - 1) // 2
    zeros = [squares.new_zeros((input.shape[0], n, *input.shape[2:])) for n in (before, after)]
    padded = _lg.cat([zeros[0], squares, zeros[1]], 1)
    window = sum(padded[:, i : i + channels] for i in range(size))
    div = (window * (alpha / size) + k) ** beta
    return input / div


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution of time-batch-channel input ``(T, B, C_in)`` with ``weight``
    ``(k, C_in, C_out)`` and ``bias`` ``(C_out,)``: ``(T', B, C_out)``."""
    if input.dim() != 3 or weight.dim() != 3 or bias.dim() != 1:
        raise RuntimeError(
            "conv_tbc: expected input (T, B, C_in), weight (k, C_in, C_out) and bias (C_out,), "
            f"got {list(input.shape)}, {list(weight.shape)} and {list(bias.shape)}"
        )
    if input.shape[2] != weight.shape[1] or bias.shape[0] != weight.shape[2]:
        raise RuntimeError(
            f"conv_tbc: input channels {input.shape[2]} must equal weight.size(1) "
            f"{weight.shape[1]}, and bias size {bias.shape[0]} weight.size(2) {weight.shape[2]}"
        )
    out = _lg.nn.functional.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)
