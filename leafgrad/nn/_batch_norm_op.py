"""Batch normalisation as one op, recorded as PyTorch records it: ``native_batch_norm``
(NativeBatchNormBackward0) returns the output, the batch mean and the reciprocal standard
deviation per channel (``invstd``; both empty when not training, as PyTorch's), and saves
``input``, ``weight``, ``running_mean``, ``running_var``, ``training``, ``eps`` and the two
statistics (``_saved_result1``, ``_saved_result2``).

Which of ``weight`` and ``bias`` are given picks one of four overloads
(``_norm_overloads``); the running statistics are parameters (buffers, never differentiated),
updated by the caller. The VJP is PyTorch's ``native_batch_norm_backward`` in leafgrad ops,
so the op differentiates to any order; forward mode uses its JVP, Taylor mode and vmap the
composite. Why one op: the composite recorded 27 ops and 12 nodes a call, 3.3x PyTorch's time
on a (8, 3, 32, 32) forward and backward.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops import _sums
from ..ops._tangents import sum_present
from ..ops.activations import threshold_backward
from ..ops.reduction import _mean_of_array
from . import _norm_kernels
from ._norm_overloads import affine_parts, call, channel_affine, declare, per_channel

__all__ = ["native_batch_norm"]


def _array(t):
    return t._data if isinstance(t, Tensor) else t


def _array_statistics(x, running_mean, running_var, training, eps):
    """``(mean, centered x, invstd)`` on arrays, the statistics shaped (1, C, 1, ...): the
    batch's when training, else the running ones (the forward's and the plain VJP's)."""
    if training:
        axes = (0,) + tuple(range(2, x.ndim))
        mean = _mean_of_array(x, axes, True, None)
        centered = x - mean
        invstd = 1 / np.sqrt(_mean_of_array(centered * centered, axes, True, None) + eps)
    else:
        mean = per_channel(x, _array(running_mean).astype(x.dtype, copy=False))
        centered = x - mean
        invstd = per_channel(x, 1 / np.sqrt(_array(running_var).astype(x.dtype) + eps))
    return mean, centered, invstd


def _make_forward(has_weight, has_bias):
    def forward(x, *affine, running_mean, running_var, training, eps, **absent):
        """``(x - mean) * invstd * weight + bias`` per channel; the batch's statistics when
        training, else the running ones."""
        weight, bias = affine_parts(has_weight, has_bias, affine, absent)
        compiled = _norm_kernels.takes(x, weight, bias) if training else None
        if compiled is not None:  # one compiled pass (numba)
            return _norm_kernels.batch_norm(compiled, x, weight, bias, eps)
        mean, centered, invstd = _array_statistics(x, running_mean, running_var, training, eps)
        out = channel_affine(centered * invstd, x, weight, bias)
        if not training:
            empty = np.zeros((0,), x.dtype)
            return out, empty, empty.copy()
        return out, mean.reshape(-1), invstd.reshape(-1)

    return forward


def _statistics(x, running_mean, running_var, training, eps):
    """``(xhat, invstd)`` from ``x`` itself (the rules recompute them, as layer norm's do:
    the saved outputs come back without their forward-mode tangents), ``invstd`` shaped
    (1, C, 1, ...)."""
    dims = (0,) + tuple(range(2, x.dim()))
    if training:
        centered = x - x.mean(dims, keepdim=True)
        invstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
    else:
        centered = x - per_channel(x, running_mean.to(x.dtype))
        invstd = per_channel(x, (running_var.to(x.dtype) + eps).rsqrt())
    return centered * invstd, invstd


def _vjp_on_arrays(grad, x, weight, result, running_mean, running_var, training, eps, needs, has):
    """The VJP on NumPy arrays (a plain backward): the tensor rule's NumPy calls, or one
    compiled pass from the forward's batch statistics (``result``) when training."""
    has_weight, has_bias = has
    compiled = _norm_kernels.takes_grad(grad, x, weight) if training else None
    if compiled is not None:
        kernel_needs = (needs[0], has_weight and needs[1], has_bias and needs[-1])
        _, mean, invstd = result
        gx, dw, db = _norm_kernels.batch_norm_backward(
            compiled, grad, x, weight, mean, invstd, kernel_needs
        )
        return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())
    axes = (0,) + tuple(range(2, x.ndim))
    _, centered, invstd = _array_statistics(x, running_mean, running_var, training, eps)
    xhat = centered * invstd
    gx = dw = db = None
    if needs[0]:
        scale = invstd if weight is None else invstd * per_channel(x, weight)
        if training:
            inner = grad - _mean_of_array(grad, axes, True, None)
            gx = scale * (inner - xhat * _mean_of_array(grad * xhat, axes, True, None))
        else:
            gx = grad * scale
    if has_weight and needs[1]:
        dw = _sums.add_reduce(grad * xhat, axes)
    if has_bias and needs[-1]:
        db = _sums.add_reduce(grad, axes)
    return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())


def _make_vjp(has_weight, has_bias):
    def vjp(grads, x, *affine, result, needs, running_mean, running_var, training, eps, **absent):
        """PyTorch's ``native_batch_norm_backward`` (the statistics' own outputs are not
        public here: only the output's gradient arrives)."""
        weight, _ = affine_parts(has_weight, has_bias, affine, absent)
        grad = grads[0]
        if grad is None:
            return (None,) * (1 + has_weight + has_bias)
        if type(x) is np.ndarray:  # a plain backward (nothing recorded): on the arrays
            return _vjp_on_arrays(
                grad, x, weight, result, running_mean, running_var, training, eps, needs,
                (has_weight, has_bias),
            )  # fmt: skip
        dims = (0,) + tuple(range(2, x.dim()))
        xhat, invstd = _statistics(x, running_mean, running_var, training, eps)
        gx = dw = db = None
        if needs[0]:
            scale = invstd if weight is None else invstd * per_channel(x, weight)
            if training:
                inner = grad - grad.mean(dims, keepdim=True)
                gx = scale * (inner - xhat * (grad * xhat).mean(dims, keepdim=True))
            else:
                gx = grad * scale
                if x.requires_grad:  # a function of x, as PyTorch's (its second derivative: 0)
                    gx = threshold_backward(gx, x, negative_slope=1.0)
        if has_weight and needs[1]:
            dw = (grad * xhat).sum(dims)
        if has_bias and needs[-1]:
            db = grad.sum(dims)
        return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())

    return vjp


def _make_jvp(has_weight, has_bias):
    def jvp(tx, *rest, result, running_mean, running_var, training, eps, **absent):
        """The tangents of the output, the mean and invstd (empty ones when not training)."""
        count = has_weight + has_bias
        tangents, (x, *affine) = rest[:count], rest[count:]
        t_weight, t_bias = affine_parts(has_weight, has_bias, tangents, {})
        weight, _ = affine_parts(has_weight, has_bias, affine, absent)
        dims = (0,) + tuple(range(2, x.dim()))
        xhat, invstd = _statistics(x, running_mean, running_var, training, eps)
        terms, t_mean, t_invstd = [], None, None
        if tx is not None:
            if training:
                t_mean = tx.mean(dims, keepdim=True)
                projected = (xhat * tx).mean(dims, keepdim=True)
                t_invstd = (-invstd * invstd * projected).reshape(-1)
                t_xhat = invstd * (tx - t_mean - xhat * projected)
                t_mean = t_mean.reshape(-1)
            else:
                t_xhat = tx * invstd
            terms.append(t_xhat if weight is None else t_xhat * per_channel(x, weight))
        if t_weight is not None:
            terms.append(xhat * per_channel(x, t_weight))
        if t_bias is not None:
            terms.append(per_channel(x, t_bias).expand(x.shape))
        if not training:
            t_mean = t_invstd = None
        return sum_present(terms), t_mean, t_invstd

    return jvp


def _make_composite(has_weight, has_bias):
    def composite(x, *affine, running_mean, running_var, training, eps, **absent):
        """The same three results from leafgrad ops (vmap batches these)."""
        weight, bias = affine_parts(has_weight, has_bias, affine, absent)
        xhat, invstd = _statistics(x, running_mean, running_var, training, eps)
        out = channel_affine(xhat, x, weight, bias)
        if not training:
            empty = x.new_zeros((0,))
            return out, empty, empty.clone()
        dims = (0,) + tuple(range(2, x.dim()))
        return out, x.mean(dims), invstd.reshape(-1)

    return composite


_SAVES = ("input", "weight", "running_mean", "running_var", "training", "eps")
_SAVES += ("result1", "result2")
_MAKERS = (_make_forward, _make_vjp, _make_composite, _make_jvp)
_BATCH_NORMS = declare("native_batch_norm", "NativeBatchNormBackward0", _SAVES, _MAKERS)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, eps) -> tuple:
    """``(output, mean, invstd)``; the caller has checked the shapes, that ``weight`` and
    ``bias`` (either may be None) share the input's floating dtype, and that the running
    statistics are given when not training."""
    return call(
        _BATCH_NORMS,
        input,
        weight,
        bias,
        running_mean=running_mean,
        running_var=running_var,
        training=bool(training),
        eps=float(eps),
    )
