"""renorm: each slice along a dim scaled down to a maximum p-norm.

Composed as PyTorch computes it (``x * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1)``),
so its gradient is PyTorch's renorm_backward, to any order.
"""

from __future__ import annotations

import numbers
import operator

from .._exposure import exports, public
from .._tensor import Tensor, _normalize_dim
from ._out import with_out
from .piecewise import where


@public(inplace=True)
def renorm(input: Tensor, p, dim: int, maxnorm, *, out=None) -> Tensor:
    """``input`` with each slice ``input.select(dim, i)`` whose ``p``-norm exceeds
    ``maxnorm`` scaled to norm ``maxnorm`` (floating tensors; ``p > 0``)."""
    if out is not None:
        return with_out("renorm", lambda: renorm(input, p, dim, maxnorm), (input,), out)
    if not isinstance(input, Tensor):
        raise TypeError(f"renorm(): input must be a Tensor, not {type(input).__name__}")
    for name, v in (("p", p), ("maxnorm", maxnorm)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"renorm(): {name} must be a real number, not {type(v).__name__}")
    nd = input._data.ndim
    if nd < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dims, got shape {list(input.shape)}")
    if p <= 0:
        raise RuntimeError(f"renorm: p must be positive, got {p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: maxnorm must be non-negative, got {maxnorm}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"renorm: input must be floating, got {input.dtype}; use .float()")
    d = _normalize_dim(operator.index(dim), nd, "renorm")
    others = tuple(i for i in range(nd) if i != d)
    norm = input.norm(float(p), others, True)
    return input * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


__all__ = exports(globals())
