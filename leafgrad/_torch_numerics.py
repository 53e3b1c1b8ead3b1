"""Small numeric utilities of the ``torch`` namespace: result_type, can_cast, scalar_tensor,
the deprecated end-inclusive ``range`` and ``unravel_index``."""

from __future__ import annotations

import math

import numpy as np

from . import _dtype
from ._exposure import FUNCTIONS
from ._factory import _checked_scalar, _finish, _number, _out_dtype
from ._tensor import Tensor, _wrap
from ._warn import warn_at_user


def _operand(value, op: str, name: str):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return _number(value, op, name)
    raise TypeError(
        f"{op}(): argument '{name}' must be a Tensor or a Number, not {type(value).__name__}"
    )


def result_type(*args, **kwargs) -> _dtype.dtype:
    """The dtype PyTorch computes two operands (tensors or numbers) in."""
    names = ("tensor", "other", "scalar", "scalar1", "scalar2")
    extra = set(kwargs) - set(names)
    if extra:
        raise TypeError(f"result_type() got an unexpected keyword argument '{extra.pop()}'")
    operands = list(args) + list(kwargs.values())
    if len(operands) != 2:
        raise TypeError(
            f"result_type() takes exactly two operands (tensors or numbers), got {len(operands)}"
        )
    return _dtype.result_type(*(_operand(v, "result_type", "other") for v in operands))


def can_cast(from_, to) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to``: never float to integer, nor
    anything but bool to bool (complex would not go to real, but leafgrad has none)."""
    for value, name, position in ((from_, "from_", 1), (to, "to", 2)):
        if not isinstance(value, _dtype.dtype):
            raise TypeError(
                f"can_cast(): argument '{name}' (position {position}) must be torch.dtype, not "
                f"{type(value).__name__}"
            )
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return not (from_ is not _dtype.bool and to is _dtype.bool)


def scalar_tensor(
    s,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad: bool = False,
) -> Tensor:
    """A 0-dim tensor holding ``s``, of the default float dtype unless told otherwise."""
    if isinstance(s, Tensor) and s.dim() != 0:
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not Tensor")
    value = _number(s, "scalar_tensor", "s")
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    value = _checked_scalar(value, dt, "scalar_tensor")
    return _finish(np.array(value, dtype=dt.np), requires_grad, device, out)


_RANGE_DEPRECATION = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end)."
)


def range(
    start,
    end,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad: bool = False,
) -> Tensor:
    """``start, start + step, ...`` up to and including ``end`` (deprecated: use arange).

    The default float dtype even for integer bounds; ``floor((end - start) / step) + 1``
    values, counted in int64 on the truncated bounds for an integer dtype.
    """
    warn_at_user(_RANGE_DEPRECATION, UserWarning)
    values = [_number(v, "range", n) for v, n in ((start, "start"), (end, "end"), (step, "step"))]
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    if dt is _dtype.bool:
        raise NotImplementedError(
            "range: not implemented for 'Bool', as in PyTorch; make ints and compare"
        )
    d_start, d_end, d_step = (float(v) for v in values)
    if not (math.isfinite(d_start) and math.isfinite(d_end)):
        raise RuntimeError(f"unsupported range: {d_start} -> {d_end}; the bounds must be finite")
    if d_step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (d_step > 0 and d_end < d_start) or (d_step < 0 and d_end > d_start):
        raise RuntimeError(
            f"range: upper bound and lower bound inconsistent with step sign (start={values[0]}, "
            f"end={values[1]}, step={values[2]})"
        )
    if dt.is_floating_point:
        n = int((d_end - d_start) / d_step) + 1
        data = (d_start + d_step * np.arange(n, dtype=np.float64)).astype(dt.np)
    else:
        i_start, i_end, i_step = (_checked_scalar(v, _dtype.int64, "range") for v in values)
        if i_step == 0:
            raise RuntimeError(
                f"range: step {values[2]!r} truncates to 0 for {dt}; pass an integer step"
            )
        n = abs(i_end - i_start) // abs(i_step) + 1
        data = (i_start + i_step * np.arange(n, dtype=np.int64)).astype(dt.np)
    return _finish(data, requires_grad, device, out)


def _shape_arg(shape) -> tuple:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(
            f"expected 'shape' to be int or sequence of ints, but got {type(shape).__name__}"
        )
    for s in shape:
        if not isinstance(s, (int, np.integer)):
            raise TypeError(
                f"expected 'shape' sequence to only contain ints, but got {type(s).__name__}"
            )
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    return shape


def unravel_index(indices, shape) -> tuple:
    """The coordinates of flat ``indices`` in an array of ``shape``: one int64 tensor per dim.

    As PyTorch, indices wrap around (negative and too-large ones count modulo the size).
    """
    if not isinstance(indices, Tensor):
        raise TypeError(
            f"unravel_index(): expected 'indices' to be a Tensor, not {type(indices).__name__}"
        )
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = _shape_arg(shape)
    if 0 in shape:
        raise RuntimeError(
            f"unravel_index: shape {shape} has a zero-sized dimension, so no index is in range"
        )
    flat = indices._data.astype(np.int64)
    # Place values of each dim (row-major), then floor-divide and wrap, as PyTorch does.
    strides = np.cumprod((1,) + shape[:0:-1], dtype=np.int64)[::-1]
    return tuple(_wrap((flat // stride) % size) for stride, size in zip(strides, shape))


# Names an op module declares public stay those declarations (see nn/_torch_level.py).
__all__ = [
    name
    for name in ("result_type", "can_cast", "scalar_tensor", "range", "unravel_index")
    if name not in FUNCTIONS
]
