"""Padding as ops of their own, recorded as PyTorch records them: ``constant_pad_nd``
(ConstantPadNdBackward0, saving ``pad``), and the reflection and replication pads of the
last 1, 2 or 3 dims (ReflectionPad1DBackward0 ... ReplicationPad3DBackward0, saving
``self`` and ``padding``).

A constant pad is linear when it fills with 0 (its adjoint: the pad negated, which crops);
with another fill it is affine, its tangent the zero-filled pad of the tangent. A reflection
or replication pad gathers, its backward (``reflection_pad1d_backward`` ...,
ReflectionPad1DBackwardBackward0 ...) adds each output's gradient back to its source. Like
PyTorch's, that backward takes the input too (for its shape), so under ``create_graph=True``
the gradient is a function of the input and a second ``autograd.grad`` gives zeros.
Negative amounts crop, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from .._tensor import _wrap
from ..ops._add_at import add_at
from ..ops._optable import Generic, Linear
from ..ops._primitive import primitive

__all__ = ["constant_pad_nd", "gather_pad"]


# ----- constant -----


def _constant_pad_forward(x, *, pad, value=0):
    """Crop where an amount is negative, then fill where positive, dim by dim from the last."""
    crop = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        dim = x.ndim - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        crop[dim] = slice(max(-left, 0), x.shape[dim] - max(-right, 0))
        widths[dim] = (max(left, 0), max(right, 0))
    cropped = x[tuple(crop)]
    # Into an empty array, the borders filled slab by slab (np.pad: 3x slower here, most of
    # it its Python; a (8, 3, 32, 32) pad of 1).
    out = np.empty(tuple(n + a + b for n, (a, b) in zip(cropped.shape, widths)), x.dtype)
    out[tuple(slice(a, a + n) for n, (a, _) in zip(cropped.shape, widths))] = cropped
    fill = np.asarray(value).astype(x.dtype)
    for dim, (a, b) in enumerate(widths):
        lead = (slice(None),) * dim
        if a:
            out[lead + (slice(0, a),)] = fill
        if b:
            out[lead + (slice(out.shape[dim] - b, None),)] = fill
    return out


def _negated(pad) -> tuple:
    return tuple(-p for p in pad)


_zero_pad = primitive(
    "constant_pad_nd",
    _constant_pad_forward,
    lambda grad, x, result, *, pad: _zero_pad(grad, pad=_negated(pad)),
    kind=Linear(),
    saves=("pad",),
    node_name="ConstantPadNdBackward0",
    dtype_rule="keep",
    plain_rules=True,
)

_filled_pad = primitive(
    "constant_pad_nd",
    _constant_pad_forward,
    lambda grad, x, result, *, pad, value: _zero_pad(grad, pad=_negated(pad)),
    kind=Generic(jvp=lambda tx, x, result, *, pad, value: _zero_pad(tx, pad=pad)),
    overload="value",
    saves=("pad",),
    node_name="ConstantPadNdBackward0",
    dtype_rule="keep",
    plain_rules=True,
)


def constant_pad_nd(input, pad: tuple, value=0):
    """``input`` padded with ``value`` (cropped where an amount is negative)."""
    pad = tuple(pad)
    if value == 0 and not (isinstance(value, float) and np.signbit(value)):
        return _zero_pad(input, pad=pad)
    return _filled_pad(input, pad=pad, value=value)


# ----- reflection and replication -----


def _source_indices(mode: str, size: int, left: int, right: int) -> np.ndarray:
    """Where each output position along one dim reads from (negative amounts crop)."""
    positions = np.arange(-left, size + right)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    period = 2 * (size - 1)  # reflect: mirror about both edges without repeating them
    folded = np.abs(positions) % period if period else np.zeros_like(positions)
    return np.where(folded >= size, period - folded, folded)


def _make_gather(mode):
    def forward(x, *, padding):
        out = x
        for i in range(len(padding) // 2):
            dim = x.ndim - 1 - i
            index = _source_indices(mode, x.shape[dim], padding[2 * i], padding[2 * i + 1])
            out = np.take(out, index, axis=dim)
        return out

    return forward


def _make_scatter(mode):
    def forward(grad, x, *, padding):
        """Each gradient added back at its source: the gather's adjoint (``x``: its shape)."""
        out = grad
        for i in range(len(padding) // 2):
            dim = grad.ndim - 1 - i
            size = x.shape[x.ndim - 1 - i]
            index = _source_indices(mode, size, padding[2 * i], padding[2 * i + 1])
            moved = np.moveaxis(out, dim, 0)
            total = np.zeros((size,) + moved.shape[1:], grad.dtype)
            add_at(total, index, moved)
            out = np.moveaxis(total, 0, dim)
        # Leading dims broadcast with the input's (a batched input beside an unbatched
        # gradient, as vmap and forward mode give it): the result does not vary along them.
        k = len(padding) // 2
        lead = np.broadcast_shapes(grad.shape[: grad.ndim - k], x.shape[: x.ndim - k])
        if lead != grad.shape[: grad.ndim - k]:
            return np.broadcast_to(out, lead + out.shape[out.ndim - k :]).copy()
        return np.ascontiguousarray(out)

    return forward


def _zeros_shaped(x, like):
    """Zeros of ``x``'s shape in ``like``'s dtype, reading neither's values (the backward
    keeps only the input's shape, as PyTorch's): an array beside arrays (a plain rule)."""
    if type(like) is np.ndarray:
        return np.zeros(tuple(x.shape), like.dtype)
    return _wrap(np.zeros(tuple(x.shape), like._data.dtype))


def _declare(mode: str, dims: int):
    name = {"reflect": "reflection", "replicate": "replication"}[mode] + f"_pad{dims}d"
    node = {"reflect": "Reflection", "replicate": "Replication"}[mode] + f"Pad{dims}D"

    def gather_vjp(grad, x, result, *, padding):
        return scatter(grad, x, padding=padding)

    gather = primitive(
        name,
        _make_gather(mode),
        gather_vjp,
        kind=Linear(),
        saves=("self", "padding"),
        node_name=f"{node}Backward0",
        dtype_rule="keep",
        plain_rules=True,
    )
    scatter = primitive(
        f"{name}_backward",
        _make_scatter(mode),
        (
            lambda gg, grad, x, result, *, padding: gather(gg, padding=padding),
            lambda gg, grad, x, result, *, padding: _zeros_shaped(x, gg),
        ),
        kind=Linear(),
        inputs=("grad_output", "self"),
        saves=("padding",),
        node_name=f"{node}BackwardBackward0",
        dtype_rule="keep",
        plain_rules=True,
    )
    return gather, scatter


# (mode, dims) -> (the pad, its backward)
_PADS = {(mode, dims): _declare(mode, dims) for mode in ("reflect", "replicate")
         for dims in (1, 2, 3)}  # fmt: skip


def gather_pad(input, pad: tuple, mode: str):
    """``reflect`` or ``replicate`` padding of the last ``len(pad) // 2`` dims (checked by the
    caller)."""
    return _PADS[mode, len(pad) // 2][0](input, padding=tuple(pad))
