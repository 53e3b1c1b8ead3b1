"""``nn.functional``: the layers and losses as functions (``import leafgrad.nn.functional as F``).

``inplace=True`` is accepted for PyTorch compatibility but the result is always a new tensor
(leafgrad has no in-place ops yet); the input is left unchanged.
"""

from __future__ import annotations

import math

import leafgrad as _lg

from .. import Tensor
from .._engine.grad_mode import SPECIAL as _SPECIAL
from .._engine.grad_mode import _state as _grad_state
from .._tensor import _wrap
from ..ops import _primitive
from ..ops.linalg import _shape_mismatch_words, _t
from ..ops.linalg import addmm as _public_addmm
from . import grad
from ._activation_functions import (
    celu,
    elu,
    gelu,
    glu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    log_softmax,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu6,
    rrelu,
    selu,
    sigmoid,
    silu,
    softmax,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
)
from ._attention_functions import multi_head_attention_forward, scaled_dot_product_attention
from ._conv_functions import conv1d, conv2d, conv3d
from ._conv_transpose_functions import conv_transpose1d, conv_transpose2d, conv_transpose3d
from ._ctc_functions import ctc_loss
from ._dropout_functions import (
    _dropout_,
    alpha_dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from ._embedding_bag_functions import embedding_bag
from ._fold_functions import fold, unfold
from ._fractional_pool_functions import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from ._functional_internals import (
    BroadcastingList1,
    BroadcastingList2,
    BroadcastingList3,
    DType,
    ScalingType,
    SwizzleType,
    assert_int_or_pair,
    boolean_dispatch,
    grouped_mm,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
    reproducibility_notes,
    scaled_grouped_mm,
    scaled_mm,
    sparse_support_notes,
    tf32_notes,
)
from ._grid_functions import (
    GRID_SAMPLE_INTERPOLATION_MODES,
    GRID_SAMPLE_PADDING_MODES,
    affine_grid,
    grid_sample,
)
from ._interpolate_functions import (
    interpolate,
    pixel_shuffle,
    pixel_unshuffle,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from ._layer_functions import bilinear, cosine_similarity, embedding, pad, pairwise_distance
from ._linear_cross_entropy import linear_cross_entropy
from ._loss_functions import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from ._loss_functions_extra import multilabel_margin_loss, triplet_margin_with_distance_loss
from ._loss_functions_more import (
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    kl_div,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
)
from ._misc_functions import (
    celu_,
    channel_shuffle,
    conv_tbc,
    elu_,
    gumbel_softmax,
    hardtanh_,
    leaky_relu_,
    local_response_norm,
    native_channel_shuffle,
    one_hot,
    pdist,
    relu_,
    rrelu_,
    selu_,
    threshold_,
)
from ._normalization_functions import (
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    normalize,
    rms_norm,
)
from ._pooling_functions import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
)
from ._unpool_functions import max_unpool1d, max_unpool2d, max_unpool3d

__all__ = [
    "batch_norm", "bilinear", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "celu", "conv1d", "conv2d", "conv3d", "cosine_similarity", "cross_entropy", "dropout",
    "elu", "embedding", "gelu", "glu", "group_norm", "hardshrink", "hardsigmoid", "hardswish",
    "hardtanh", "huber_loss", "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax",
    "logsigmoid", "mish", "mse_loss", "nll_loss", "normalize", "pad", "pairwise_distance",
    "prelu", "relu", "relu6", "rms_norm", "rrelu", "selu", "sigmoid", "silu", "smooth_l1_loss",
    "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh", "tanhshrink",
    "threshold",
]  # fmt: skip
__all__ += [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "alpha_dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
    "instance_norm",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "interpolate",
    "pixel_shuffle",
    "pixel_unshuffle",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
    "cosine_embedding_loss", "gaussian_nll_loss", "hinge_embedding_loss", "kl_div",
    "margin_ranking_loss", "multi_margin_loss", "multilabel_soft_margin_loss",
    "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss",
]  # fmt: skip
__all__ += [
    "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "affine_grid", "celu_",
    "channel_shuffle", "elu_", "fold", "grid_sample", "gumbel_softmax", "hardtanh_",
    "leaky_relu_", "local_response_norm", "multi_head_attention_forward",
    "native_channel_shuffle", "one_hot", "pdist", "relu_", "rrelu_",
    "scaled_dot_product_attention", "selu_", "threshold_", "unfold", "multilabel_margin_loss",
    "triplet_margin_with_distance_loss", "embedding_bag", "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices", "ctc_loss", "grad", "conv_tbc", "linear_cross_entropy",
]  # fmt: skip


_addmm = _public_addmm._without_out


def _require_tensor(op: str, value, what: str = "input") -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{what}' must be a Tensor, not {type(value).__name__}")


def _weight_t(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """``weight.t()`` for linear's addmm: the op (a view, its TBackward0 node) where a graph
    or a mode (vmap, dual levels, a profiler ...) could see it; where nothing is recorded, a
    bare tensor around the transposed array (requiring grad as the view would), which spares
    the view's bookkeeping, ~3 us of a small call's ~10."""
    plain = (Tensor, _primitive._PARAMETER)
    if (
        _SPECIAL[0]
        or type(input) not in plain
        or type(weight) not in plain
        or type(bias) not in plain
        or (
            _grad_state.enabled
            and (input._requires_grad or weight._requires_grad or bias._requires_grad)
        )
    ):
        return _t(weight)
    return _wrap(weight._data.T, weight._requires_grad)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``; input ``(*, in)``, weight ``(out, in)`` or ``(in,)``, bias
    ``(out,)``."""
    _require_tensor("linear", input)
    _require_tensor("linear", weight, "weight")
    in_shape, weight_shape = input._data.shape, weight._data.shape  # (not .shape: a Size each)
    if not in_shape or not weight_shape:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{input.dim()}D and {weight.dim()}D"
        )
    if in_shape[-1] != weight_shape[-1]:
        transposed = (weight.shape[-1], weight.shape[0] if weight.dim() == 2 else 1)
        raise RuntimeError(
            f"{_shape_mismatch_words(tuple(input.shape), transposed)} (linear: input of shape "
            f"{list(input.shape)} cannot be multiplied by the transpose of weight of shape "
            f"{list(weight.shape)}; the input's last dimension must equal the weight's "
            "in_features, its last dimension)"
        )
    if bias is not None and len(in_shape) == 2 and len(weight_shape) == 2:
        # One node, as PyTorch's AddmmBackward0: addmm (its checks, without the public
        # wrappers for out= and NumPy's keyword names) of the weight's transpose.
        return _addmm(bias, input, _weight_t(input, weight, bias))
    if (
        bias is not None
        and weight.dim() == 2
        and input.is_contiguous()
        and (input.dim() == 3 or bias.dim() == 1)
    ):
        # PyTorch's _flatten_nd_linear: the rows of a contiguous input through one addmm,
        # viewed back (a 1-D input as one row).
        *lead, k = input.shape
        rows = _lg.addmm(bias, input.reshape(math.prod(lead), k), weight.t())
        return rows.view(*lead, weight.shape[0])
    out = _lg.matmul(input, weight.t() if weight.dim() == 2 else weight)
    return out if bias is None else out + bias


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; identity
    when not ``training``. The mask comes from leafgrad's generator (``manual_seed``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    _require_tensor("dropout", input)
    if inplace:
        return _dropout_(input, p, training, False, False)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _lg.rand(*input.shape, dtype=_lg.float64) < (1.0 - p)
    return input * (keep.to(input.dtype) * (1.0 / (1.0 - p)))


__all__ += [
    "BroadcastingList1",
    "BroadcastingList2",
    "BroadcastingList3",
    "DType",
    "ScalingType",
    "SwizzleType",
    "assert_int_or_pair",
    "boolean_dispatch",
    "grouped_mm",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "reproducibility_notes",
    "scaled_grouped_mm",
    "scaled_mm",
    "sparse_support_notes",
    "tf32_notes",
]
