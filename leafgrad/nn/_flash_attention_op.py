"""``scaled_dot_product_attention`` as PyTorch's CPU flash kernel records it: one op
``_scaled_dot_product_flash_attention_for_cpu`` (ScaledDotProductFlashAttentionForCpuBackward0,
edges to query, key and value; saving ``query``, ``key``, ``value``, ``output``,
``logsumexp``, ``attn_mask``, ``dropout_p``, ``is_causal`` and ``scale``) with outputs
``(output, logsumexp)``.

The forward is a stable softmax on arrays: ``s = q k^T * scale + mask`` (a boolean mask as
``-inf``/0, the causal one top-left), ``logsumexp`` per query row, ``output = exp(s - lse) v``;
a row that may attend to nothing gives zeros and a logsumexp of 0, as PyTorch's kernel.
Grouped-query attention (``enable_gqa``) reads key/value head ``h // group`` for query head
``h`` and sums their gradients back. The output is laid out as the query (PyTorch's), the
logsumexp ``(B, H, L)`` over ``(B, L, H)`` memory.

Its gradient is the op ``_scaled_dot_product_flash_attention_for_cpu_backward``, for which
PyTorch defines no derivative (``torch::autograd::NotImplemented``: a second backward
raises, here too), and PyTorch has no forward-mode rule (NotImplementedError, here too).
vmap and Taylor mode take the composite (the math path from leafgrad ops).
"""

from __future__ import annotations

import math

import numpy as np

import leafgrad as _lg

from .._batched import BatchedTensor
from .._memory_format import like_in_format, preserve_format
from .._tensor import _wrap
from ..ops._optable import Composite, NoDerivative
from ..ops._primitive import primitive

__all__ = ["flash_attention"]

_NAME = "_scaled_dot_product_flash_attention_for_cpu"


def _scale_of(head_size, scale):
    return 1.0 / math.sqrt(head_size) if scale is None else scale


def _repeat_heads(x, heads):
    """Key/value ``(B, Hk, S, E)`` with each head repeated for its ``heads // Hk`` queries."""
    return x if x.shape[1] == heads else np.repeat(x, heads // x.shape[1], axis=1)


def _probabilities(q, k, attn_mask, is_causal, scale):
    """``exp(s - lse)`` (zeros on dead rows) and ``lse`` (0 on dead rows), as arrays."""
    dtype = q.dtype
    s = np.matmul(q, _repeat_heads(k, q.shape[1]).swapaxes(-1, -2))
    s *= dtype.type(_scale_of(q.shape[-1], scale))
    if is_causal:
        length, source = s.shape[-2:]
        s[..., ~np.tri(length, source, dtype=bool)] = -np.inf
    elif attn_mask is not None:
        s += attn_mask
    peak = s.max(-1, keepdims=True)
    dead = np.isneginf(peak)
    if dead.any():
        peak[dead] = 0.0
    s -= peak
    np.exp(s, out=s)
    total = s.sum(-1, keepdims=True)
    if dead.any():
        total[dead] = 1.0
    s /= total
    lse = np.log(total)
    lse += peak
    if dead.any():
        lse[dead] = 0.0
    return s, lse[..., 0]


def _mask_array(attn_mask):
    return None if attn_mask is None else attn_mask._data


def _forward(q, k, v, *, attn_mask, dropout_p, is_causal, scale, **_):
    p, lse = _probabilities(q, k, _mask_array(attn_mask), is_causal, scale)
    out = like_in_format(np.matmul(p, _repeat_heads(v, q.shape[1])), q, preserve_format, _NAME)
    b, h, length = lse.shape
    logsumexp = np.empty((b, length, h), lse.dtype).transpose(0, 2, 1)
    logsumexp[...] = lse
    return out, logsumexp


def _fold_heads(g, heads):
    """Gradients of the repeated key/value heads summed back to ``heads`` of them."""
    b, h, s, e = g.shape
    return g if h == heads else g.reshape(b, heads, h // heads, s, e).sum(2)


def _backward_forward(*_tensors, arrays, attn_mask, dropout_p, is_causal, scale, **_):
    """``(grad_query, grad_key, grad_value)`` from ``arrays`` (grad, q, k, v, out, lse)."""
    grad, q, k, v, out, lse = arrays
    heads = q.shape[1]
    dtype = q.dtype
    s = np.matmul(q, _repeat_heads(k, heads).swapaxes(-1, -2))
    s *= dtype.type(_scale_of(q.shape[-1], scale))
    if is_causal:
        length, source = s.shape[-2:]
        s[..., ~np.tri(length, source, dtype=bool)] = -np.inf
    elif attn_mask is not None:
        s += attn_mask._data
    s -= lse[..., None]
    np.exp(s, out=s)  # the probabilities (dead rows: exp(-inf) = 0)
    grad = np.asarray(grad, dtype)
    vr = _repeat_heads(v, heads)
    gv = np.matmul(s.swapaxes(-1, -2), grad)
    dp = np.matmul(grad, vr.swapaxes(-1, -2))
    dp -= (grad * out).sum(-1, keepdims=True)
    dp *= s
    dp *= dtype.type(_scale_of(q.shape[-1], scale))
    gq = np.matmul(dp, _repeat_heads(k, heads))
    gk = np.matmul(dp.swapaxes(-1, -2), q)
    return gq, _fold_heads(gk, k.shape[1]), _fold_heads(gv, v.shape[1])


_flash_backward = primitive(
    f"{_NAME}_backward",
    _backward_forward,
    kind=NoDerivative(),
    inputs=(),
    dtype_rule="keep",
    num_outputs=3,
)


def _vjp(grad, q, k, v, *, result, needs=None, **params):
    grad_out = grad[0] if isinstance(grad, (tuple, list)) else grad
    out, lse = result
    operands = (grad_out, q, k, v, out, lse)
    if any(isinstance(t, BatchedTensor) for t in operands):  # vmap: from leafgrad ops
        return _backward_composite(*operands, **params)
    # PyTorch's NotImplemented node has edges to the operands that require grad only
    # (the logsumexp never does)
    recorded = [t for t in operands[:5] if t.requires_grad] if _lg.is_grad_enabled() else []
    arrays = tuple(t._data for t in operands)
    if not recorded:
        return tuple(_wrap(g) for g in _backward_forward(arrays=arrays, **params))
    return _flash_backward(*recorded, arrays=arrays, **params)


def _backward_composite(grad, q, k, v, out, lse, *, attn_mask, is_causal, scale, **_):
    """The backward from leafgrad ops, for operands batched by vmap (``jacrev`` batches the
    gradient beyond the saved values)."""
    heads = q.shape[-3]
    kr = k if k.shape[-3] == heads else k.repeat_interleave(heads // k.shape[-3], -3)
    vr = v if v.shape[-3] == heads else v.repeat_interleave(heads // v.shape[-3], -3)
    factor = _scale_of(q.shape[-1], scale)
    scores = _lg.matmul(q, kr.transpose(-2, -1)) * factor
    if is_causal:
        keep = _lg.tensor(np.tri(q.shape[-2], k.shape[-2], dtype=bool))
        scores = scores.masked_fill(~keep, -math.inf)
    elif attn_mask is not None:
        scores = scores + attn_mask
    p = _lg.exp(scores - lse.unsqueeze(-1))
    gv = _lg.matmul(p.transpose(-2, -1), grad)
    dp = _lg.matmul(grad, vr.transpose(-2, -1)) - (grad * out).sum(-1, keepdim=True)
    ds = p * dp * factor
    gq = _lg.matmul(ds, kr)
    gk = _lg.matmul(ds.transpose(-2, -1), q)

    def fold(g, like):
        if like.shape[-3] == heads:
            return g
        shape = (*g.shape[:-3], like.shape[-3], heads // like.shape[-3], *g.shape[-2:])
        return g.reshape(shape).sum(-3)

    return gq, fold(gk, k), fold(gv, v)


def _jvp(*args, result, **params):
    raise NotImplementedError(
        f"Trying to use forward AD with {_NAME} that does not support it because it has not "
        "been implemented yet.\nPlease file an issue to PyTorch at "
        "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we "
        "can prioritize its implementation or submit a PR adding the implementation to "
        "derivatives.yaml"
    )


def _composite(q, k, v, *, attn_mask, dropout_p, is_causal, scale, **_):
    """The op from leafgrad ops (vmap and Taylor mode take this): the math path, with the
    logsumexp (0 on rows that attend to nothing)."""
    heads = q.shape[-3]
    if k.shape[-3] != heads:
        k = k.repeat_interleave(heads // k.shape[-3], -3)
    if v.shape[-3] != heads:
        v = v.repeat_interleave(heads // v.shape[-3], -3)
    scores = _lg.matmul(q, k.transpose(-2, -1)) * _scale_of(q.shape[-1], scale)
    if is_causal:
        length, source = q.shape[-2], k.shape[-2]
        keep = _lg.tensor(np.tri(length, source, dtype=bool))
        scores = scores.masked_fill(~keep, -math.inf)
    elif attn_mask is not None:
        scores = scores + attn_mask
    dead = (scores == -math.inf).all(-1, keepdim=True)
    live = _lg.where(dead, 0.0, scores)
    lse = _lg.logsumexp(live, -1, keepdim=True)
    attn = _lg.exp(live - lse) * (~dead).to(scores.dtype)
    return _lg.matmul(attn, v), _lg.where(dead, 0.0, lse).squeeze(-1)


_SAVES = ("query", "key", "value", "output", "logsumexp", "attn_mask", "dropout_p", "is_causal")
_SAVES += ("scale",)

_flash = primitive(
    _NAME,
    _forward,
    vjp_all=_vjp,
    kind=Composite(taylor_as=_composite, jvp=_jvp),
    inputs=("query", "key", "value"),
    outputs=("output", "logsumexp"),
    saves=_SAVES,
    node_name="ScaledDotProductFlashAttentionForCpuBackward0",
    dtype_rule="keep",
    num_outputs=2,
)


def flash_attention(query, key, value, attn_mask, is_causal, scale):
    """PyTorch's CPU flash attention: ``(output, logsumexp)``; a boolean ``attn_mask`` saved
    as the ``-inf``/0 mask PyTorch's kernel adds."""
    if attn_mask is not None and attn_mask.dtype == _lg.bool:
        zeros = np.zeros(attn_mask.shape, query._data.dtype)
        attn_mask = _lg.tensor(np.where(attn_mask._data, zeros, -np.inf).astype(zeros.dtype))
    return _flash(
        query,
        key,
        value,
        attn_mask=attn_mask,
        dropout_p=0.0,
        is_causal=bool(is_causal),
        scale=scale,
    )
