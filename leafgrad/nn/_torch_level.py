"""The layers PyTorch also exposes as ``torch.X`` (``torch.conv2d``, ``torch.dropout`` ...),
with the ATen signatures they have there.

Those differ from ``nn.functional``'s: arguments are positional and often required
(``torch.dropout(input, p, train)``), ``batch_norm`` takes the weights before the running
statistics, ``embedding`` takes the weight first, losses take ``reduction`` as an int (0 none,
1 mean, 2 sum; none by default, as torch.X's Python binding has it) and pools take
``stride=[]`` for "the kernel size". Each is a thin adapter over the ``nn.functional``
implementation; ``X_`` writes the result into its input.
"""

from __future__ import annotations

from .. import Tensor
from .._exposure import FUNCTIONS
from . import functional as F
from ._activation_functions import rrelu_with_generator
from ._dropout_functions import _dropout, _dropout_
from ._rnn_steps import gru_step, lstm_step, rnn_step

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(op: str, reduction) -> str:
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(
            f"{op}(): argument 'reduction' must be int (0 none, 1 mean, 2 sum), not "
            f"{type(reduction).__name__}; torch.{op} takes PyTorch's enum, F.{op} the string"
        )
    if reduction not in _REDUCTIONS:
        raise RuntimeError(
            f"{op}: reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction}"
        )
    return _REDUCTIONS[reduction]


def _stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and not stride) else stride


conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d = F.conv_transpose1d, F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
rms_norm, bilinear = F.rms_norm, F.bilinear
pixel_shuffle, pixel_unshuffle = F.pixel_shuffle, F.pixel_unshuffle
pairwise_distance, cosine_similarity = F.pairwise_distance, F.cosine_similarity
adaptive_avg_pool1d = F.adaptive_avg_pool1d


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled) -> Tensor:  # fmt: skip
    """``F.batch_norm`` with ATen's argument order (weight and bias first)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled) -> Tensor:  # fmt: skip
    """``F.instance_norm`` with ATen's argument order (weight and bias first)."""
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
               cudnn_enable=True) -> Tensor:  # fmt: skip
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,
               cudnn_enabled=True) -> Tensor:  # fmt: skip
    return F.group_norm(input, num_groups, weight, bias, eps)


def _probability(op: str, p) -> None:
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"{op}: dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p, train) -> Tensor:
    """Elementwise dropout; all three arguments required, as ``torch.dropout``."""
    _probability("dropout", p)
    return F.dropout(input, p, train)


def feature_dropout(input, p, train) -> Tensor:
    """Drop whole channels (dim 1) of an input with at least 2 dims."""
    _probability("feature_dropout", p)
    return _dropout(input, p, train, feature=True, alpha=False)


def alpha_dropout(input, p, train) -> Tensor:
    _probability("alpha_dropout", p)
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p, train) -> Tensor:
    _probability("feature_alpha_dropout", p)
    return F.feature_alpha_dropout(input, p, train)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False) -> Tensor:
    """``F.embedding`` with the weight first; a negative ``padding_idx`` means none."""
    padding_idx = None if padding_idx is None or padding_idx < 0 else padding_idx
    return F.embedding(
        indices, weight, padding_idx, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse
    )


def celu(input, alpha=1.0) -> Tensor:
    return F.celu(input, alpha)


def selu(input) -> Tensor:
    return F.selu(input)


def threshold(input, threshold, value) -> Tensor:
    return F.threshold(input, threshold, value)


def rrelu(input, lower=0.125, upper=1.0 / 3, training=False, generator=None) -> Tensor:
    """Randomised leaky ReLU; slopes drawn from ``generator`` (or leafgrad's) in training."""
    return rrelu_with_generator(input, lower, upper, training, generator)


def channel_shuffle(input, groups) -> Tensor:
    """Interleave the channels (dim 1) of ``groups`` groups: (N, g, C/g, *) -> (N, C/g, g, *)."""
    if input.dim() <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


def pdist(input, p=2.0) -> Tensor:
    """The ``p``-norm distance of every pair of rows ``i < j`` of ``input`` (N, M): (N(N-1)/2,)."""
    return F.pdist(input, p)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor:
    r = _reduction("cosine_embedding_loss", reduction)
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=r)


def hinge_embedding_loss(input, target, margin=1.0, reduction=0) -> Tensor:
    r = _reduction("hinge_embedding_loss", reduction)
    return F.hinge_embedding_loss(input, target, margin, reduction=r)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor:
    r = _reduction("margin_ranking_loss", reduction)
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=r)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0) -> Tensor:  # fmt: skip
    r = _reduction("triplet_margin_loss", reduction)
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=r)


def kl_div(input, target, reduction=0, *, log_target=False) -> Tensor:
    """The pointwise KL divergence; reduction 1 is the plain mean (F.kl_div's warning is F's)."""
    r = _reduction("kl_div", reduction)
    if r == "mean":
        return F.kl_div(input, target, reduction="none", log_target=log_target).mean()
    return F.kl_div(input, target, reduction=r, log_target=log_target)


def poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor:
    r = _reduction("poisson_nll_loss", reduction)
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=r)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0) -> Tensor:  # fmt: skip
    r = _reduction("binary_cross_entropy_with_logits", reduction)
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=r, pos_weight=pos_weight
    )


def adaptive_max_pool1d(input, output_size) -> tuple:
    """``(values, indices)``, as ATen's op returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True) -> Tensor:  # fmt: skip
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor:
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False) -> tuple:  # fmt: skip
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor:
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor:
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def constant_pad_nd(input, pad, value=0) -> Tensor:
    """Pad (or, with negative amounts, crop) the last dims by ``pad``, filling with ``value``."""
    return F.pad(input, pad, "constant", value)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> tuple:
    """One LSTM step: ``hx = (h, c)``; returns ``(h', c')``."""
    h, c = hx
    return lstm_step(input, h, c, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    return gru_step(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    return rnn_step(input, hx, w_ih, w_hh, b_ih, b_hh, "tanh")


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    return rnn_step(input, hx, w_ih, w_hh, b_ih, b_hh, "relu")


# In-place twins: the result written into the input, which takes its history.
def _dropout_of(name: str, feature: bool, alpha: bool):
    """PyTorch's ``name`` (``dropout_`` ...): the mask written into the input (``mul_``, then
    ``add_`` for alpha dropout), which is returned."""

    def op(input, p, train) -> Tensor:
        _probability(name, p)
        return _dropout_(input, p, train, feature, alpha)

    op.__name__ = op.__qualname__ = name
    return op


dropout_ = _dropout_of("dropout_", False, False)
feature_dropout_ = _dropout_of("feature_dropout_", True, False)
alpha_dropout_ = _dropout_of("alpha_dropout_", False, True)
feature_alpha_dropout_ = _dropout_of("feature_alpha_dropout_", True, True)
celu_, selu_ = F.celu_, F.selu_  # PyTorch's in-place ops, saving the result
rrelu_, threshold_ = F.rrelu_, F.threshold_  # PyTorch's in-place ops, as F's


_NAMES = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "dropout",
    "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "dropout_", "feature_dropout_",
    "alpha_dropout_", "feature_alpha_dropout_", "embedding", "bilinear", "celu", "celu_", "selu",
    "selu_", "rrelu", "rrelu_", "threshold", "threshold_", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "pdist", "pairwise_distance", "cosine_similarity",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "triplet_margin_loss", "kl_div", "poisson_nll_loss", "binary_cross_entropy_with_logits",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "avg_pool1d", "max_pool1d",
    "max_pool1d_with_indices", "max_pool2d", "max_pool3d", "constant_pad_nd", "lstm_cell",
    "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
]  # fmt: skip
# A name an op module declares public (with its Tensor method, in-place twin ...) stays that
# declaration: only the names no op declares are exported from here.
__all__ = [name for name in _NAMES if name not in FUNCTIONS]
