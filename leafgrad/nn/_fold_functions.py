"""``unfold`` (im2col) and ``fold`` (col2im) of ``nn.functional``: PyTorch's argument checks,
in its order, then its ops (``ops/im2col.py``: Im2ColBackward0, Col2ImBackward0), batched
or not, each the other's gradient.
"""

from __future__ import annotations

import operator

from .. import Tensor
from ..ops import im2col as _im2col
from ._activation_functions import _check_kernel_dtype

__all__ = ["fold", "unfold"]


def _pair(value, name: str, op: str) -> tuple:
    """``nn.functional``'s ``_pair`` (an int twice, an iterable as a tuple), then the op's
    int-list parsing (TypeError) and its length check (RuntimeError)."""
    try:
        values = tuple(value)
    except TypeError:
        values = (value, value)
    ints = []
    for pos, v in enumerate(values):
        if isinstance(v, bool):
            v = None  # PyTorch's int lists refuse bools
        try:
            ints.append(operator.index(v))
        except TypeError:
            raise TypeError(
                f"{op}(): argument '{name}' must be a tuple of ints, but found an element of "
                f"type {type(v if v is not None else value[pos]).__name__} at position {pos}"
            ) from None
    return tuple(ints)


def _check_lengths(**pairs) -> None:
    for name, values in pairs.items():
        if len(values) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")


_CHECKS = {
    "kernel_size": (lambda v: v > 0, "kernel size should be greater than zero", "kernel"),
    "dilation": (lambda v: v > 0, "dilation should be greater than zero", "dilation"),
    "padding": (lambda v: v >= 0, "padding should be non-negative", "pad"),
    "stride": (lambda v: v > 0, "stride should be greater than zero", "stride"),
}


def _check_values(order, pairs: dict) -> None:
    """PyTorch's shape checks on the window parameters, in the order its kernel runs them."""
    for name in order:
        ok, what, short = _CHECKS[name]
        h, w = pairs[name]
        if not (ok(h) and ok(w)):
            raise RuntimeError(f"{what}, but got {short}_height: {h} {short}_width: {w}")


def _tensor(input, op: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding blocks of ``input`` ``(N, C, H, W)`` (or ``(C, H, W)``) as columns
    ``(N, C * kh * kw, L)``, ``L`` the number of block positions."""
    _tensor(input, "im2col")
    window = {
        "kernel_size": _pair(kernel_size, "kernel_size", "im2col"),
        "dilation": _pair(dilation, "dilation", "im2col"),
        "padding": _pair(padding, "padding", "im2col"),
        "stride": _pair(stride, "stride", "im2col"),
    }
    _check_lengths(**window)
    _check_values(("kernel_size", "dilation", "padding", "stride"), window)
    shape = list(input.shape)
    if len(shape) < 3:  # PyTorch reads sizes 1 and 2 before it checks the dims
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-len(shape)}, "
            f"{len(shape) - 1}], but got {max(len(shape), 1)})"
        )
    if len(shape) > 4 or 0 in shape[-3 if len(shape) == 3 else 1 :]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {shape}"
        )
    out = _im2col.blocks(shape[-2:], *window.values())
    if min(out) < 1:
        k, d, p = window["kernel_size"], window["dilation"], window["padding"]
        raise RuntimeError(
            f"Given input with spatial size ({shape[-2]}, {shape[-1]}), kernel_size={k}, "
            f"dilation={d}, padding={p}, calculated shape of the array of sliding blocks as "
            f"({out[0]}, {out[1]}), but its components must be at least one."
        )
    _check_kernel_dtype("im2col", input, refused="iu")  # (bool is taken)
    return _im2col.im2col(input, **window)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns ``(N, C * kh * kw, L)`` (or ``(C * kh * kw, L)``) back into
    ``(N, C, *output_size)``: the adjoint of ``unfold``, overlaps added."""
    _tensor(input, "col2im")
    size = _pair(output_size, "output_size", "col2im")
    window = {
        "kernel_size": _pair(kernel_size, "kernel_size", "col2im"),
        "dilation": _pair(dilation, "dilation", "col2im"),
        "padding": _pair(padding, "padding", "col2im"),
        "stride": _pair(stride, "stride", "col2im"),
    }
    _check_lengths(output_size=size, **window)
    _check_values(("kernel_size", "stride", "dilation", "padding"), window)
    shape = list(input.shape)
    if len(shape) not in (2, 3) or 0 in shape[-2 if len(shape) == 2 else 1 :]:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {shape}"
        )
    kernel = window["kernel_size"]
    if shape[-2] % (kernel[0] * kernel[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={shape[-2]} and kernel_size={kernel}."
        )
    out = _im2col.blocks(size, *window.values())
    if out[0] * out[1] != shape[-1] or min(out) < 1:
        d, p, s = window["dilation"], window["padding"], window["stride"]
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={d}, padding={p}, "
            f"stride={s}, expected size of input's dimension 2 to match the calculated number "
            f"of sliding blocks {out[0]} * {out[1]} = {out[0] * out[1]}, but got "
            f"input.size(2)={shape[-1]}."
        )
    _check_kernel_dtype("col2im", input, refused="iu")  # (bool is taken)
    return _im2col.col2im(input, output_size=size, **window)
