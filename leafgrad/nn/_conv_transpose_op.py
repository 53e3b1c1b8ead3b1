"""The transposed convolution as one op, recorded as PyTorch records it: ``convolution`` with
``transposed=True`` (ConvolutionBackward0, edges to the input, the weight and the bias).

Its forward is the adjoint of the convolution's: each input position's channels times the
weight, ``(C_out * K)`` values per position, summed into the output by ``col2im``. So its
input's gradient is the plain convolution of the output's gradient with the same weight, and
its weight's gradient pairs the input with that gradient's ``im2col`` columns; both are
leafgrad ops, so they differentiate to any order.
"""

from __future__ import annotations

import math

import numpy as np

from ..ops.im2col import col2im_nd as _col2im_forward
from ._convolution_op import _depending_on, col2im, convolution, declare, im2col

__all__ = ["output_size", "transposed_convolution"]


def output_size(spatial, kernel, stride, padding, dilation, output_padding) -> tuple:
    """PyTorch's ``(in - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1``."""
    return tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, k, s, p, d, op in zip(spatial, kernel, stride, padding, dilation, output_padding)
    )


def _window(params) -> dict:
    return {k: params[k] for k in ("stride", "dilation", "padding")}


def _forward(x, weight, *bias, stride, padding, dilation, groups, output_padding, **saved):
    """``(N, C_in, *in)`` by ``(C_in, C_out / groups, *kernel)``: ``(N, C_out, *out)``."""
    kernel = weight.shape[2:]
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    o = weight.shape[1] * groups
    grouped = weight.reshape(groups, c // groups, -1).transpose(0, 2, 1)  # (G, O/G * K, C/G)
    cols = np.matmul(grouped, x.reshape(n, groups, c // groups, math.prod(spatial)))
    out = output_size(spatial, kernel, stride, padding, dilation, output_padding)
    res = _col2im_forward(
        cols.reshape(n, o, *kernel, *spatial),
        shape=(n, o, *out),
        kernel=kernel,
        stride=stride,
        dilation=dilation,
        padding=padding,
    )
    if bias:
        res += bias[0].reshape((o,) + (1,) * len(out))
    return res


def _composite(x, weight, bias, params):
    """The transposed convolution from leafgrad ops (Taylor mode and vmap take this)."""
    groups, kernel = params["groups"], tuple(weight.shape[2:])
    n, c, spatial = x.shape[0], x.shape[1], tuple(x.shape[2:])
    o = weight.shape[1] * groups
    grouped = weight.reshape(groups, c // groups, -1).transpose(1, 2)
    cols = grouped.matmul(x.reshape(n, groups, c // groups, math.prod(spatial)))
    out = output_size(spatial, kernel, *(params[k] for k in _SIZE_PARAMS))
    res = col2im(cols.reshape(n, o, *kernel, *spatial), shape=(n, o, *out), kernel=kernel,
                 **_window(params))  # fmt: skip
    if bias is not None:
        res = res + bias.reshape((o,) + (1,) * len(out))
    return res


_SIZE_PARAMS = ("stride", "padding", "dilation", "output_padding")


def _input_positions(t, x):
    """``t``'s trailing dims cut to ``x``'s spatial sizes: an ``output_padding`` of a stride
    or more (allowed below the dilation) gives the gradient's windows positions past the
    input's last, which no input value reached."""
    nd = x.dim() - 2
    for i, size in enumerate(x.shape[2:]):
        dim = t.dim() - nd + i
        if t.shape[dim] != size:
            t = t.narrow(dim, 0, size)
    return t


def _make_vjp(has_bias):
    def vjp(grad, x, weight, *bias, result, needs, **params):
        """The input's gradient: the convolution of ``grad`` with the weight; the weight's:
        the input against ``grad``'s columns, per group; the bias's: ``grad`` summed."""
        groups, kernel = params["groups"], tuple(weight.shape[2:])
        window = _window(params)
        gx = gw = gb = None
        if needs[0]:
            gx = convolution(grad, weight, None, groups=groups, **window)
            gx = _depending_on(_input_positions(gx, x), x)
        if needs[1]:
            n, c, positions = x.shape[0], x.shape[1], math.prod(x.shape[2:])
            cols = _input_positions(im2col(grad, kernel=kernel, **window), x)
            cols = cols.reshape(n, groups, -1, positions)
            flat = x.reshape(n, groups, c // groups, positions)
            gw = flat.matmul(cols.transpose(2, 3)).sum(0)  # (G, C/G, O/G * K)
            gw = _depending_on(gw.reshape(weight.shape), weight)
        if has_bias and needs[2]:
            gb = grad.sum((0, *range(2, grad.dim())))
        return (gx, gw, gb) if has_bias else (gx, gw)

    return vjp


def _declare(has_bias):
    return declare(has_bias, "transposed", _forward, _make_vjp, _composite, lambda: _transposed)


_transposed = _declare(False)
_transposed_bias = _declare(True)


def transposed_convolution(input, weight, bias, stride, padding, output_padding, dilation, groups):
    """``(N, C_in, *spatial)`` (checked by the caller) through the transposed convolution of
    ``weight`` ``(C_in, C_out / groups, *kernel)``."""
    params = {
        "stride": tuple(stride),
        "padding": tuple(padding),
        "dilation": tuple(dilation),
        "groups": groups,
        "transposed": True,
        "output_padding": tuple(output_padding),
        "bias_sym_sizes_opt": (0,) if bias is None else tuple(bias.shape),  # PyTorch's
    }
    if bias is None:
        return _transposed(input, weight, **params)
    return _transposed_bias(input, weight, bias, **params)
