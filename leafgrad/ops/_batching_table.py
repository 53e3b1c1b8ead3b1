"""Which batching rule each primitive gets (the rules: ``_batching.py``, ``_batch_*.py``), and
the dispatch every primitive call with a BatchedTensor among its arguments goes through.

The table is built from the registry on first use: elementwise kinds (Unary,
PiecewiseLinear, broadcasting NonDifferentiable ops) get the pointwise rule, the rest are
listed by key. ``NO_RULE`` names the primitives without one and why; a guard test fails for
a registered key in neither.
"""

from __future__ import annotations

import inspect

from .._batched import BatchedTensor
from ._batch_dims import (
    col2im,
    diagonal_backward,
    dims_of_every_operand,
    flat_index,
    flattened,
    full_extreme,
    im2col,
    joined,
    new_shape,
    permute,
    repeat,
    sum_to,
    transpose_2d,
    unfold,
    unfold_backward,
    unsqueeze,
    whole_median,
    with_dims,
)
from ._batch_index import (
    at_positions,
    backward_of_view,
    flat_positions,
    gather,
    index_put,
    index_put_impl,
    index_rule,
    index_slices,
    masked_fill_tensor,
    nll_loss,
    overwrite,
    regions,
    scatter,
    taken_at,
)
from ._batch_loop import per_example
from ._batch_products import (
    addmm,
    einsum_rule,
    jet_linear_backward_rule,
    jet_linear_rule,
    jet_outer_rule,
    matmul_rule,
    solve,
    trailing,
)
from ._batching import as_composite, pointwise, pointwise_all_batched
from ._optable import REGISTRY, NonDifferentiable, PiecewiseLinear, Unary

RULES: dict = {}  # "name.overload" -> rule, built on first use (the registry fills on import)
NO_RULE: dict = {
    "linalg_lstsq": "never meets a batched tensor: linalg.lstsq() batches as a whole (its "
    "rank and singular values come from values; ops/_batch_whole.py)",
    "linalg_pinv.atol_rtol_tensor": "never meets a batched tensor: linalg.pinv() batches as a "
    "whole (its tolerances come from values; ops/_batch_whole.py)",
    "histogram.bin_ct": "never meets a batched tensor: histogram() batches as a whole (its "
    "edges come from each example's range; ops/_batch_binning.py)",
    "histogram.bins_tensor": "never meets a batched tensor: histogram() batches as a whole "
    "(ops/_batch_binning.py)",
    "_scaled_dot_product_flash_attention_for_cpu_backward": "never meets a batched tensor: "
    "the flash op's rule computes from leafgrad ops when an operand is batched "
    "(nn/_flash_attention_op.py)",
    "bincount": "its length depends on each example's largest value",
    "_unique2": "its length depends on each example's values",
    "unique_dim": "its length depends on each example's values",
    "unique_consecutive": "its length depends on each example's values",
}
# The fused Taylor path's kernels (jet_kernels.py, jet_activations.py, jet_dense.py,
# jet_values.py): called
# only inside a Taylor pass on packed derivative channels, which vmap does not batch yet.
NO_RULE.update(
    {
        key: "not batched yet: a fused Taylor kernel, called only by a Taylor pass"
        for key in (
            "jet_unary",
            "jet_unary_backward",
            "jet_act",
            "jet_act_backward",
            "jet_dense",
            "jet_dense_backward",
            "jet_act_value",
            "jet_linear_value",
            "jet_addmm_value",
        )
    }
)


_POSITIONAL_PARAMS = {"dim", "dims", "index", "indices", "shape", "key", "view_fn"}


def _names_positions(forward) -> bool:
    """Whether a forward takes parameters that name dims or places (then its kind does not
    make it elementwise: it needs a rule of its own)."""
    try:
        names = inspect.signature(forward).parameters
    except (TypeError, ValueError):  # a NumPy ufunc: elementwise
        return False
    return bool(_POSITIONAL_PARAMS & set(names))


def rules() -> dict:
    """The batching rules by registry key (built once)."""
    if RULES:
        return RULES
    _POINTWISE_EXTRA = (
        "add.Tensor", "sub.Tensor", "rsub.Tensor", "rsub.Scalar", "mul.Tensor", "neg", "clone",
        "mul.Scalar", "add.Scalar", "sub.Scalar", "div.Scalar",
        "to", "alias", "masked_fill.Scalar", "masked_fill.Tensor", "where.self", "isclose",
        "pow.Scalar", "pow.Tensor_Tensor", "div.Tensor", "threshold_backward",
        "tanh_backward", "sigmoid_backward",
    )  # fmt: skip

    for _key, _prim in REGISTRY.items():
        elementwise_kind = type(_prim.kind) in (Unary, PiecewiseLinear) or (
            type(_prim.kind) is NonDifferentiable and _prim.broadcast
        )
        if elementwise_kind and not _names_positions(_prim.forward):
            RULES[_key] = pointwise
    for _key in _POINTWISE_EXTRA:
        RULES[_key] = pointwise
    for _key in (
        "isfinite", "isinf", "isnan", "isneginf", "isposinf", "logical_not", "bitwise_not",
        "floor_divide", "remainder.Scalar_Tensor", "atan2", "igamma", "igammac", "special_zeta",
        "special_zeta.other_scalar", "special_zeta.self_scalar", "special_xlog1py",
        "special_xlog1py.other_scalar", "special_xlog1py.self_scalar", "xlogy.Tensor",
        "xlogy.Scalar_Other", "xlogy.Scalar_Self", "special_airy_ai", "special_bessel_j0",
        "special_bessel_j1", "special_bessel_y0", "special_bessel_y1",
        "special_modified_bessel_i0", "special_modified_bessel_i1", "special_modified_bessel_k0",
        "special_modified_bessel_k1", "special_scaled_modified_bessel_k0",
        "special_scaled_modified_bessel_k1", "special_spherical_bessel_j0",
    ):  # fmt: skip
        RULES[_key] = pointwise

    for _key in (
        "sum", "sum.dim_IntList", "mean", "mean.dim", "amax", "amin", "all", "any", "logsumexp",
        "prod.dim_int", "norm", "norm.ScalarOpt_dim", "var.correction", "std.correction",
        "max.dim", "min.dim",
        "cumsum", "softmax", "log_softmax", "unbind.int", "select.int", "slice.Tensor",
        "split.Tensor", "split_with_sizes", "index_select", "flip", "unsafe_split.Tensor",
        "unsafe_split_with_sizes",
    ):  # fmt: skip
        RULES[_key] = with_dims("dim", "dims")
    RULES["transpose.int"] = with_dims("dim0", "dim1")
    RULES["_softmax_backward_data"] = dims_of_every_operand
    RULES["_log_softmax_backward_data"] = dims_of_every_operand
    RULES["unsqueeze"] = unsqueeze
    RULES["unfold"], RULES["unfold_backward"] = unfold, unfold_backward
    RULES["multi_margin_loss_backward"] = per_example
    RULES["argmax"] = RULES["argmin"] = flat_index
    RULES["max"] = RULES["min"] = full_extreme
    RULES["median"] = RULES["nanmedian"] = whole_median
    for _key in ("view", "_reshape_alias", "_unsafe_view", "squeeze", "squeeze.dim",
                 "squeeze.dims", "expand"):  # fmt: skip
        RULES[_key] = new_shape
    for _key in (
        "mse_loss", "mse_loss_backward", "huber_loss", "huber_loss_backward", "smooth_l1_loss",
        "smooth_l1_loss_backward", "binary_cross_entropy", "binary_cross_entropy_backward",
        "binary_cross_entropy_with_logits", "addmv", "addr", "baddbmm", "dist",
        "renorm", "var_mean.correction", "std_mean.correction",
        "linalg_cross", "_cdist_forward", "_euclidean_dist", "masked_select",
    ):  # fmt: skip
        RULES[_key] = as_composite
    RULES["nll_loss"] = RULES["nll_loss2d"] = nll_loss
    RULES["sum_to"] = sum_to
    RULES["repeat"] = repeat
    RULES["permute"] = permute
    RULES["t"] = transpose_2d
    RULES["index.Tensor"] = index_rule
    RULES["index_put_impl"] = index_put_impl
    RULES["index_put"] = RULES["index_put.accumulate"] = index_put
    for _key in ("select_backward", "slice_backward", "index_select_backward", "gather_backward"):
        RULES[_key] = backward_of_view
    for _key in (
        "index_add", "index_copy", "index_fill.int_Scalar", "index_fill.int_Tensor", "scatter_add",
    ):  # fmt: skip
        RULES[_key] = index_slices
    for _key in ("take", "take_backward", "put"):
        RULES[_key] = flat_positions
    RULES["gather"] = gather
    RULES["sort"] = RULES["sort.stable"] = RULES["topk"] = taken_at
    RULES["cummax"] = RULES["cummin"] = taken_at
    RULES["as_strided"] = at_positions
    RULES["jet_linear"] = jet_linear_rule
    RULES["jet_outer"] = jet_outer_rule
    RULES["jet_linear_backward"] = jet_linear_backward_rule
    RULES["cat"] = RULES["stack"] = joined
    for _key in ("matmul", "matmul.clone", "mm", "mv", "bmm", "dot", "vecmat"):
        RULES[_key] = matmul_rule
    RULES["addmm"] = addmm
    RULES["prod"] = RULES["roll"] = flattened
    for _key in ("overwrite", "fill.Tensor"):
        RULES[_key] = overwrite
    RULES["fill.Scalar"] = RULES["zero"] = pointwise  # the number is a parameter
    RULES["diagonal"] = with_dims("dim1", "dim2")
    RULES["rot90"] = with_dims("dims")
    RULES["diagonal_backward"] = diagonal_backward
    for _key in ("cumprod", "logcumsumexp"):
        RULES[_key] = with_dims("dim")
    for _key in (
        "glu", "glu_backward", "_pdist_forward", "mvlgamma", "soft_margin_loss",
        "soft_margin_loss_backward", "pixel_shuffle", "pixel_unshuffle", "aminmax",
        "block_diag", "multi_margin_loss", "_trilinear",
        "_scaled_dot_product_flash_attention_for_cpu",
    ):  # fmt: skip
        RULES[_key] = as_composite
    RULES["_prelu_kernel"] = pointwise
    RULES["_prelu_kernel_backward"] = pointwise_all_batched
    for _key in ("median.dim", "nanmedian.dim", "kthvalue", "mode", "nansum"):
        RULES[_key] = with_dims("dim")
    for _key in (
        "heaviside",
        "logaddexp",
        "logaddexp2",
        "signbit",
        "scatter_reduce_prod_zeros_double_backward",
    ):
        RULES[_key] = pointwise
    for _key in (
        "addcmul", "addcdiv", "lerp.Scalar", "lerp.Tensor", "hypot", "fmax", "fmin", "ldexp",
    ):  # fmt: skip
        RULES[_key] = pointwise
    RULES["masked_scatter"] = as_composite
    RULES["trace"] = trailing
    RULES["diag_embed"] = RULES["diagonal_copy"] = with_dims("dim1", "dim2")
    for _key in (
        "elu_backward", "hardswish_backward", "gelu_backward", "softplus_backward",
        "log_sigmoid_backward", "leaky_relu_backward", "hardsigmoid_backward",
    ):  # fmt: skip
        RULES[_key] = pointwise
    for _key in ("", ".weight", ".bias", ".weight_bias"):
        RULES["native_layer_norm" + _key] = as_composite
        RULES["native_batch_norm" + _key] = as_composite
        RULES["native_group_norm" + _key] = as_composite
    RULES["embedding"] = RULES["embedding_dense_backward"] = as_composite
    RULES["mkldnn_rnn_layer"] = as_composite
    for _key in ("", ".bias", ".transposed", ".transposed_bias"):
        RULES["convolution" + _key] = as_composite
    RULES["affine_grid_generator"] = _affine_grid
    RULES["im2col.nd"] = RULES["col2im.nd"] = pointwise  # they take any leading dims
    RULES["im2col"], RULES["col2im"] = im2col, col2im
    for _dims in (2, 3):  # pools of the trailing dims, leading dims free
        for _key in ("max_pool{}d_with_indices", "avg_pool{}d", "adaptive_max_pool{}d",
                     "_adaptive_avg_pool{}d"):  # fmt: skip
            RULES[_key.format(_dims)] = RULES[_key.format(_dims) + "_backward"] = pointwise
        RULES[f"max_pool{_dims}d_double_backward"] = pointwise
        RULES[f"adaptive_max_pool{_dims}d_double_backward"] = pointwise
        RULES[f"max_unpool{_dims}d"] = pointwise  # leading dims free, broadcast
    for _stem, _dims in (
        ("upsample_nearest", 1), ("upsample_nearest", 2), ("upsample_nearest", 3),
        ("_upsample_nearest_exact", 1), ("_upsample_nearest_exact", 2),
        ("_upsample_nearest_exact", 3), ("upsample_linear", 1), ("upsample_bilinear", 2),
        ("upsample_bicubic", 2), ("upsample_trilinear", 3),
    ):  # fmt: skip
        RULES[f"{_stem}{_dims}d"] = RULES[f"{_stem}{_dims}d_backward"] = pointwise
    # Pads act on the trailing dims only: the batch dim in front is one more leading dim.
    for _key in ("constant_pad_nd", "constant_pad_nd.value"):
        RULES[_key] = pointwise
    for _kind in ("reflection", "replication"):
        for _dims in (1, 2, 3):
            RULES[f"{_kind}_pad{_dims}d"] = RULES[f"{_kind}_pad{_dims}d_backward"] = pointwise
    for _key in (
        "scatter.src", "scatter.value", "scatter.reduce", "scatter.value_reduce",
        "scatter_reduce.two",
    ):  # fmt: skip
        RULES[_key] = scatter
    RULES["view_replay"] = regions
    RULES["masked_fill.Tensor"] = masked_fill_tensor
    for _key in ("zero_region", "embed_region", "copy_slices"):
        RULES[_key] = regions
    for _key in ("cholesky_solve", "linalg_solve_ex", "linalg_solve_triangular"):
        RULES[_key] = solve
    for _key in ("einsum.mul", "einsum.permute", "einsum.sum", "einsum.view"):
        RULES[_key] = einsum_rule
    for _key in (
        "swap_last_two", "cholesky", "cholesky_inverse", "linalg_cholesky_ex",
        "linalg_det", "linalg_eigh", "linalg_inv_ex", "linalg_lu", "linalg_lu_factor_ex",
        "linalg_matrix_exp", "linalg_qr", "linalg_slogdet", "linalg_svd",
        "linalg_ldl_factor_ex", "linalg_ldl_solve", "tril", "triu",
    ):  # fmt: skip
        RULES[_key] = trailing
    for _key in list(RULES):
        if _key in NO_RULE:
            del RULES[_key]
    return RULES


def _affine_grid(op, args, params, level):
    """``affine_grid_generator`` (linear, declared Linear) from leafgrad ops, whose rules
    batch its theta."""
    from ..nn._affine_grid_op import affine_grid_composite  # why: nn imports the ops package

    return affine_grid_composite(*args, **params)


def batch_call(op, args, params):
    """Run primitive ``op`` on arguments among which some are batched."""
    level = max(a._level for a in args if type(a) is BatchedTensor)
    key = op.primitive.key
    rule = rules().get(key)
    if rule is None:
        reason = NO_RULE.get(key, "no rule was written for it")
        raise RuntimeError(
            f"vmap: there is no batching rule for the operation '{key}' ({reason}); compute "
            "it outside vmap or loop over the batch explicitly"
        )
    return rule(op, args, params, level)
