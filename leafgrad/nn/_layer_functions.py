"""Embedding lookup, the bilinear form, padding and distances of ``nn.functional``, composed
from leafgrad ops (so they differentiate to any order)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import leafgrad as _lg

from .. import Tensor, no_grad
from .._batched import BatchedTensor
from .._dtype import scalar_type_name
from .._exposure import numpy_names
from ..ops._batch_loop import loops_over_examples
from ..ops.arithmetic import add_scalar as _add_scalar
from ..ops.statistics import norm_scalaropt_dim as _norm_dim
from ..ops.trilinear import trilinear as _trilinear
from . import _embedding_op, _padding_ops

__all__ = ["bilinear", "cosine_similarity", "embedding", "pad", "pairwise_distance"]


def _check_padding_idx(padding_idx: int | None, num_embeddings: int) -> int | None:
    """``padding_idx`` made non-negative; AssertionError outside the table, as PyTorch."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % num_embeddings


def _renorm_rows_(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Scale, in place, each row of ``weight`` named in ``indices`` whose norm exceeds
    ``max_norm`` down to ``max_norm`` (PyTorch's ``embedding_renorm_``)."""
    rows_index = _lg.tensor(np.unique(indices), dtype=_lg.int64)
    with no_grad():
        rows = weight.index_select(0, rows_index)
        norms = _lg.norm(rows, norm_type, dim=1, keepdim=True)
        scale = _lg.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows_index] = rows * scale


@loops_over_examples("embedding", ("input",))
def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` ``(num_embeddings, dim)`` at the integer ``input``: ``(*, dim)``.

    Entries at ``padding_idx`` give ``weight`` no gradient; ``max_norm`` first renormalises the
    looked-up rows of ``weight`` in place; ``scale_grad_by_freq`` divides each gradient by how
    often its index occurs in ``input``. ``sparse=True`` is accepted, but the gradient is dense.
    Raises IndexError for an index outside the table.
    """
    if input.dtype not in (_lg.int64, _lg.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.type()} instead (while checking arguments for "
            "embedding)"
        )
    if weight.dim() != 2:
        raise RuntimeError(f"embedding: 'weight' must be 2-D, got {weight.dim()}-D")
    num_embeddings = weight.shape[0]
    padding_idx = _check_padding_idx(padding_idx, num_embeddings)
    indices = input.numpy()
    if indices.size and (indices.min() < 0 or indices.max() >= num_embeddings):
        raise IndexError(
            f"embedding: index out of range in self: indices must lie in [0, {num_embeddings}), "
            f"got values from {indices.min()} to {indices.max()}"
        )
    if max_norm is not None:
        _renorm_rows_(weight, indices, max_norm, norm_type)
    return _embedding_op.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_o = x1^T W_o x2 + b_o``: inputs ``(*, in1)`` and ``(*, in2)``, weight
    ``(out, in1, in2)``, bias ``(out,)``, output ``(*, out)``. Recorded as PyTorch's: the
    inputs flattened to ``(-1, in)`` views, ``_trilinear`` (TrilinearBackward0), a view back
    and the bias added; its checks in its order."""
    named = {"input1": input1, "input2": input2, "weight": weight, "bias": bias}
    for pos, (name, t) in enumerate(named.items(), 1):
        if not isinstance(t, Tensor) and not (name == "bias" and t is None):
            raise TypeError(
                f"bilinear(): argument '{name}' (position {pos}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    present = {k: t for k, t in named.items() if t is not None}
    if len({t.dtype for t in present.values()}) > 1:
        got = ", ".join(f"{k}: {scalar_type_name(t._data.dtype)}" for k, t in present.items())
        raise RuntimeError(f"bilinear(): all tensors must have one dtype, got {got}")
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got "
                f"{input1.shape[i]} and {input2.shape[i]}"
            )
    # Tensor.size raises IndexError for a missing dim, as PyTorch's sym_size does here, so
    # each size is read in turn.
    for name, size, expected in (
        ("input1", lambda: input1.size(-1), lambda: weight.size(1)),
        ("input2", lambda: input2.size(-1), lambda: weight.size(2)),
        ("bias", lambda: bias.size(0), lambda: weight.size(0)),
    ):
        if name == "bias" and bias is None:
            break
        if size() != expected():
            raise RuntimeError(
                f"bilinear(): {name} size does not match weight size: got {size()} but "
                f"expected {expected()}"
            )
    flat1 = input1.reshape(-1, input1.shape[-1])
    flat2 = input2.reshape(-1, input2.shape[-1])
    out = _trilinear(
        flat1,
        weight,
        flat2,
        expand1=(1, 3),
        expand2=(0,),
        expand3=(1, 2),
        sumdim=(2, 3),
        unroll_dim=1,
    )
    out = out.reshape(*input1.shape[:-1], weight.shape[0])
    return out if bias is None else out + bias


def _pad_circular(input: Tensor, pad: Sequence[int]) -> Tensor:
    """PyTorch's ``_pad_circular``, step for step (so its nodes are PyTorch's: CopySlices
    over slices): the input (cropped where an amount is negative) copied into the middle of
    an empty result, then each dim's left and right padding copied from the other end of the
    result, dim by dim from the last (corners included). Under vmap the middle is a zero pad
    of the input instead, which keeps the result batched (an empty one is not)."""
    if type(input) is BatchedTensor:
        out = _padding_ops.constant_pad_nd(input, pad, 0)
    else:
        shape = list(input.shape)
        for i in range(len(pad) // 2):
            shape[input.dim() - 1 - i] += pad[2 * i] + pad[2 * i + 1]
        out = input.new_empty(shape)
        middle, source = out, input
        for i in range(len(pad) // 2):
            dim, left, right = input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]
            start, size = max(left, 0), shape[dim] - max(left, 0) - max(right, 0)
            middle = middle.narrow(dim, start, size)
            cut = max(-left, 0)
            source = source.narrow(dim, cut, input.shape[dim] - cut - max(-right, 0))
        middle.copy_(source)
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], out.shape[dim]
        if left > 0:
            out.narrow(dim, 0, left).copy_(out.narrow(dim, size - left - max(right, 0), left))
        if right > 0:
            out.narrow(dim, size - right, right).copy_(out.narrow(dim, max(left, 0), right))
    return out


def _check_mode_padding(mode: str, input: Tensor, pad: Sequence[int]) -> None:
    dims = len(pad) // 2
    if dims > 3 or input.dim() not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"pad: mode {mode!r} pads the last 1 to 3 dims of an input with 1 or 2 leading "
            f"(batch, channel) dims; got {len(pad)} pad values for a {input.dim()}-D input"
        )
    for i in range(dims):
        dim = input.dim() - 1 - i
        size, left, right = input.shape[dim], pad[2 * i], pad[2 * i + 1]
        limit = size - 1 if mode == "reflect" else size
        if mode != "replicate" and max(left, right) > limit:
            raise RuntimeError(
                f"pad: mode {mode!r} allows padding of at most {limit} for dim {dim} of size "
                f"{size}, got ({left}, {right})"
            )


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None):
    """Pad (or, with negative amounts in ``constant`` mode, crop) the last ``len(pad) // 2``
    dims: ``pad = (last_left, last_right, second_last_left, ...)``.

    ``mode``: ``constant`` (fill with ``value``, default 0), ``reflect``, ``replicate`` or
    ``circular``.
    """
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.dim()}"
        )
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"pad: unknown padding mode {mode!r}")
    if mode != "constant":
        if value not in (None, 0):
            raise ValueError(f"pad: padding mode {mode!r} doesn't take in value argument")
        _check_mode_padding(mode, input, pad)
    if mode in ("reflect", "replicate"):
        return _padding_ops.gather_pad(input, pad, mode)
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        size = input.shape[dim]
        if size + left + right < 0:
            raise RuntimeError(
                f"pad: padding ({left}, {right}) leaves dim {dim} of size {size} with a "
                "negative size"
            )
    if mode == "circular":
        return _pad_circular(input, pad)
    return _padding_ops.constant_pad_nd(input, pad, 0 if value is None else value)


@numpy_names  # native in PyTorch: it takes axis= too
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1 . x2 / (max(||x1||, eps) max(||x2||, eps))`` along ``dim``, after broadcasting."""
    x1, x2 = _lg.broadcast_tensors(x1, x2)
    norms = []
    for x in (x1, x2):
        norm = _lg.norm(x, 2, dim, keepdim=True).clone()
        # As PyTorch: the clamp is applied in place without recording, so the gradient flows
        # as if the norm were unclamped.
        with no_grad():
            norm.clamp_min_(eps)
        norms.append(norm)
    return ((x1 / norms[0]) * (x2 / norms[1])).sum(dim)


@numpy_names
def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dim (PyTorch's ``+ eps`` an add.Scalar, the
    norm ``norm``'s: AddBackward1 under NormBackward1)."""
    difference = x1 - x2
    if not difference.dtype.is_floating_point or difference.dim() == 0:
        return _lg.norm(difference + eps, p, -1, keepdim=keepdim)  # (its checks and errors)
    shifted = _add_scalar(difference, other=eps)
    return _norm_dim(shifted, ord=float(p), dim=(-1,), keepdim=keepdim)
