"""Max and average pooling over 2 or 3 trailing dims as ops of their own, recorded as
PyTorch records them: ``max_pool2d_with_indices`` (MaxPool2DWithIndicesBackward0, saving
``self``, the window parameters and the indices as ``result1``) and ``avg_pool2d``
(AvgPool2DBackward0), and their 3-D twins; 1-D pools are these on an unsqueezed dim, as in
PyTorch.

Forwards gather every window element by its flat input position (``-1`` in the padding) on
arrays; the backwards (``max_pool2d_with_indices_backward``, ``avg_pool2d_backward``, as
PyTorch's, ...BackwardBackward0) add gradients back at those positions. Each backward takes
the input too (for its shape), so under ``create_graph=True`` the gradient is a function of
the input, as PyTorch's. Leading dims are free (``(C, ...)``, ``(N, C, ...)``, or a vmap
batch in front).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._tensor import _wrap
from ..ops._add_at import add_at
from ..ops._optable import Generic, Linear
from ..ops._primitive import primitive
from . import _pool_kernels, _pool_tiles

__all__ = ["adaptive_avg_pool", "adaptive_max_pool", "avg_pool", "max_pool_with_indices"]


def _out_size(n, k, s, p, d, ceil_mode):
    """A pool's output size along a dim of ``n``."""
    span = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = span // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _out_sizes(sizes, kernel_size, stride, padding, dilation, ceil_mode):
    """A pool's output sizes over the trailing dims ``sizes``."""
    window = zip(sizes, kernel_size, stride or kernel_size, padding, dilation)
    return tuple([_out_size(n, k, s, p, d, ceil_mode) for n, k, s, p, d in window])


def _geometry(sizes, kernel_size, stride, padding, dilation, ceil_mode):
    """``(out sizes, flat input position (*out, K) of every window element or -1, and the
    ranges (start, end) per dim and output that an average counts)``."""
    stride = stride or kernel_size
    nd = len(sizes)
    outs, flat, valid = [], np.zeros((), np.int64), np.ones((), bool)
    for j, (n, k, s, p, d) in enumerate(zip(sizes, kernel_size, stride, padding, dilation)):
        out = _out_size(n, k, s, p, d, ceil_mode)
        outs.append(out)
        pos = (np.arange(out) * s - p)[:, None] + np.arange(k) * d  # (out, k)
        shape = [1] * (2 * nd)
        shape[2 * j], shape[2 * j + 1] = out, k
        flat = flat * n + pos.reshape(shape)
        valid = valid & ((pos >= 0) & (pos < n)).reshape(shape)
    order = (*range(0, 2 * nd, 2), *range(1, 2 * nd, 2))
    flat = np.where(valid, flat, -1).transpose(order)
    return outs, flat.reshape(*outs, -1), stride


def _flat_lead(x, nd):
    """``x`` as ``(L, S)``: its leading dims and its ``nd`` trailing dims each flattened."""
    return x.reshape(-1, math.prod(x.shape[x.ndim - nd :]))


# ----- max -----

_WINDOW = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")


def _max_forward(x, **params):
    nd = len(params["kernel_size"])
    sizes = x.shape[x.ndim - nd :]
    if _pool_kernels.takes(x):
        return _pool_kernels.maximum(x, _out_sizes(sizes, *(params[k] for k in _WINDOW)), params)
    return _max_forward_arrays(x, **params)


def _max_forward_arrays(x, *, kernel_size, stride, padding, dilation, ceil_mode):
    """The forward in NumPy's passes (where the compiled loops do not run)."""
    nd = len(kernel_size)
    sizes = x.shape[x.ndim - nd :]
    outs = _pool_tiles.tiles(sizes, kernel_size, stride, padding, dilation, ceil_mode)
    if outs is not None:
        return _pool_tiles.maximum(x, outs, kernel_size)
    outs, flat, _ = _geometry(sizes, kernel_size, stride, padding, dilation, ceil_mode)
    return _window_maxima(x, nd, outs, flat)


def _window_maxima(x, nd, outs, flat):
    """``(values, flat input positions)`` of the maximum of each window (``flat``: the
    window elements' flat positions ``(*outs, K)``, -1 in the padding)."""
    rows = _flat_lead(x, nd)
    inside = flat >= 0
    if inside.all():  # no padding in any window: nothing to mask
        picked = rows[:, flat]  # (L, *out, K)
    else:
        lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min  # keeps ints int
        picked = np.where(inside, rows[:, np.where(inside, flat, 0)], np.asarray(lowest, x.dtype))
    taken = np.argmax(picked, axis=-1)[..., None]  # the first maximum (or NaN)
    values = np.take_along_axis(picked, taken, -1)[..., 0]
    if values.dtype.kind in "fc" and np.isnan(values).any():
        # PyTorch's kernel takes a window's last NaN (it updates on every NaN it meets)
        last = picked.shape[-1] - 1 - np.argmax(np.isnan(picked)[..., ::-1], axis=-1)
        taken = np.where(np.isnan(values), last, taken[..., 0])[..., None]
    indices = np.take_along_axis(np.broadcast_to(flat, picked.shape), taken, -1)[..., 0]
    if not inside.all() and (indices < 0).any():
        # A window of -inf (or the integers' least) took its padding: PyTorch's index
        # there is the window's first element inside the input, where its loop starts
        first = np.take_along_axis(flat, np.argmax(inside, axis=-1)[..., None], -1)[..., 0]
        indices = np.where(indices < 0, first, indices)
    lead = x.shape[: x.ndim - nd]
    return values.reshape(*lead, *outs), indices.reshape(*lead, *outs).astype(np.int64)


def _scatter_max(grad, x, indices, *, nd):
    """``grad`` added at ``indices`` into zeros of ``x``'s trailing shape (leading dims
    broadcast: vmap may batch some operands and not others)."""
    lead = np.broadcast_shapes(*(a.shape[: a.ndim - nd] for a in (grad, x, indices)))
    grad = np.broadcast_to(grad, lead + grad.shape[grad.ndim - nd :])
    indices = np.broadcast_to(indices, grad.shape)
    g, idx = _flat_lead(grad, nd), _flat_lead(indices, nd)
    total = np.zeros((g.shape[0], math.prod(x.shape[x.ndim - nd :])), grad.dtype)
    add_at(total, (np.arange(g.shape[0])[:, None], idx), g)
    return total.reshape(*lead, *x.shape[x.ndim - nd :])


def _tiled(grad, x, indices, params):
    """The tiles' output sizes where a pool's windows tile ``x`` and ``grad`` (and
    ``indices``) are its outputs' shape (no leading dims broadcast by vmap), else None."""
    nd = len(params["kernel_size"])
    window = (params["kernel_size"], params["stride"], params["padding"])
    outs = _pool_tiles.tiles(
        x.shape[x.ndim - nd :], *window, params.get("dilation"), params["ceil_mode"]
    )
    if outs is None or grad.shape != x.shape[: x.ndim - nd] + outs:
        return None
    if indices is not None and indices.shape != grad.shape:
        return None
    return outs


def _zeros_shaped(x, like):
    """Zeros of ``x``'s shape in ``like``'s dtype, reading neither's values."""
    return _wrap(np.zeros(tuple(x.shape), like._data.dtype))


def _take_forward(grad, indices, *, nd, **params):
    """``grad`` (of the input's shape) read at ``indices`` (leading dims broadcast)."""
    lead = np.broadcast_shapes(grad.shape[: grad.ndim - nd], indices.shape[: indices.ndim - nd])
    grad = np.broadcast_to(grad, lead + grad.shape[grad.ndim - nd :])
    indices = np.broadcast_to(indices, lead + indices.shape[indices.ndim - nd :])
    taken = np.take_along_axis(_flat_lead(grad, nd), _flat_lead(indices, nd), -1)
    return taken.reshape(indices.shape)


def _declare_take(nd, backward, name):
    """PyTorch's ``max_pool_double_backward`` (a gather there: GatherBackward0), the max pool's
    linear map, whose adjoint is the pool's backward."""
    return primitive(
        name,
        functools.partial(_take_forward, nd=nd),
        (lambda gg, g, indices, result, **params: backward(gg, g, indices, **params), None),
        kind=Linear(),
        inputs=("self", "index"),
        saves=("index",),
        node_name="GatherBackward0",
        dtype_rule="keep",
    )


def _declare_max(nd: int, name: str, node: str, forward, backward_forward, saves: tuple):
    """A max pool as PyTorch records it: ``name`` (``{node}Backward0``, saving ``self``, the
    parameters ``saves`` and the indices as ``result1``), its backward ``{name}_backward``
    (``{node}BackwardBackward0``: the gradient added at the indices, by
    ``backward_forward``) and that backward's adjoint, the gather at the indices."""

    def vjp(grads, x, result, needs, **params):
        return (backward(grads[0], x, result[1], **params),)

    def jvp(tx, x, result, **params):
        return take(tx, result[1], **params), None

    pool = primitive(
        name,
        forward,
        vjp_all=vjp,
        kind=Generic(jvp=jvp),
        inputs=("self",),
        outputs=("result0", "result1"),
        saves=("self", *saves, "result1"),
        node_name=f"{node}Backward0",
        dtype_rule="keep",
        num_outputs=2,
    )
    backward = primitive(
        f"{name}_backward",
        backward_forward,
        (
            lambda gg, grad, x, indices, result, **params: take(gg, indices, **params),
            lambda gg, grad, x, indices, result, **params: _zeros_shaped(x, gg),
            None,
        ),
        kind=Linear(),
        inputs=("grad_output", "self", "indices"),
        saves=("indices", *saves),
        node_name=f"{node}BackwardBackward0",
        dtype_rule="keep",
    )
    take = _declare_take(nd, backward, f"{name.removesuffix('_with_indices')}_double_backward")
    return pool, backward, take


def _declare_window_max(nd: int):
    """PyTorch's ``max_pool{nd}d_with_indices`` (MaxPool{nd}DWithIndicesBackward0)."""

    def backward_forward(grad, x, indices, **params):
        if _pool_kernels.takes(grad) and grad.shape == indices.shape:
            sizes = x.shape[x.ndim - nd :]
            outs = _out_sizes(sizes, *(params[k] for k in _WINDOW))
            if grad.shape == x.shape[: x.ndim - nd] + outs:
                total = _pool_kernels.maximum_backward(grad, x.shape, indices, nd)
                if total is not None:
                    return total
        return _backward_arrays(grad, x, indices, params)

    def _backward_arrays(grad, x, indices, params):
        outs = _tiled(grad, x, indices, params)
        if outs is not None:
            return _pool_tiles.maximum_backward(grad, x.shape, indices, outs, params["kernel_size"])
        return _scatter_max(grad, x, indices, nd=nd)

    saves = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
    name, node = f"max_pool{nd}d_with_indices", f"MaxPool{nd}DWithIndices"
    return _declare_max(nd, name, node, _max_forward, backward_forward, saves)


def _declare_adaptive_max(nd: int):
    """PyTorch's ``adaptive_max_pool{nd}d`` (AdaptiveMaxPool{nd}DBackward0, saving ``self``
    and ``result1`` only): ``windows``, the flat positions ``(*outs, K)`` of each window's
    elements (a short window repeats its last one), made by the caller."""

    def forward(x, *, windows):
        return _window_maxima(x, nd, windows.shape[:-1], windows)

    def backward_forward(grad, x, indices, **params):
        return _scatter_max(grad, x, indices, nd=nd)

    name, node = f"adaptive_max_pool{nd}d", f"AdaptiveMaxPool{nd}D"
    return _declare_max(nd, name, node, forward, backward_forward, ())


# ----- average -----


def _divisor(sizes, kernel_size, stride, padding, ceil_mode, count_include_pad):
    """Each output's divisor ``(*out)``: its window's size within the padded input (or
    within the input, without ``count_include_pad``), never what ceil mode adds past it."""
    stride = stride or kernel_size
    divisor = np.ones((), np.float64)
    for j, (n, k, s, p) in enumerate(zip(sizes, kernel_size, stride, padding)):
        span = n + 2 * p - (k - 1) - 1 + (s - 1 if ceil_mode else 0)
        out = span // s + 1
        if ceil_mode and (out - 1) * s >= n + p:
            out -= 1
        start = np.arange(out) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        shape = [1] * len(sizes)
        shape[j] = out
        divisor = divisor * (end - start).reshape(shape)
    return divisor


def _avg_geometry(x_shape, params):
    nd = len(params["kernel_size"])
    sizes = x_shape[len(x_shape) - nd :]
    window = (params["kernel_size"], params["stride"], params["padding"], (1,) * nd)
    outs, flat, _ = _geometry(sizes, *window, params["ceil_mode"])
    if params["divisor_override"]:
        divisor = np.full(outs, float(params["divisor_override"]))
    else:
        keys = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")
        divisor = _divisor(sizes, *(params[k] for k in keys))
    return nd, outs, flat, divisor


def _avg_tiles(x_shape, params):
    """``(outs, kernel_size, divisor)`` where the windows tile the input, else None."""
    kernel_size = params["kernel_size"]
    nd = len(kernel_size)
    window = (kernel_size, params["stride"], params["padding"], None, params["ceil_mode"])
    outs = _pool_tiles.tiles(x_shape[len(x_shape) - nd :], *window)
    if outs is None:
        return None
    return outs, kernel_size, params["divisor_override"] or math.prod(kernel_size)


def _avg_forward(x, **params):
    tiled = _avg_tiles(x.shape, params)
    if tiled is not None:
        return _pool_tiles.average(x, *tiled)
    nd, outs, flat, divisor = _avg_geometry(x.shape, params)
    rows = _flat_lead(x, nd)
    picked = np.where(flat >= 0, rows[:, np.where(flat >= 0, flat, 0)], 0)
    out = picked.sum(-1) / divisor.astype(x.dtype)
    return out.reshape(*x.shape[: x.ndim - nd], *outs).astype(x.dtype, copy=False)


def _avg_backward_forward(grad, x, **params):
    """Each output's gradient over its divisor, added at every element of its window (leading
    dims broadcast: vmap may batch some operands and not others)."""
    tiled = _avg_tiles(x.shape, params)
    if tiled is not None and _tiled(grad, x, None, params) is not None:
        return _pool_tiles.average_backward(grad, x.shape, *tiled)
    nd, _, flat, divisor = _avg_geometry(x.shape, params)
    lead = np.broadcast_shapes(grad.shape[: grad.ndim - nd], x.shape[: x.ndim - nd])
    grad = np.broadcast_to(grad, lead + grad.shape[grad.ndim - nd :])
    g = _flat_lead(grad, nd) / divisor.reshape(-1).astype(grad.dtype)  # (L, O)
    size = math.prod(x.shape[x.ndim - nd :])
    total = np.zeros((g.shape[0], size + 1), grad.dtype)  # the last column: the padding
    positions = np.where(flat >= 0, flat, size).reshape(-1, flat.shape[-1])  # (O, K)
    spread = np.broadcast_to(g[:, :, None], g.shape + positions.shape[-1:])
    add_at(total, (np.arange(g.shape[0])[:, None, None], positions[None]), spread)
    return total[:, :size].reshape(*lead, *x.shape[x.ndim - nd :])


def _declare_avg(nd: int):
    node = f"AvgPool{nd}D"
    saves = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")
    saves += ("divisor_override",)
    pool = primitive(
        f"avg_pool{nd}d",
        _avg_forward,
        lambda grad, x, result, **params: backward(grad, x, **params),
        kind=Linear(),
        saves=("self", *saves),
        node_name=f"{node}Backward0",
        dtype_rule="keep",
    )
    backward = primitive(
        f"avg_pool{nd}d_backward",
        _avg_backward_forward,
        (
            lambda gg, grad, x, result, **params: pool(gg, **params),
            lambda gg, grad, x, result, **params: _zeros_shaped(x, gg),
        ),
        kind=Linear(),
        inputs=("grad_output", "self"),
        saves=saves,
        node_name=f"{node}BackwardBackward0",
        dtype_rule="keep",
    )
    return pool, backward


# ----- adaptive average -----

_SIZE_NAMES = ("grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2",
               "grad_output_sym_argsize_minus_3")  # fmt: skip


def _box_weights(n, out, dtype):
    """``(out, n)``: row ``i`` averages PyTorch's window ``[floor(i n / out), ceil((i + 1) n /
    out))``."""
    i = np.arange(out)
    start, end = (i * n) // out, -((-(i + 1) * n) // out)
    cols = np.arange(n)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _box_apply(x, nd, sizes, outs, transpose):
    """The box means of ``x``'s last ``nd`` dims (``sizes``) to ``outs``, one dim at a time
    (box means are separable), or their adjoint (``transpose``: ``x`` has ``outs``)."""
    for j, (n, out) in enumerate(zip(sizes, outs)):
        weights = _box_weights(n, out, x.dtype)
        axis = x.ndim - nd + j
        product = np.tensordot(x, weights if transpose else weights.T, axes=([axis], [0]))
        x = np.moveaxis(product, -1, axis)
    return np.ascontiguousarray(x)


def _declare_adaptive_avg(nd: int):
    """PyTorch's ``_adaptive_avg_pool{nd}d`` (AdaptiveAvgPool{nd}DBackward0, saving ``self``)
    and its backward ``_adaptive_avg_pool{nd}d_backward(grad_output, self)``
    (AdaptiveAvgPool{nd}DBackwardBackward0, saving the output sizes), each the other's VJP."""
    names = _SIZE_NAMES[:nd][::-1]  # the sizes of the output's last nd dims, in order

    def forward(x, *, output_size):
        return _box_apply(x, nd, x.shape[x.ndim - nd :], output_size, False)

    def backward_forward(grad, x, **sizes):
        lead = np.broadcast_shapes(grad.shape[: grad.ndim - nd], x.shape[: x.ndim - nd])
        grad = np.broadcast_to(grad, lead + grad.shape[grad.ndim - nd :])
        outs = tuple(sizes[k] for k in names)
        return _box_apply(grad, nd, x.shape[x.ndim - nd :], outs, True)

    def pool_vjp(grad, x, result, **params):
        return backward(grad, x, **dict(zip(names, grad.shape[grad.ndim - nd :])))

    pool = primitive(
        f"_adaptive_avg_pool{nd}d",
        forward,
        pool_vjp,
        kind=Linear(),
        saves=("self",),
        node_name=f"AdaptiveAvgPool{nd}DBackward0",
        dtype_rule="keep",
    )
    backward = primitive(
        f"_adaptive_avg_pool{nd}d_backward",
        backward_forward,
        (
            lambda gg, grad, x, result, **sizes: pool(
                gg, output_size=tuple(sizes[k] for k in names)
            ),
            lambda gg, grad, x, result, **sizes: _zeros_shaped(x, gg),
        ),
        kind=Linear(),
        inputs=("grad_output", "self"),
        saves=names,
        node_name=f"AdaptiveAvgPool{nd}DBackwardBackward0",
        dtype_rule="keep",
    )
    return pool, backward


_MAX = {nd: _declare_window_max(nd) for nd in (2, 3)}
_ADAPTIVE_MAX = {nd: _declare_adaptive_max(nd) for nd in (2, 3)}
_AVG = {nd: _declare_avg(nd) for nd in (2, 3)}
_ADAPTIVE_AVG = {nd: _declare_adaptive_avg(nd) for nd in (2, 3)}


def max_pool_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode):
    """``(values, flat indices)`` over the last ``len(kernel_size)`` (2 or 3) dims; the
    parameters checked by the caller, ``stride=()`` for the kernel's."""
    return _MAX[len(kernel_size)][0](
        input,
        kernel_size=tuple(kernel_size),
        stride=tuple(stride),
        padding=tuple(padding),
        dilation=tuple(dilation),
        ceil_mode=bool(ceil_mode),
    )


def avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """The average over the last ``len(kernel_size)`` (2 or 3) dims (checked by the caller)."""
    return _AVG[len(kernel_size)][0](
        input,
        kernel_size=tuple(kernel_size),
        stride=tuple(stride),
        padding=tuple(padding),
        ceil_mode=bool(ceil_mode),
        count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override,
    )


def adaptive_max_pool(input, windows):
    """``(values, flat indices)`` of the windows ``windows`` ``(*outs, K)`` (flat positions
    over the last ``len(outs)``, 2 or 3, dims)."""
    return _ADAPTIVE_MAX[windows.ndim - 1][0](input, windows=windows)


def adaptive_avg_pool(input, output_size):
    """The box means of the last ``len(output_size)`` (2 or 3) dims to ``output_size``."""
    return _ADAPTIVE_AVG[len(output_size)][0](input, output_size=tuple(output_size))
