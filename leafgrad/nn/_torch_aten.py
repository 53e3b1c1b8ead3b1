"""ATen's multi-output and positional forms of ``nn.functional`` ops, as ``torch.X`` has
them: ``native_layer_norm`` (output, mean, rstd), ``native_batch_norm``,
``native_group_norm``, ``native_dropout`` (output, mask), ``convolution``, ``conv_tbc``,
``grid_sampler``, ``affine_grid_generator``, ``ctc_loss``, ``embedding_bag`` and
``embedding_renorm_``; each built on the ``nn.functional`` implementation (so gradients come
with it), the saved statistics computed alongside.
"""

from __future__ import annotations

import leafgrad as _lg

from .. import Tensor
from .._exposure import FUNCTIONS
from . import functional as F
from ._normalization_functions import layer_norm_with_statistics
from ._torch_level import _reduction, channel_shuffle
from ._torch_rnn import gru, lstm, rnn_relu, rnn_tanh  # noqa: F401  (exported below)


def _stats(x: Tensor, dims: tuple, eps: float):
    mean = x.mean(dims, keepdim=True)
    var = (x - mean).square().mean(dims, keepdim=True)
    return mean, (var + eps).rsqrt()


def native_layer_norm(input, normalized_shape, weight, bias, eps) -> tuple:
    """``(layer_norm(input), mean, rstd)``; the statistics keep the normalised dimensions as
    size 1 and carry no gradient (as PyTorch's)."""
    out, mean, rstd = layer_norm_with_statistics(input, normalized_shape, weight, bias, eps)
    return out, mean.detach(), rstd.detach()


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                      eps) -> tuple:  # fmt: skip
    """``(batch_norm(input), save_mean, save_invstd)``: the batch's per-channel mean and
    1/sqrt(biased var + eps) when ``training``, empty tensors otherwise."""
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = input.new_empty((0,))
        return out, empty, empty.clone()
    dims = (0,) + tuple(range(2, input.dim()))
    with _lg.no_grad():
        mean, invstd = _stats(input, dims, eps)
    return out, mean.reshape(-1), invstd.reshape(-1)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> tuple:
    """``(group_norm(input), mean, rstd)``, the statistics of shape ``(N, group)``."""
    out = F.group_norm(input, group, weight, bias, eps)
    grouped = input.reshape(N, group, -1)
    mean, rstd = _stats(grouped, (2,), eps)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


def native_dropout(input, p, train) -> tuple:
    """``(output, mask)``: the kept elements (bool mask) scaled by 1/(1-p) when training;
    the input and an all-True mask otherwise."""
    if not train or p == 0:
        return input.clone(), _lg.ones(input.shape, dtype=_lg.bool)
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    mask = _lg.rand(input.shape, dtype=input.dtype) >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return input * mask * scale, mask


native_channel_shuffle = channel_shuffle


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups) -> Tensor:  # fmt: skip
    """The one convolution ATen dispatches: ``conv{1,2,3}d`` or ``conv_transpose{1,2,3}d``
    by the input's dimensions and ``transposed``."""
    nd = input.dim() - 2
    if nd not in (1, 2, 3):
        raise RuntimeError(
            f"convolution: expected a (N, C, *spatial) input with 1 to 3 spatial dimensions, "
            f"got shape {tuple(input.shape)}"
        )
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def conv_tbc(input, weight, bias, pad: int = 0) -> Tensor:
    """A 1-D convolution of a (time, batch, channel) input with a (kernel, in, out) weight:
    (time', batch, out)."""
    if input.dim() != 3 or weight.dim() != 3 or bias.dim() != 1:
        raise RuntimeError(
            f"conv_tbc: expected input (T, B, C_in), weight (K, C_in, C_out) and bias (C_out), "
            f"got shapes {tuple(input.shape)}, {tuple(weight.shape)}, {tuple(bias.shape)}"
        )
    out = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def grid_sampler(input, grid, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:  # fmt: skip
    """``F.grid_sample`` with ATen's integer modes (0 bilinear, 1 nearest, 2 bicubic; 0 zeros,
    1 border, 2 reflection)."""
    if interpolation_mode not in (0, 1, 2) or padding_mode not in (0, 1, 2):
        raise RuntimeError(
            f"grid_sampler: interpolation_mode must be 0, 1 or 2 ({', '.join(_INTERPOLATION)}) "
            f"and padding_mode 0, 1 or 2 ({', '.join(_PADDING)}); got {interpolation_mode}, "
            f"{padding_mode}"
        )
    mode, pad = _INTERPOLATION[interpolation_mode], _PADDING[padding_mode]
    return F.grid_sample(input, grid, mode, pad, align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """``grid_sampler`` of a 4-D input."""
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler_2d: expected a 4-D input, got {tuple(input.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """``grid_sampler`` of a 5-D input."""
    if input.dim() != 5:
        raise RuntimeError(f"grid_sampler_3d: expected a 5-D input, got {tuple(input.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid_generator(theta, size, align_corners: bool) -> Tensor:
    """``F.affine_grid`` with ``align_corners`` required."""
    return F.affine_grid(theta, list(size), align_corners)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: int = 1, zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """``F.ctc_loss`` with the reduction as ATen's int (0 none, 1 mean, 2 sum)."""
    reduction = _reduction("ctc_loss", reduction)
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                      zero_infinity)  # fmt: skip


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(weight, indices, offsets, scale_grad_by_freq: bool = False, mode: int = 0,
                  sparse: bool = False, per_sample_weights=None,
                  include_last_offset: bool = False, padding_idx=None) -> tuple:  # fmt: skip
    """``(output, offset2bag, bag_size, max_indices)``: ``output`` is ``F.embedding_bag``'s
    (mode 0 sum, 1 mean, 2 max); the others are each index's bag, each bag's size, and the
    rows ``max`` picked (the bag sizes in other modes), as ATen's CPU kernel returns them."""
    if mode not in (0, 1, 2):
        raise RuntimeError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode}")
    out = F.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                          _BAG_MODES[mode], sparse, per_sample_weights, include_last_offset,
                          padding_idx)  # fmt: skip
    bags = out.shape[0]
    starts = offsets.tolist()[:bags] if offsets is not None else []
    bag_of = [0] * indices.numel()
    for b, s in enumerate(starts):
        for k in range(s, indices.numel()):
            bag_of[k] = b
    flat = indices.reshape(-1).tolist()
    ends = starts[1:] + [indices.numel()]
    sizes = [sum(1 for i in flat[s:e] if i != padding_idx) for s, e in zip(starts, ends)]
    long = _lg.int64
    offset2bag, bag_size = _lg.tensor(bag_of, dtype=long), _lg.tensor(sizes, dtype=long)
    if mode == 0:
        zeros = _lg.zeros(bags, dtype=long)
        if weight.dtype == _lg.float32 and padding_idx is None:  # ATen's fast path keeps none
            offset2bag = _lg.zeros(0, dtype=long)
        return out, offset2bag, zeros, zeros.clone()
    if mode == 1:
        return out, offset2bag, bag_size, bag_size.clone()
    picks = []
    with _lg.no_grad():
        rows = weight[indices.reshape(-1)]
        if padding_idx is not None:  # padding rows never win
            rows = rows.masked_fill(
                (indices.reshape(-1) == padding_idx).unsqueeze(1), -float("inf")
            )
        for s, e in zip(starts, ends):
            picks.append(indices.reshape(-1)[s + rows[s:e].argmax(0)] if e > s else
                         _lg.full((weight.shape[1],), -1, dtype=long))  # fmt: skip
    return out, offset2bag, bag_size, _lg.stack(picks)


def embedding_renorm_(input, indices, max_norm: float, norm_type: float) -> Tensor:
    """Rescales in place (without recording) each row of ``input`` that ``indices`` names whose
    ``norm_type``-norm exceeds ``max_norm`` to norm ``max_norm``; returns ``input``."""
    with _lg.no_grad():
        rows = sorted(set(indices.reshape(-1).tolist()))
        if rows:
            picked = _lg.tensor(rows, dtype=_lg.int64)
            norms = input[picked].norm(norm_type, dim=1, keepdim=True)
            scale = _lg.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            input[picked] = input[picked] * scale
    return input


_NAMES = [
    "native_layer_norm", "native_batch_norm", "native_group_norm", "native_dropout",
    "native_channel_shuffle", "convolution", "conv_tbc", "grid_sampler", "grid_sampler_2d",
    "grid_sampler_3d", "affine_grid_generator", "ctc_loss", "embedding_bag",
    "embedding_renorm_", "lstm", "gru", "rnn_tanh", "rnn_relu",
]  # fmt: skip
__all__ = [name for name in _NAMES if name not in FUNCTIONS]
