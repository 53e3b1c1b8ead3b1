"""Bit shifts of integer tensors (``bitwise_left_shift``, ``<<``, ``>>`` ...), as PyTorch
defines them past the width: a shift by a negative amount or by the width or more gives 0
(left), or the sign (right: -1 for a negative value, else 0)."""

from __future__ import annotations

import numpy as np

from .._exposure import exports, public
from ._optable import NonDifferentiable
from ._primitive import primitive


def _shift(name: str, kernel: str, shift, past_width):
    def forward(x, y):
        # the tensors come cast to the promoted dtype; a Python number takes theirs
        dtype = (x if isinstance(x, np.ndarray) else y).dtype
        x, y = np.asarray(x), np.asarray(y)
        if dtype.kind not in "iu":
            kind = "Bool" if dtype.kind == "b" else "Float"
            raise NotImplementedError(
                f"\"{kernel}_cpu\" not implemented for '{kind}': {name} shifts integer tensors "
                "only; convert with .long() (or .int()) first"
            )
        x, y = x.astype(dtype, copy=False), y.astype(dtype, copy=False)
        bits = dtype.itemsize * 8
        inside = (y >= 0) & (y < bits)
        with np.errstate(all="ignore"):
            moved = shift(x, np.where(inside, y, 0).astype(dtype))
        return np.where(inside, moved, past_width(x)).astype(dtype, copy=False)

    return forward


bitwise_left_shift = primitive(
    "bitwise_left_shift",
    _shift("bitwise_left_shift", "lshift", np.left_shift, np.zeros_like),
    kind=NonDifferentiable(),
    overload="Tensor",
    broadcast=True,
    scalars=True,
    expose=public(
        inplace=True,
        operators=("__lshift__",),
        reflected=("__rlshift__",),
        inplace_operators=("__ilshift__",),
    ),
)
bitwise_right_shift = primitive(
    "bitwise_right_shift",
    _shift("bitwise_right_shift", "rshift", np.right_shift, lambda x: -(x < 0).astype(x.dtype)),
    kind=NonDifferentiable(),
    overload="Tensor",
    broadcast=True,
    scalars=True,
    expose=public(
        inplace=True,
        operators=("__rshift__",),
        reflected=("__rrshift__",),
        inplace_operators=("__irshift__",),
    ),
)

__all__ = exports(globals())
