"""Which batching rule each primitive gets (``_batching.py`` has the rules), and the dispatch
every primitive call with a BatchedTensor among its arguments goes through.

The table is built from the registry on first use: elementwise kinds (Unary,
PiecewiseLinear, broadcasting NonDifferentiable ops) get the pointwise rule, the rest are
listed by key. ``NO_RULE`` names the primitives without one and why; a guard test fails for
a registered key in neither.
"""

from __future__ import annotations

import inspect

from .._batched import BatchedTensor
from ._batching import (
    _addmm,
    _backward_of_view,
    _diagonal_backward,
    _einsum,
    _flat_index,
    _flattened,
    _full_extreme,
    _gather,
    _index,
    _index_put,
    _index_put_impl,
    _joined,
    _masked_fill_tensor,
    _matmul,
    _new_shape,
    _overwrite,
    _permute,
    _regions,
    _repeat,
    _scatter,
    _solve,
    _sum_to,
    _trailing,
    _transpose_2d,
    _unsqueeze,
    _with_dims,
    pointwise,
)
from ._optable import REGISTRY, NonDifferentiable, PiecewiseLinear, Unary

RULES: dict = {}  # "name.overload" -> rule, built on first use (the registry fills on import)
NO_RULE: dict = {
    "as_strided": "never meets a batched tensor: as_strided() batches as a whole (each "
    "example's layout moved by its offset in the value, ops/strided.py)",
    "sort": "never meets a batched tensor: sort() batches as a whole (ops/_batch_whole.py), "
    "since its indices come from the values",
    "topk": "never meets a batched tensor: topk() batches as a whole (ops/_batch_whole.py), "
    "since its indices come from the values",
    "linalg_lstsq": "never meets a batched tensor: linalg.lstsq() batches as a whole (its "
    "rank and singular values come from values; ops/_batch_whole.py)",
    "linalg_pinv.atol_rtol_tensor": "never meets a batched tensor: linalg.pinv() batches as a "
    "whole (its tolerances come from values; ops/_batch_whole.py)",
    "median": "not batched yet: the whole-example median shares its gradient among ties, "
    "which median over a flattened dim does not",
    "nanmedian": "not batched yet: the whole-example median shares its gradient among ties, "
    "which median over a flattened dim does not",
    "histogram.bin_ct": "its bin edges come from each example's own range",
    "histogram.bins_tensor": "not batched yet",
    "bincount": "its length depends on each example's largest value",
    "_unique2": "its length depends on each example's values",
    "unique_dim": "its length depends on each example's values",
    "unique_consecutive": "its length depends on each example's values",
}
# The fused Taylor path's kernels (jet_kernels.py, jet_activations.py): called only inside a
# Taylor pass on packed derivative channels, which vmap does not batch yet.
NO_RULE.update(
    {
        key: "not batched yet: a fused Taylor kernel, called only by a Taylor pass"
        for key in (
            "jet_linear",
            "jet_outer",
            "jet_unary",
            "jet_unary_backward",
            "jet_act",
            "jet_act_backward",
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
        "prod.dim_int", "norm", "var.correction", "std.correction", "max.dim", "min.dim",
        "cumsum", "softmax", "log_softmax", "unbind.int", "select.int", "slice.Tensor",
        "split.Tensor", "split_with_sizes", "index_select", "flip",
    ):  # fmt: skip
        RULES[_key] = _with_dims("dim", "dims")
    RULES["transpose.int"] = _with_dims("dim0", "dim1")
    RULES["unsqueeze"] = _unsqueeze
    RULES["argmax"] = RULES["argmin"] = _flat_index
    RULES["max"] = RULES["min"] = _full_extreme
    for _key in ("view", "_reshape_alias", "_unsafe_view", "squeeze", "squeeze.dim",
                 "squeeze.dims", "expand"):  # fmt: skip
        RULES[_key] = _new_shape
    RULES["sum_to"] = _sum_to
    RULES["repeat"] = _repeat
    RULES["permute"] = _permute
    RULES["t"] = _transpose_2d
    RULES["index.Tensor"] = _index
    RULES["index_put_impl"] = _index_put_impl
    RULES["index_put"] = _index_put
    for _key in ("select_backward", "slice_backward", "index_add", "scatter_add"):
        RULES[_key] = _backward_of_view
    RULES["gather"] = _gather
    RULES["cat"] = RULES["stack"] = _joined
    for _key in ("matmul", "matmul.clone", "mm", "mv", "bmm", "dot", "vecmat"):
        RULES[_key] = _matmul
    RULES["addmm"] = _addmm
    RULES["prod"] = RULES["roll"] = _flattened
    for _key in ("overwrite", "fill.Scalar", "fill.Tensor", "zero"):
        RULES[_key] = _overwrite
    RULES["diagonal"] = _with_dims("dim1", "dim2")
    RULES["diagonal_backward"] = _diagonal_backward
    for _key in ("cumprod", "logcumsumexp"):
        RULES[_key] = _with_dims("dim")
    for _key in ("median.dim", "nanmedian.dim", "kthvalue", "mode", "nansum"):
        RULES[_key] = _with_dims("dim")
    for _key in ("heaviside", "logaddexp2", "signbit", "scatter_reduce_prod_zeros_double_backward"):
        RULES[_key] = pointwise
    for _key in (
        "scatter.src", "scatter.value", "scatter.reduce", "scatter.value_reduce",
        "scatter_reduce.two",
    ):  # fmt: skip
        RULES[_key] = _scatter
    RULES["view_replay"] = _regions
    RULES["masked_fill.Tensor"] = _masked_fill_tensor
    for _key in ("zero_region", "embed_region", "copy_slices"):
        RULES[_key] = _regions
    for _key in ("cholesky_solve", "linalg_solve_ex", "linalg_solve_triangular"):
        RULES[_key] = _solve
    for _key in ("einsum.mul", "einsum.permute", "einsum.sum", "einsum.view"):
        RULES[_key] = _einsum
    for _key in (
        "swap_last_two", "cholesky", "cholesky_inverse", "linalg_cholesky_ex",
        "linalg_det", "linalg_eigh", "linalg_inv_ex", "linalg_lu", "linalg_lu_factor_ex",
        "linalg_matrix_exp", "linalg_qr", "linalg_slogdet", "linalg_svd",
    ):  # fmt: skip
        RULES[_key] = _trailing
    for _key in list(RULES):
        if _key in NO_RULE:
            del RULES[_key]
    return RULES


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
