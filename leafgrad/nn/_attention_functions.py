"""Attention of ``nn.functional``: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (what ``nn.MultiheadAttention`` runs), composed from
leafgrad ops so they differentiate to any order."""

from __future__ import annotations

import math

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ._flash_attention_op import flash_attention
from .attention import _check_kernel_available

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def linear(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    return _lg.nn.functional.linear(x, weight, bias)


def dropout(x: Tensor, p: float, training: bool = True) -> Tensor:
    return _lg.nn.functional.dropout(x, p, training)


def _safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the last dim whose rows of only ``-inf`` give zeros (not NaN), as
    PyTorch's attention does for a query that may attend to nothing."""
    if type(scores) is Tensor and not np.isneginf(scores._data).any():
        return _lg.softmax(scores, -1)  # (the common case, read off the array at once)
    dead = (scores == -math.inf).all(-1, keepdim=True)
    if not bool(dead.any()):
        return _lg.softmax(scores, -1)
    attn = _lg.softmax(_lg.where(dead, 0.0, scores), -1)
    return attn * (~dead).to(attn.dtype)


def _takes_flash(query, key, value, attn_mask, dropout_p, enable_gqa) -> bool:
    """Whether PyTorch's CPU dispatch picks its flash kernel: 4-D float32/float64 inputs of
    one head size, last dims of stride 1, non-empty sequences and heads, no dropout, equal
    batches and heads (or whole groups of query heads with ``enable_gqa``), and a 2-D or
    4-D mask that needs no gradient."""
    if dropout_p != 0.0 or query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        return False
    if query.dtype not in (_lg.float32, _lg.float64):
        return False
    (b, h, length, e), (bk, hk, source, ek) = query.shape, key.shape
    bv, hv, sv, ev = value.shape
    if not (e == ek == ev) or e == 0 or length == 0 or source == 0 or sv != source:
        return False
    if not (b == bk == bv) or hk != hv:
        return False
    if hk != h and not (enable_gqa and h % hk == 0):
        return False
    if query.stride(-1) != 1 or key.stride(-1) != 1 or value.stride(-1) != 1:
        return False
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return False
        if attn_mask.dim() not in (2, 4):
            return False
    return True


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` over ``(*, L, E)`` queries and ``(*, S, E)`` keys;
    a boolean ``attn_mask`` marks the pairs that may attend (True), a float one is added."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention(): argument '{name}' must be a Tensor, not "
                f"{type(t).__name__}"
            )
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead."
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True; pass either the mask or is_causal"
        )
    if _takes_flash(query, key, value, attn_mask, dropout_p, enable_gqa):
        _check_kernel_available()
        return flash_attention(query, key, value, attn_mask, is_causal, scale)[0]
    if enable_gqa and query.dim() >= 3:
        heads, kv_heads = query.shape[-3], key.shape[-3]
        if heads % kv_heads or heads % value.shape[-3]:
            raise RuntimeError(
                f"scaled_dot_product_attention: enable_gqa needs the query's {heads} heads to "
                f"be a multiple of the key's {kv_heads} and value's {value.shape[-3]} heads"
            )
        key = key.repeat_interleave(heads // kv_heads, -3)
        value = value.repeat_interleave(heads // value.shape[-3], -3)
    _check_kernel_available()
    length, source = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = _lg.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = _lg.tensor(np.tril(np.ones((length, source), dtype=bool)))
    if attn_mask is not None:
        if attn_mask.dtype == _lg.bool:
            scores = scores.masked_fill(~attn_mask, -math.inf)
        else:
            scores = scores + attn_mask
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, training=True)
    return _lg.matmul(attn, value)


def _as_float_mask(mask: Tensor | None, dtype, name: str) -> Tensor | None:
    """A boolean mask (True = leave out) as ``-inf``/0 to add; a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype == _lg.bool:
        return _lg.zeros(*mask.shape, dtype=dtype).masked_fill(mask, -math.inf)
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                f"{(tgt_len, src_len)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                f"{(bsz * num_heads, tgt_len, src_len)}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _packed_heads(proj: Tensor, count: int, embed_dim: int) -> Tensor:
    """``(..., count * E)`` projections as ``(count, ..., E)``, contiguous: PyTorch's
    unflatten, unsqueeze, transpose, squeeze and copy, recorded as it records them."""
    return (
        proj.unflatten(-1, (count, embed_dim)).unsqueeze(0).transpose(0, -2).squeeze(-2)
    ).contiguous()


def _in_projection_packed(q, k, v, w, b) -> tuple:
    """PyTorch's ``_in_projection_packed``: self-attention (``q is k is v``) projects once
    with the whole ``w``, attention over one memory (``k is v``) projects keys and values
    together; otherwise three projections by ``w``'s thirds."""
    embed_dim = q.shape[-1]
    if k is v:
        if q is k:
            proj = _packed_heads(linear(q, w, b), 3, embed_dim)
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([embed_dim, embed_dim * 2])
        b_q = b_kv = None
        if b is not None:
            b_q, b_kv = b.split([embed_dim, embed_dim * 2])
        kv = _packed_heads(linear(k, w_kv, b_kv), 2, embed_dim)
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q = b_k = b_v = None
    if b is not None:
        b_q, b_k, b_v = b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of sequence-first ``query`` ``(L, N, E)`` (or ``(L, E)``) over
    ``key``/``value`` ``(S, N, E*)``: ``(output (L, N, E), weights (N, L, S) or None)``."""
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    key_padding_mask = _as_float_mask(key_padding_mask, query.dtype, "key_padding_mask")
    attn_mask = _as_float_mask(attn_mask, query.dtype, "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal flag alone says it
    else:
        is_causal = False
    if use_separate_proj_weight:
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = linear(query, q_proj_weight, b_q)
        k = linear(key, k_proj_weight, b_k)
        v = linear(value, v_proj_weight, b_v)
    else:
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    pad_one = _lg.nn.functional.pad
    if bias_k is not None and bias_v is not None:
        k = _lg.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _lg.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad_one(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad_one(key_padding_mask, (0, 1))
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (
        k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
        if static_k is None
        else static_k
    )
    v = (
        v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
        if static_v is None
        else static_v
    )
    if add_zero_attn:
        k = _lg.cat([k, k.new_zeros((bsz * num_heads, 1, head_dim))], 1)
        v = _lg.cat([v, v.new_zeros((bsz * num_heads, 1, head_dim))], 1)
        attn_mask = None if attn_mask is None else pad_one(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad_one(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                f"{tuple(key_padding_mask.shape)}"
            )
        padding = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        padding = padding.reshape(bsz * num_heads, 1, src_len)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = _lg.bmm(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = _lg.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _lg.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    return (out if batched else out.squeeze(1)), None
