"""Convolution as one op, recorded as PyTorch records it: ``convolution`` (ConvolutionBackward0,
saving ``input``, ``weight``, ``stride``, ``padding``, ``dilation``, ``transposed``,
``output_padding``, ``groups`` and ``bias_sym_sizes_opt``) for ``conv1d``/``2d``/``3d``.

The forward is an im2col on arrays: the kernel's offsets as windows of the (zero-)padded
input, columns ``(N, C, *kernel, *out)``, multiplied by the weight as one ``(O, C * K)``
matrix (one per group), which gives ``(N, O, *out)`` with no transpose. The rules use
``im2col`` and its adjoint ``col2im`` as linear ops of their own (each the other's VJP), so
the gradients are leafgrad ops and differentiate to any order. Both take any leading dims,
so vmap batches them as they are.
"""

from __future__ import annotations

import math

import numpy as np

import leafgrad as _lg

from ..ops._optable import Composite
from ..ops._primitive import adjoint_pair, primitive
from ..ops.activations import threshold_backward
from ..ops.im2col import col2im_nd as _col2im_forward
from ..ops.im2col import im2col_nd as _im2col_forward

__all__ = ["convolution"]


# ----- im2col and its adjoint -----

# PyTorch's im2col/col2im in convolution's layout: any spatial dims, unflattened columns
# (PyTorch's own pair is 2-D and flat, ops/im2col.py), under overloads of their own keys.
im2col, col2im = adjoint_pair(
    "im2col",
    _im2col_forward,
    "col2im",
    _col2im_forward,
    node_name="Im2ColBackward0",
    adjoint_node_name="Col2ImBackward0",
    overload="nd",
    adjoint_overload="nd",
)


# ----- the convolution -----


def _convolution_forward(x, weight, *bias, stride, padding, dilation, groups, **saved):
    """``(N, C, *spatial)`` by ``(O, C / groups, *kernel)``: ``(N, O, *out)``, one matrix
    product per example (per group) of the flat weight and the columns."""
    kernel = weight.shape[2:]
    cols = _im2col_forward(x, kernel=kernel, stride=stride, dilation=dilation, padding=padding)
    n, o, out = x.shape[0], weight.shape[0], cols.shape[cols.ndim - len(kernel) :]
    positions = math.prod(out)
    if groups == 1:
        res = np.matmul(weight.reshape(o, -1), cols.reshape(n, -1, positions))
    else:
        grouped = weight.reshape(groups, o // groups, -1)
        res = np.matmul(grouped, cols.reshape(n, groups, -1, positions))
    res = res.reshape(n, o, *out)
    if bias:
        res += bias[0].reshape((o,) + (1,) * len(out))
    return res


def _composite(x, weight, bias, params):
    """The convolution from leafgrad ops (Taylor mode and vmap take this)."""
    groups = params["groups"]
    kernel = tuple(weight.shape[2:])
    window = {k: params[k] for k in ("stride", "dilation", "padding")}
    cols = im2col(x, kernel=kernel, **window)
    n, o, out = x.shape[0], weight.shape[0], tuple(cols.shape[cols.dim() - len(kernel) :])
    positions = math.prod(out)
    if groups == 1:
        res = weight.reshape(o, -1).matmul(cols.reshape(n, -1, positions))
    else:
        grouped = weight.reshape(groups, o // groups, -1)
        res = grouped.matmul(cols.reshape(n, groups, -1, positions))
    res = res.reshape(n, o, *out)
    if bias is not None:
        res = res + bias.reshape((o,) + (1,) * len(out))
    return res


def _depending_on(gradient, tensor):
    """``gradient`` (of ``tensor``'s shape) recorded as a function of ``tensor`` too, with zero
    derivative, as PyTorch's convolution_backward is of all its operands: a second
    ``autograd.grad`` then gives zeros instead of raising. Only while a graph is recorded
    (in a plain rule, on arrays, nothing is)."""
    if type(gradient) is np.ndarray:
        return gradient
    if tensor.requires_grad and not gradient.requires_grad and _lg.is_grad_enabled():
        # grad where tensor > 0, else grad * 1: the identity in gradient
        return threshold_backward(gradient, tensor, negative_slope=1.0)
    return gradient


def _make_vjp(has_bias):
    def vjp(grad, x, weight, *bias, result, needs, **params):
        """PyTorch's convolution_backward: the input's gradient by col2im, the weight's from
        the input's columns, the bias's summed over batch and positions. Tensors or, in a
        plain rule, arrays (``swapaxes``, ``ndim`` and ``@`` take both)."""
        groups = params["groups"]
        n, o, out = grad.shape[0], grad.shape[1], tuple(grad.shape[2:])
        positions = math.prod(out)
        kernel = tuple(weight.shape[2:])
        window = {k: params[k] for k in ("stride", "dilation", "padding")}
        # (N, O, L), per group (N, G, O / G, L); the weight per group (G, O / G, C / G * K)
        flat_grad = grad.reshape(n, groups, o // groups, positions)
        grouped = weight.reshape(groups, o // groups, -1)
        gx = gw = gb = None
        if needs[0]:
            cols = grouped.swapaxes(1, 2) @ flat_grad  # (N, G, C / G * K, L)
            cols = cols.reshape(n, x.shape[1], *kernel, *out)
            gx = _depending_on(col2im(cols, shape=tuple(x.shape), kernel=kernel, **window), x)
        if needs[1]:
            cols = im2col(x, kernel=kernel, **window).reshape(n, groups, -1, positions)
            gw = (flat_grad @ cols.swapaxes(2, 3)).sum(0)  # (G, O / G, C / G * K)
            gw = _depending_on(gw.reshape(weight.shape), weight)
        if has_bias and needs[2]:
            gb = grad.sum((0, *range(2, grad.ndim)))
        return (gx, gw, gb) if has_bias else (gx, gw)

    return vjp


def _make_jvp(has_bias, product):
    def jvp(*operands, result, **params):
        """``op(tx, w) + op(x, tw) + tb``, ``op`` the unbiased op (``product()``)."""
        count = 3 if has_bias else 2
        (tx, tw, *tb), (x, weight, *_) = operands[:count], operands[count:]
        op = product()
        terms = []
        if tx is not None:
            terms.append(op(tx, weight, **params))
        if tw is not None:
            terms.append(op(x, tw, **params))
        if tb and tb[0] is not None:
            shape = (1, -1) + (1,) * (x.dim() - 2)
            terms.append(tb[0].reshape(shape).expand(result.shape))
        total = None
        for t in terms:
            total = t if total is None else total + t
        return total

    return jvp


# PyTorch's saved names (the parameters are the op's keywords).
_SAVES = ("input", "weight", "stride", "padding", "dilation", "transposed", "output_padding")
_SAVES += ("groups", "bias_sym_sizes_opt")


def declare(has_bias, overload, forward, make_vjp, composite, product, plain_rules=False):
    """A ``convolution`` overload (ConvolutionBackward0, PyTorch's saves): ``forward`` on
    arrays, ``make_vjp(has_bias)`` its rule, ``composite(x, weight, bias, params)`` for Taylor
    mode and vmap, ``product()`` the unbiased op its JVP applies to each tangent;
    ``plain_rules``: the rule runs on arrays too (``primitive``'s)."""
    return primitive(
        "convolution",
        forward,
        vjp_all=make_vjp(has_bias),
        kind=Composite(
            taylor_as=lambda x, weight, *bias, **params: composite(
                x, weight, bias[0] if bias else None, params
            ),
            jvp=_make_jvp(has_bias, product),
        ),
        overload="_".join(filter(None, (overload, "bias" if has_bias else ""))),
        inputs=("input", "weight", "bias") if has_bias else ("input", "weight"),
        saves=_SAVES,
        node_name="ConvolutionBackward0",
        dtype_rule="keep",
        absent_edges=() if has_bias else (2,),  # PyTorch's (None, 0) for no bias
        plain_rules=plain_rules,
    )


def _declare(has_bias):
    return declare(
        has_bias, "", _convolution_forward, _make_vjp, _composite, lambda: _convolution, True
    )


_convolution = _declare(False)
_convolution_bias = _declare(True)


def convolution(input, weight, bias, stride: tuple, padding: tuple, dilation: tuple, groups: int):
    """``(N, C, *spatial)`` (checked by the caller) cross-correlated with ``weight``, the
    ``padding`` on both sides of each spatial dim."""
    nd = weight.dim() - 2
    params = {
        "stride": tuple(stride),
        "padding": tuple(padding),
        "dilation": tuple(dilation),
        "groups": groups,
        "transposed": False,
        "output_padding": (0,) * nd,
        "bias_sym_sizes_opt": (0,) if bias is None else tuple(bias.shape),  # PyTorch's
    }
    if bias is None:
        return _convolution(input, weight, **params)
    return _convolution_bias(input, weight, bias, **params)
