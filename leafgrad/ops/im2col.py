"""``im2col`` and ``col2im`` as PyTorch records them (Im2ColBackward0, Col2ImBackward0): the
sliding blocks of ``(N, C, H, W)`` as columns ``(N, C * kh * kw, L)`` and their sum back,
each the other's VJP (derivatives.yaml), so every order alternates between the two. The
array kernels take any number of spatial dims and leading dims, unflattened, as convolution
uses them (``nn/_convolution_op.py``); ``nn.functional.unfold``/``fold`` check arguments.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._optable import Linear
from ._primitive import primitive


def _windows(kernel, stride, dilation, out):
    """``(offset, slices)`` per kernel offset: where that offset reads the padded input."""
    for offset in itertools.product(*(range(k) for k in kernel)):
        yield (
            offset,
            tuple(
                slice(o * d, o * d + s * (n - 1) + 1, s)
                for o, d, s, n in zip(offset, dilation, stride, out)
            ),
        )


def blocks(spatial, kernel, dilation, padding, stride) -> list[int]:
    """How many blocks fit along each spatial dim (PyTorch's formula; may be < 1)."""
    return [
        (n + 2 * p - d * (k - 1) - 1) // s + 1
        for n, k, d, p, s in zip(spatial, kernel, dilation, padding, stride)
    ]


def im2col_nd(x, *, kernel, stride, dilation, padding):
    """``(*lead, C, *spatial)`` -> ``(*lead, C, *kernel, *out)``: the input under each kernel
    offset at each output position (zero outside, ``padding`` on each side)."""
    nd = len(kernel)
    if any(padding):
        x = np.pad(x, [(0, 0)] * (x.ndim - nd) + [(p, p) for p in padding])
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    out = [(n - r) // s + 1 for n, r, s in zip(x.shape[x.ndim - nd :], reach, stride)]
    cols = np.empty((*x.shape[: x.ndim - nd], *kernel, *out), x.dtype)
    for offset, window in _windows(kernel, stride, dilation, out):
        cols[(Ellipsis, *offset, *(slice(None),) * nd)] = x[(Ellipsis, *window)]
    return cols


def col2im_nd(cols, *, shape, kernel, stride, dilation, padding):
    """The adjoint: ``(*lead, C, *kernel, *out)`` summed back into ``(*lead, C, *spatial)``
    (``shape`` ends with ``(C, *spatial)``)."""
    nd = len(kernel)
    spatial = shape[-nd:]
    lead = cols.shape[: cols.ndim - 2 * nd]  # with C
    out = cols.shape[cols.ndim - nd :]
    padded = [s + 2 * p for s, p in zip(spatial, padding)]
    total = np.zeros((*lead, *padded), cols.dtype)
    for offset, window in _windows(kernel, stride, dilation, out):
        total[(Ellipsis, *window)] += cols[(Ellipsis, *offset, *(slice(None),) * nd)]
    if not any(padding):
        return total
    crop = tuple(slice(p, p + s) for p, s in zip(padding, spatial))
    return np.ascontiguousarray(total[(Ellipsis, *crop)])


def _im2col_forward(x, *, kernel_size, dilation, padding, stride):
    """``(*, C, H, W)`` -> ``(*, C * kh * kw, L)``: the nd kernel's columns, flattened."""
    cols = im2col_nd(x, kernel=kernel_size, stride=stride, dilation=dilation, padding=padding)
    *batch, c = x.shape[:-2]
    return cols.reshape(*batch, c * math.prod(kernel_size), math.prod(cols.shape[-2:]))


def _col2im_forward(x, *, output_size, kernel_size, dilation, padding, stride):
    """``(*, C * kh * kw, L)`` -> ``(*, C, *output_size)``, overlapping blocks added."""
    out = blocks(output_size, kernel_size, dilation, padding, stride)
    c = x.shape[-2] // math.prod(kernel_size)
    cols = x.reshape(*x.shape[:-2], c, *kernel_size, *out)
    return col2im_nd(
        cols,
        shape=(c, *output_size),
        kernel=kernel_size,
        stride=stride,
        dilation=dilation,
        padding=padding,
    )


im2col = primitive(
    "im2col",
    _im2col_forward,
    lambda grad, x, *, result, kernel_size, dilation, padding, stride: col2im(
        grad,
        output_size=tuple(x.shape[-2:]),
        kernel_size=kernel_size,
        dilation=dilation,
        padding=padding,
        stride=stride,
    ),
    kind=Linear(),
    saves=("kernel_size", "dilation", "padding", "stride"),
    node_name="Im2ColBackward0",
    dtype_rule="keep",
    plain_rules=True,
)

col2im = primitive(
    "col2im",
    _col2im_forward,
    lambda grad, x, *, result, output_size, kernel_size, dilation, padding, stride: im2col(
        grad, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride
    ),
    kind=Linear(),
    saves=("kernel_size", "dilation", "padding", "stride"),
    node_name="Col2ImBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


__all__: list = []
