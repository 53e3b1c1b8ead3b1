"""``ctc_loss``: connectionist temporal classification, the forward (alpha) recursion over
the blank-extended targets written in leafgrad ops, vectorised over the batch.

Log-space "minus infinity" is a large finite number here, so the gradients of unreachable
states are exact zeros rather than NaN; a loss still at that level is infinite (no
alignment exists). PyTorch's kernel returns, as the gradient with respect to
``log_probs``, the gradient with respect to the logits of a ``log_softmax`` producing them:
the true derivative plus ``exp(log_probs)`` per frame read. leafgrad gives the same (the
extra term cancels through a ``log_softmax``, as PyTorch's does). A sample without any
alignment gets a zero gradient (PyTorch's is NaN there unless ``zero_infinity``).
"""

from __future__ import annotations

import numpy as np

import leafgrad as _lg

from .. import Tensor
from ._loss_functions import _reduction

__all__ = ["ctc_loss"]

_NEG = -1e30  # log-space zero that keeps logsumexp's gradient finite


def _ints(value) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.numpy().astype(np.int64).reshape(-1)
    return np.asarray(value, dtype=np.int64).reshape(-1)


def _padded_targets(targets: Tensor, lengths: np.ndarray) -> np.ndarray:
    """Targets as ``(N, max length)``, from padded 2-D or concatenated 1-D form."""
    values = targets.numpy().astype(np.int64)
    longest = int(lengths.max()) if lengths.size else 0
    if values.ndim == 2:
        return values[:, :longest] if longest else np.zeros((len(lengths), 0), np.int64)
    out = np.zeros((len(lengths), longest), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    for n, (start, length) in enumerate(zip(starts, lengths)):
        out[n, :length] = values[start : start + length]
    return out


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """CTC loss of ``log_probs`` ``(T, N, C)`` (or ``(T, C)``) against ``targets`` (padded
    ``(N, S)`` or concatenated); ``mean`` divides each loss by its target length first."""
    reduction = _reduction("ctc_loss", None, None, reduction)
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(
            "ctc_loss: expected log_probs of shape (T, N, C) or (T, C), got "
            f"{list(log_probs.shape)}"
        )
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if unbatched and targets.dim() == 1:
        targets = targets.unsqueeze(0)
    steps, batch, classes = lp.shape
    in_lengths = _ints(input_lengths)
    tgt_lengths = _ints(target_lengths)
    if len(in_lengths) != batch or len(tgt_lengths) != batch:
        raise RuntimeError(
            f"ctc_loss: input_lengths and target_lengths must have {batch} entries (the batch "
            f"size), got {len(in_lengths)} and {len(tgt_lengths)}"
        )
    if in_lengths.size and in_lengths.max() > steps:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {steps}, but got value "
            f"{in_lengths.max()} (while checking arguments for ctc_loss_cpu)"
        )
    if not 0 <= blank < classes:
        raise RuntimeError(f"blank must be in label range, got blank={blank} for {classes} classes")
    labels = _padded_targets(targets, tgt_lengths)
    width = 2 * labels.shape[1] + 1
    extended = np.full((batch, width), blank, dtype=np.int64)
    extended[:, 1::2] = labels
    position = np.arange(width)
    valid = position[None, :] < (2 * tgt_lengths + 1)[:, None]
    skip = np.zeros((batch, width), dtype=bool)
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    skip &= valid
    index = _lg.tensor(np.broadcast_to(extended, (steps, batch, width)).copy())
    emit = lp.gather(2, index)  # (T, N, width): log-probability of each extended label
    neg = lp.new_full((batch, width), _NEG)
    start = _lg.tensor(valid & (position[None, :] < 2))
    alpha = _lg.where(start, emit[0], neg)
    skip_t = _lg.tensor(skip)
    pad1, pad2 = lp.new_full((batch, 1), _NEG), lp.new_full((batch, 2), _NEG)
    for t in range(1, steps):
        # alpha shifted right by one and two states (cut to width: it may be 1, all targets empty)
        one = _lg.cat([pad1, alpha], 1)[:, :width]
        two = _lg.where(skip_t, _lg.cat([pad2, alpha], 1)[:, :width], neg)
        step = _lg.logsumexp(_lg.stack([alpha, one, two]), 0) + emit[t]
        running = _lg.tensor((t < in_lengths)[:, None] & valid)
        alpha = _lg.where(running, step, alpha)
    last = _lg.tensor((2 * tgt_lengths)[:, None])
    before = _lg.tensor(np.maximum(2 * tgt_lengths - 1, 0)[:, None])
    end = alpha.gather(1, last)
    previous = _lg.where(_lg.tensor(tgt_lengths[:, None] > 0), alpha.gather(1, before), neg[:, :1])
    likelihood = _lg.logsumexp(_lg.cat([end, previous], 1), 1)
    impossible = _lg.tensor(likelihood.detach().numpy() < _NEG / 2)
    if (in_lengths == 0).any():
        impossible = impossible | _lg.tensor((in_lengths == 0) & (tgt_lengths > 0))
    # PyTorch's kernel returns the gradient with respect to the logits behind a log_softmax
    # (true gradient + exp(log_probs) on every frame read); this term is exactly zero in value
    # and adds that exp(log_probs), so log_probs.grad matches PyTorch's too.
    probs = lp.exp()
    frames = _lg.tensor((np.arange(steps)[:, None] < in_lengths[None, :])[:, :, None])
    shift = ((probs - probs.detach()) * frames.to(lp.dtype)).sum((0, 2))
    loss = -likelihood + shift
    loss = _lg.where(impossible, 0.0 if zero_infinity else float("inf"), loss)
    if reduction == "mean":
        scale = _lg.tensor(np.maximum(tgt_lengths, 1), dtype=loss.dtype)
        return (loss / scale).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss
