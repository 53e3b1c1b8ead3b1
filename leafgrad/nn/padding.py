"""Padding layers: constant, zero, reflection, replication and circular, over 1-3 dims."""

from __future__ import annotations

from .. import Tensor
from ._layer_functions import pad
from .module import Module

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
    "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d",
]  # fmt: skip


def _amounts(padding, dims: int) -> tuple[int, ...]:
    """``padding`` in ``F.pad``'s order: one int for every side, or ``2 * dims`` ints."""
    return (padding,) * (2 * dims) if isinstance(padding, int) else tuple(padding)


class _PadNd(Module):
    """``F.pad(input, padding, mode)`` as a layer."""

    _dims = 1
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _amounts(padding, self._dims)

    def forward(self, input: Tensor) -> Tensor:
        if self._mode == "circular" and input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(
                f"{type(self).__name__}: expected {self._dims + 1}D or {self._dims + 2}D input "
                f"(got {input.dim()}D input)"
            )
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


def _layer(name: str, base: type, dims: int, mode: str, doc: str) -> type:
    return type(name, (base,), {"_dims": dims, "_mode": mode, "__doc__": doc,
                                "__module__": __name__})  # fmt: skip


ConstantPad1d = _layer(
    "ConstantPad1d", _ConstantPadNd, 1, "constant", "Pad the last dim with `value`."
)
ConstantPad2d = _layer(
    "ConstantPad2d", _ConstantPadNd, 2, "constant", "Pad the last 2 dims with `value`."
)
ConstantPad3d = _layer(
    "ConstantPad3d", _ConstantPadNd, 3, "constant", "Pad the last 3 dims with `value`."
)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last 2 dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last 3 dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


ReflectionPad1d = _layer("ReflectionPad1d", _PadNd, 1, "reflect", "Mirror the last dim.")
ReflectionPad2d = _layer("ReflectionPad2d", _PadNd, 2, "reflect", "Mirror the last 2 dims.")
ReflectionPad3d = _layer("ReflectionPad3d", _PadNd, 3, "reflect", "Mirror the last 3 dims.")
ReplicationPad1d = _layer(
    "ReplicationPad1d", _PadNd, 1, "replicate", "Repeat the last dim's edges."
)
ReplicationPad2d = _layer(
    "ReplicationPad2d", _PadNd, 2, "replicate", "Repeat the last 2 dims' edges."
)
ReplicationPad3d = _layer(
    "ReplicationPad3d", _PadNd, 3, "replicate", "Repeat the last 3 dims' edges."
)
CircularPad1d = _layer("CircularPad1d", _PadNd, 1, "circular", "Wrap the last dim around.")
CircularPad2d = _layer("CircularPad2d", _PadNd, 2, "circular", "Wrap the last 2 dims around.")
CircularPad3d = _layer("CircularPad3d", _PadNd, 3, "circular", "Wrap the last 3 dims around.")
