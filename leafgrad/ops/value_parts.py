"""``frexp`` (each float as mantissa times a power of two) and ``nonzero_static`` (the
indices of nonzeros, padded or cut to a fixed count)."""

from __future__ import annotations

import operator

import numpy as np

from .._exposure import exports, public
from .._tensor import Tensor, _wrap
from ._returned import returned

_Frexp = returned("frexp", ["mantissa", "exponent"])


@public()
def frexp(input: Tensor) -> tuple:
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``, ``|mantissa|`` in
    [0.5, 1) (0, inf and NaN kept, exponent 0); exponent int32. Differentiable in the
    mantissa: its gradient is ``grad / 2**exponent``."""
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError(
            f"torch.frexp() only supports floating-point dtypes (got {input.dtype}); convert "
            "it first, e.g. .float()"
        )
    _, exponent = np.frexp(data)
    exponent = exponent.astype(np.int32)
    # Two exact power-of-two scalings: one alone could overflow (2**132 for float32's
    # smallest subnormals), each half stays in range; the product is exact.
    first = -(exponent // 2)
    second = -exponent - first
    scale = [
        _wrap(np.ldexp(np.ones((), data.dtype), e).astype(data.dtype)) for e in (first, second)
    ]
    mantissa = input * scale[0] * scale[1]
    return _Frexp(mantissa, _wrap(exponent))


@public()
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """The indices of the nonzeros (``(size, input.ndim)``, int64, row-major order), cut to
    ``size`` rows or padded with ``fill_value``."""
    if not isinstance(fill_value, (int, np.integer)) or isinstance(fill_value, bool):
        raise TypeError(
            f"nonzero_static(): argument 'fill_value' must be int, not {type(fill_value).__name__}"
        )
    size = operator.index(size)
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    data = input._data
    found = np.argwhere(data) if data.ndim else np.zeros((int(bool(data)), 0), np.int64)
    out = np.full((size, data.ndim), fill_value, dtype=np.int64)
    rows = min(size, found.shape[0])
    out[:rows] = found[:rows]
    return _wrap(out)


__all__ = exports(globals())
