"""Group normalisation as one op, recorded as PyTorch records it: ``native_group_norm``
(NativeGroupNormBackward0) returns the output, the mean and the reciprocal standard deviation
of each group (``(N, group)``), and saves ``input``, ``weight``, ``N``, ``C``, ``HxW``,
``group``, ``eps`` and the two statistics (``_saved_result1``, ``_saved_result2``).

The channels (dim 1) of an ``(N, C, *)`` input fall into ``group`` groups, each normalised
over its channels and the trailing dims; ``weight`` and ``bias`` are per channel (the four
overloads of ``_norm_overloads``). The VJP is PyTorch's ``native_group_norm_backward`` in
leafgrad ops (so the op differentiates to any order), on arrays in a plain backward; forward
mode uses its JVP, Taylor mode and vmap the composite. Why one op: the composite recorded a
dozen ops a call, 5.8x PyTorch's time on a (8, 16, 16, 16) forward and backward.
"""

from __future__ import annotations

import numpy as np

from ..ops import _sums
from ..ops._tangents import sum_present
from ..ops.reduction import _mean_of_array
from . import _norm_kernels
from ._norm_overloads import affine_parts, call, channel_affine, declare, per_channel

__all__ = ["native_group_norm"]


def _grouped(x, group):
    return x.reshape(x.shape[0], group, -1)


def _channel_axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _array_statistics(x, group, eps):
    """``(mean, centered, rstd)`` of the grouped array ``x`` (N, group, M), on arrays (the
    forward's and the plain VJP's)."""
    grouped = _grouped(x, group)
    mean = _mean_of_array(grouped, (2,), True, None)
    centered = grouped - mean
    rstd = 1 / np.sqrt(_mean_of_array(centered * centered, (2,), True, None) + eps)
    return mean, centered, rstd


def _make_forward(has_weight, has_bias):
    def forward(x, *affine, N, C, HxW, group, eps, **absent):
        """``(x - mean) * rstd`` per group, then ``* weight + bias`` per channel."""
        weight, bias = affine_parts(has_weight, has_bias, affine, absent)
        compiled = _norm_kernels.takes(x, weight, bias)
        if compiled is not None:  # one compiled pass (numba)
            out, mean, rstd = _norm_kernels.group_norm(compiled, x, group, weight, bias, eps)
            return out, mean.reshape(N, group), rstd.reshape(N, group)
        mean, centered, rstd = _array_statistics(x, group, eps)
        out = channel_affine((centered * rstd).reshape(x.shape), x, weight, bias)
        return out, mean.reshape(N, group), rstd.reshape(N, group)

    return forward


def _statistics(x, group, eps):
    """``(xhat, rstd)`` of the grouped ``x`` (N, group, M), recomputed by the rules from the
    input (as layer norm's: the saved outputs carry no tangents)."""
    grouped = _grouped(x, group)
    centered = grouped - grouped.mean(2, keepdim=True)
    rstd = ((centered * centered).mean(2, keepdim=True) + eps).rsqrt()
    return centered * rstd, rstd


def _make_vjp(has_weight, has_bias):
    def vjp(grads, x, *affine, result, needs, N, C, HxW, group, eps, **absent):
        """PyTorch's ``native_group_norm_backward`` (only the output's gradient arrives: the
        statistics are not public outputs here)."""
        weight, _ = affine_parts(has_weight, has_bias, affine, absent)
        grad = grads[0]
        if grad is None:
            return (None,) * (1 + has_weight + has_bias)
        if type(x) is np.ndarray:  # a plain backward (nothing recorded): on the arrays
            return _on_arrays(grad, x, weight, result, group, eps, needs, (has_weight, has_bias))
        xhat, rstd = _statistics(x, group, eps)
        gx = dw = db = None
        if needs[0]:
            g = grad if weight is None else grad * per_channel(x, weight)
            g = _grouped(g, group)
            inner = g - g.mean(2, keepdim=True)
            gx = (rstd * (inner - xhat * (g * xhat).mean(2, keepdim=True))).reshape(x.shape)
        axes = _channel_axes(x)
        if has_weight and needs[1]:
            dw = (grad * xhat.reshape(x.shape)).sum(axes)
        if has_bias and needs[-1]:
            db = grad.sum(axes)
        return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())

    return vjp


def _on_arrays(grad, x, weight, result, group, eps, needs, has):
    """The VJP on NumPy arrays (a plain backward): the tensor rule's NumPy calls, or one
    compiled pass from the forward's statistics (``result``)."""
    has_weight, has_bias = has
    compiled = _norm_kernels.takes_grad(grad, x, weight)
    if compiled is not None:
        kernel_needs = (needs[0], has_weight and needs[1], has_bias and needs[-1])
        _, mean, rstd = result
        gx, dw, db = _norm_kernels.group_norm_backward(
            compiled, grad, x, group, weight, mean, rstd, kernel_needs
        )
        return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())
    _, centered, rstd = _array_statistics(x, group, eps)
    xhat = centered * rstd
    gx = dw = db = None
    if needs[0]:
        g = grad if weight is None else grad * per_channel(x, weight)
        g = _grouped(g, group)
        inner = g - _mean_of_array(g, (2,), True, None)
        gx = rstd * (inner - xhat * _mean_of_array(g * xhat, (2,), True, None))
        gx = gx.reshape(x.shape)
    axes = _channel_axes(x)
    if has_weight and needs[1]:
        dw = _sums.add_reduce(grad * xhat.reshape(x.shape), axes)
    if has_bias and needs[-1]:
        db = _sums.add_reduce(grad, axes)
    return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())


def _make_jvp(has_weight, has_bias):
    def jvp(tx, *rest, result, N, C, HxW, group, eps, **absent):
        """The tangents of the output, the mean and rstd."""
        count = has_weight + has_bias
        tangents, (x, *affine) = rest[:count], rest[count:]
        t_weight, t_bias = affine_parts(has_weight, has_bias, tangents, {})
        weight, _ = affine_parts(has_weight, has_bias, affine, absent)
        xhat, rstd = _statistics(x, group, eps)
        terms, t_mean, t_rstd = [], None, None
        if tx is not None:
            t = _grouped(tx, group)
            t_mean = t.mean(2, keepdim=True)
            projected = (xhat * t).mean(2, keepdim=True)
            t_rstd = (-rstd * rstd * projected).reshape(N, group)
            t_xhat = (rstd * (t - t_mean - xhat * projected)).reshape(x.shape)
            t_mean = t_mean.reshape(N, group)
            terms.append(t_xhat if weight is None else t_xhat * per_channel(x, weight))
        if t_weight is not None:
            terms.append(xhat.reshape(x.shape) * per_channel(x, t_weight))
        if t_bias is not None:
            terms.append(per_channel(x, t_bias).expand(x.shape))
        return sum_present(terms), t_mean, t_rstd

    return jvp


def _make_composite(has_weight, has_bias):
    def composite(x, *affine, N, C, HxW, group, eps, **absent):
        """The same three results from leafgrad ops (vmap batches these)."""
        weight, bias = affine_parts(has_weight, has_bias, affine, absent)
        grouped = _grouped(x, group)
        mean = grouped.mean(2, keepdim=True)
        centered = grouped - mean
        rstd = ((centered * centered).mean(2, keepdim=True) + eps).rsqrt()
        out = channel_affine((centered * rstd).reshape(x.shape), x, weight, bias)
        return out, mean.reshape(N, group), rstd.reshape(N, group)

    return composite


_SAVES = ("input", "weight", "N", "C", "HxW", "group", "eps", "result1", "result2")
_MAKERS = (_make_forward, _make_vjp, _make_composite, _make_jvp)
_GROUP_NORMS = declare("native_group_norm", "NativeGroupNormBackward0", _SAVES, _MAKERS)


def native_group_norm(input, weight, bias, group: int, eps: float) -> tuple:
    """``(output, mean, rstd)``; the caller has checked the shapes and dtypes."""
    n, c = input.shape[0], input.shape[1]
    hxw = input.numel() // (n * c) if n * c else 0
    return call(
        _GROUP_NORMS, input, weight, bias, N=n, C=c, HxW=hxw, group=int(group), eps=float(eps)
    )
