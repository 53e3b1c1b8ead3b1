"""``torch.finfo`` and ``torch.iinfo``: the numerical limits of floating and integer dtypes."""

from __future__ import annotations

import builtins

import numpy as np

from . import _dtype

__all__ = ["finfo", "iinfo"]


def _as_dtype(type, cls: str) -> _dtype.dtype:
    if isinstance(type, _dtype.dtype) or type in (builtins.float, builtins.int, builtins.bool):
        return _dtype.as_dtype(type)
    kind = builtins.type(type).__name__
    raise TypeError(f"{cls}(): argument 'type' (position 1) must be torch.dtype, not {kind}")


class finfo:
    """Limits of a floating dtype (the default dtype when none is given): ``bits``, ``eps``,
    ``max``, ``min``, ``tiny`` (= ``smallest_normal``), ``resolution`` and ``dtype`` (its
    name). An integer or bool dtype is a TypeError (use ``iinfo``)."""

    def __init__(self, type=None) -> None:
        dt = _dtype.get_default_dtype() if type is None else _as_dtype(type, "finfo")
        if not dt.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                f"'torch.finfo' (got {dt})"
            )
        info = np.finfo(dt.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # exact in float64, as PyTorch's
        self.dtype = dt.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None  # as PyTorch's: comparable but unhashable

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype: ``bits``, ``max``, ``min`` and ``dtype`` (its name).
    A floating or bool dtype is a TypeError (use ``finfo``)."""

    def __init__(self, type) -> None:
        dt = _as_dtype(type, "iinfo")
        if dt.np.kind == "b":
            raise TypeError(f"{dt} is not supported by torch.iinfo")
        if dt.is_floating_point:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                f"'torch.iinfo' (got {dt})"
            )
        info = np.iinfo(dt.np)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dt.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
