"""Layer normalisation as one op, recorded as PyTorch records it: ``native_layer_norm``
(NativeLayerNormBackward0) returns the output, the mean and the reciprocal standard deviation
(``rstd``, over the normalised trailing dims, kept as size 1), and saves ``input``,
``weight``, ``bias``, ``normalized_shape`` and the two statistics (``_saved_result1``,
``_saved_result2``).

Which of ``weight`` and ``bias`` are given picks one of four overloads (``_norm_overloads``:
each takes only the tensors it has; an absent one is a None parameter, saved as PyTorch
saves it). The VJP is
PyTorch's ``native_layer_norm_backward`` in leafgrad ops (plus the terms of the statistics'
own gradients, for ``torch.native_layer_norm``'s other outputs), so the op differentiates to
any order. Forward mode uses its JVP, Taylor mode nested duals through
it, vmap the composite.
"""

from __future__ import annotations

import math

import numpy as np

from ..ops import _sums
from ..ops.reduction import _mean_of_array
from . import _norm_kernels
from ._norm_overloads import affine_parts, call, declare

__all__ = ["native_layer_norm"]


def _dims(normalized_shape) -> tuple:
    return tuple(range(-len(normalized_shape), 0))


def _make_forward(has_weight, has_bias):
    def forward(x, *affine, normalized_shape, eps, **absent):
        """``(x - mean) * rstd * weight + bias``, mean and rstd over the trailing dims."""
        weight, bias = affine_parts(has_weight, has_bias, affine, absent)
        if not x.flags.c_contiguous:  # PyTorch's kernel reads input.contiguous(): so is out
            x = np.ascontiguousarray(x)
        compiled = _norm_kernels.takes(x, weight, bias)
        if compiled is not None:  # one compiled pass (numba)
            k = len(normalized_shape)
            out, mean, rstd = _norm_kernels.layer_norm(
                compiled, x, normalized_shape, weight, bias, eps
            )
            shape = x.shape[: x.ndim - k] + (1,) * k
            return out, mean.reshape(shape), rstd.reshape(shape)
        axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        mean = _mean_of_array(x, axes, True, None)
        centered = x - mean
        var = _mean_of_array(centered * centered, axes, True, None)
        rstd = 1 / np.sqrt(var + eps)
        out = centered * rstd
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        return out, mean, rstd

    return forward


def _statistics(x, dims, eps):
    """``(xhat, rstd)`` from ``x`` itself. Rules recompute them rather than read the saved
    outputs: those come back without their forward-mode tangents (forward over reverse), and
    a rule differentiated again then needs no path through the node's own outputs."""
    centered = x - x.mean(dims, keepdim=True)
    rstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
    return centered * rstd, rstd


def _nonzero(grad) -> bool:
    """Whether a statistic's gradient (an array, or None) has a nonzero (or NaN) value.
    ``count_nonzero``, not ``any``: 0.27 us on (64, 1) zeros against 1.2 (a ufunc's
    reduction), twice in every backward."""
    return grad is not None and np.count_nonzero(grad) != 0


def _vjp_on_arrays(grads, x, weight, result, needs, normalized_shape, has_weight, has_bias):
    """The VJP on NumPy arrays (a plain backward): the tensor rule's NumPy calls in its order
    (the statistics as the forward computed them, which is how the rule recomputes them), so
    the same bits."""
    grad, grad_mean, grad_rstd = grads
    _, mean, rstd = result
    n = math.prod(normalized_shape)
    # (gradients of the statistics themselves, rare: NumPy's path; zeros arrive for unused ones)
    plain = not _nonzero(grad_mean) and not _nonzero(grad_rstd)
    compiled = _norm_kernels.takes_grad(grad, x, weight) if plain else None
    if compiled is not None:  # one compiled pass (numba)
        kernel_needs = (needs[0], has_weight and needs[1], has_bias and needs[-1])
        gx, dw, db = _norm_kernels.layer_norm_backward(
            compiled, grad, x, normalized_shape, weight, mean, rstd, kernel_needs
        )
        return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())
    k = len(normalized_shape)
    axes = tuple(range(x.ndim - k, x.ndim))
    leading = tuple(range(x.ndim - k))
    xhat = (x - mean) * rstd
    gx = dw = db = None
    if needs[0]:
        g = grad * weight if weight is not None else grad
        inner = g - _mean_of_array(g, axes, True, None)
        gx = rstd * (inner - xhat * _mean_of_array(g * xhat, axes, True, None))
        if _nonzero(grad_mean):
            gx = gx + np.broadcast_to(grad_mean / n, x.shape)
        if _nonzero(grad_rstd):
            gx = gx + grad_rstd * rstd * rstd * xhat * (-1 / n)
    if has_weight and needs[1]:
        dw = _sums.add_reduce(grad * xhat, leading) if leading else grad * xhat
    if has_bias and needs[-1]:
        db = _sums.add_reduce(grad, leading) if leading else grad
    return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())


def _make_vjp(has_weight, has_bias):
    def vjp(grads, x, *affine, result, needs, normalized_shape, eps, **absent):
        """PyTorch's ``native_layer_norm_backward``; gradients of the mean and rstd (from a
        differentiated rule) add their own terms to the input's."""
        weight, _ = affine_parts(has_weight, has_bias, affine, absent)
        grad, grad_mean, grad_rstd = grads
        if type(x) is np.ndarray:  # a plain backward (nothing recorded): on the arrays
            return _vjp_on_arrays(
                grads, x, weight, result, needs, normalized_shape, has_weight, has_bias
            )
        dims = _dims(normalized_shape)
        leading = tuple(range(x.dim() - len(dims)))
        n = math.prod(normalized_shape)
        xhat, rstd = _statistics(x, dims, eps)
        gx = dw = db = None
        if needs[0]:
            terms = []
            if grad is not None:
                g = grad * weight if weight is not None else grad
                inner = g - g.mean(dims, keepdim=True)
                terms.append(rstd * (inner - xhat * (g * xhat).mean(dims, keepdim=True)))
            if grad_mean is not None:
                terms.append((grad_mean / n).expand(x.shape))
            if grad_rstd is not None:
                terms.append(grad_rstd * rstd * rstd * xhat * (-1 / n))
            if terms:
                gx = terms[0]
                for t in terms[1:]:
                    gx = gx + t
        if grad is not None:
            if has_weight and needs[1]:
                dw = (grad * xhat).sum(leading) if leading else grad * xhat
            if has_bias and needs[-1]:
                db = grad.sum(leading) if leading else grad
        return (gx,) + ((dw,) if has_weight else ()) + ((db,) if has_bias else ())

    return vjp


def _make_jvp(has_weight, has_bias):
    def jvp(tx, *rest, result, normalized_shape, eps, **absent):
        """The tangents of the output, the mean and rstd."""
        count = has_weight + has_bias
        tangents, (x, *affine) = rest[:count], rest[count:]
        t_weight, t_bias = affine_parts(has_weight, has_bias, tangents, {})
        weight, _ = affine_parts(has_weight, has_bias, affine, absent)
        dims = _dims(normalized_shape)
        xhat, rstd = _statistics(x, dims, eps)
        terms, t_mean, t_rstd = [], None, None
        if tx is not None:
            t_mean = tx.mean(dims, keepdim=True)
            projected = (xhat * tx).mean(dims, keepdim=True)
            t_rstd = -rstd * rstd * projected
            t_xhat = rstd * (tx - t_mean - xhat * projected)
            terms.append(t_xhat * weight if weight is not None else t_xhat)
        if t_weight is not None:
            terms.append(xhat * t_weight)
        if t_bias is not None:
            terms.append(t_bias.expand(x.shape))
        t_out = None
        for t in terms:
            t_out = t if t_out is None else t_out + t
        return t_out, t_mean, t_rstd

    return jvp


def _make_composite(has_weight, has_bias):
    def composite(x, *affine, normalized_shape, eps, **absent):
        """The same three results from leafgrad ops (vmap batches these)."""
        weight, bias = affine_parts(has_weight, has_bias, affine, absent)
        dims = _dims(normalized_shape)
        mean = x.mean(dims, keepdim=True)
        centered = x - mean
        rstd = ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()
        out = centered * rstd
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        return out, mean, rstd

    return composite


_SAVES = ("input", "normalized_shape", "weight", "bias", "result1", "result2")
_MAKERS = (_make_forward, _make_vjp, _make_composite, _make_jvp)
_LAYER_NORMS = declare("native_layer_norm", "NativeLayerNormBackward0", _SAVES, _MAKERS)


def native_layer_norm(input, normalized_shape: tuple, weight, bias, eps: float) -> tuple:
    """``(output, mean, rstd)``; the caller has checked the shapes and that ``weight`` and
    ``bias`` (either may be None) share the input's floating dtype."""
    return call(
        _LAYER_NORMS, input, weight, bias, normalized_shape=tuple(normalized_shape), eps=eps
    )
