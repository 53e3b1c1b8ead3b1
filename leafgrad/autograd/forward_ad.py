"""Forward-mode AD with dual tensors, as ``torch.autograd.forward_ad``.

    with dual_level():
        x = make_dual(primal, tangent)
        y = f(x)
        value, jvp = unpack_dual(y)

Tangents propagate through every op's JVP rule, written in leafgrad ops, so forward mode
composes with reverse mode (parameter gradients of a JVP, Hessian-vector products).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._batched import (
    BatchedTensor,
    levels_of,
    lift,
    lower,
    physical,
    rewrap,
    tangent_only_levels,
    union_levels,
    with_levels,
)
from .._engine import forward as _forward
from .._engine.grad_mode import _DecoratorContextManager
from .._tensor import Tensor, _wrap


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal and its tangent (None without one)."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Start a new dual level (innermost) and return it."""
    return _forward.enter_dual_level()


def exit_dual_level(*, level: int | None = None) -> None:
    """End the innermost dual level; its tangents stop counting."""
    _forward.exit_dual_level(level=level)


class dual_level(_DecoratorContextManager):
    """Context manager (and decorator) for a dual level: ``with dual_level(): ...``."""

    def __enter__(self) -> int:
        self.level = enter_dual_level()
        return self.level

    def __exit__(self, *exc) -> None:
        exit_dual_level(level=self.level)


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` carrying ``tangent`` (same shape) at the current dual level."""
    level = _forward.current_level(level)
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError(
            f"make_dual expects two Tensors, got {type(tensor).__name__} and "
            f"{type(tangent).__name__}"
        )
    if type(tensor) is BatchedTensor or type(tangent) is BatchedTensor:
        return _make_batched_dual(tensor, tangent, level)
    return _attach(tensor, tangent, level)


def _attach(tensor: Tensor, tangent: Tensor, level: int) -> Tensor:
    """make_dual of a plain ``tensor`` (its tangent may be batched where only it is)."""
    if tensor._data.dtype.kind != "f":
        raise ValueError(f"make_dual: the primal must be floating point, got {tensor.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            f"make_dual: the tangent's shape {list(tangent._data.shape)} must equal the "
            f"primal's {list(tensor._data.shape)}"
        )
    if tangent._data.dtype.kind != "f":
        raise ValueError(
            f"make_dual: the tangent must be floating point, got {tangent.dtype}; convert it "
            "with .to(primal.dtype)"
        )
    if _forward.tangent_of(tensor, level) is not None:
        raise RuntimeError(
            "make_dual: this tensor already has a tangent at this level; call make_dual on "
            "its primal (unpack_dual(t).primal) instead"
        )
    dual = tensor.view_as(tensor) if tensor._requires_grad else _wrap(tensor._data)
    dual._tangents = dict(tensor._tangents or {})
    _forward.set_tangent(dual, level, _in_layout_of(tensor, tangent))
    return dual


def _in_layout_of(primal: Tensor, tangent: Tensor) -> Tensor:
    """``tangent`` itself where its strides are the primal's, else a copy in the primal's layout:
    PyTorch's make_dual copies a tangent of another layout (``tangent.T``) into one like it,
    of the primal's dtype."""
    if type(tangent) is BatchedTensor or tangent._data.size <= 1:
        return tangent  # a batched tangent's layout is its batch's
    if tangent.stride() == primal.stride():
        return tangent
    return _wrap(np.empty_like(primal._data)).copy_(tangent)


def _make_batched_dual(tensor: Tensor, tangent: Tensor, level: int) -> Tensor:
    """make_dual under vmap: the dual made of the values, both batched alike, except at the
    levels where only tangents are batched (jacfwd's basis): there the primal stays as it is
    and its value carries a tangent batched at those levels, so the primal computation is
    not repeated for every basis vector."""
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            f"make_dual: the tangent's shape {list(tangent.shape)} must equal the primal's "
            f"{list(tensor.shape)}"
        )
    only = tangent_only_levels() - set(levels_of(tensor))
    levels = tuple(lv for lv in union_levels(tensor, tangent) if lv not in only)
    primal = physical(with_levels(tensor, levels))
    return rewrap(_attach(primal, lower(tangent, levels), level), levels)


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at the current level; the primal shares its data."""
    if not _forward.state.levels:
        return UnpackedDualTensor(tensor, None)
    level = _forward.current_level(level)
    if type(tensor) is BatchedTensor:  # under vmap: unpack the values, batch the parts again
        levels = union_levels(tensor)
        primal, tangent = unpack_dual(physical(tensor), level=level)
        return UnpackedDualTensor(
            rewrap(primal, levels), None if tangent is None else lift(tangent, levels)
        )
    tangent = _forward.tangent_of(tensor, level)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = tensor.view_as(tensor) if tensor._requires_grad else _wrap(tensor._data)
    others = {k: v for k, v in tensor._tangents.items() if k != level}
    primal._tangents = others or None
    return UnpackedDualTensor(primal, tangent)


__all__ = [
    "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
    "UnpackedDualTensor",
]  # fmt: skip
