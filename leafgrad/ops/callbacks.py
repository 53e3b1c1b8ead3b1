"""``apply_``, ``map_`` and ``map2_``: a Python callable run on every element, in place.

As in PyTorch they work element by element in Python (slow, for small tensors and tests),
and refuse a tensor that requires grad: the callable is opaque to autograd.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor


def _check(self: Tensor, op: str) -> None:
    if self._requires_grad:
        raise RuntimeError(
            f"Can't call {op}() on Variable that requires grad. Use var.detach().{op}() "
            "instead (autograd cannot see through a Python callable)"
        )


def _operand(self: Tensor, other, op: str, name: str) -> np.ndarray:
    """``other``'s values broadcast to ``self``'s shape; its dtype must be ``self``'s."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(other).__name__}")
    if other._data.dtype != self._data.dtype:
        raise TypeError(
            f"{op}: expected {self.type()} for '{name}' (got {other.type()}); convert it with "
            f".to({self.dtype})"
        )
    try:
        return np.broadcast_to(other._data, self._data.shape)
    except ValueError:
        raise RuntimeError(
            f"The expanded size of the tensor must match the existing size: {op} cannot "
            f"broadcast '{name}' of shape {list(other._data.shape)} to "
            f"{list(self._data.shape)}"
        ) from None


def _run(self: Tensor, fn, operands: tuple) -> Tensor:
    """Write ``fn(*elements)`` into each element of ``self`` (row-major order)."""
    convert = {"f": float, "b": bool}.get(self._data.dtype.kind, int)
    columns = [a.reshape(-1).tolist() for a in (self._data, *operands)]
    values = []
    for args in zip(*columns):
        value = fn(*args)
        if not isinstance(value, numbers.Real):
            raise TypeError(f"must be real number, not {type(value).__name__}")
        values.append(convert(value))
    out = np.array(values, dtype=self._data.dtype).reshape(self._data.shape)
    np.copyto(self._data, out)
    self._bump_version()
    return self


@public(function=False)
def apply_(self: Tensor, callable) -> Tensor:
    """Replace each element ``x`` with ``callable(x)`` (a Python number), in place."""
    _check(self, "apply_")
    return _run(self, callable, ())


@public(function=False)
def map_(self: Tensor, tensor: Tensor, callable) -> Tensor:
    """Replace each ``x`` with ``callable(x, y)``, ``y`` from ``tensor`` (broadcast)."""
    _check(self, "map_")
    return _run(self, callable, (_operand(self, tensor, "map_", "other"),))


@public(function=False)
def map2_(self: Tensor, x: Tensor, y: Tensor, callable) -> Tensor:
    """Replace each ``s`` with ``callable(s, a, b)``, ``a`` and ``b`` from ``x`` and ``y``."""
    _check(self, "map2_")
    operands = (_operand(self, x, "map2_", "x"), _operand(self, y, "map2_", "y"))
    return _run(self, callable, operands)


__all__ = exports(globals())
