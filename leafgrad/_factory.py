"""What every tensor factory does with its arguments and its result.

Shared by ``_creation`` (tensor, zeros, full ...), ``_random`` (rand, randint ...) and
``_ranges`` (arange, linspace ...): PyTorch's parsing of sizes, ints, numbers and dtypes,
its checked conversion of a Scalar to a dtype, and ``_finish``, which makes the new leaf (or
writes ``out=``).
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype
from ._default_device import default_device_or_none
from ._engine.grad_mode import _state as _grad_state
from ._tensor import Tensor, _check_can_require_grad, _wrap
from ._tensor import check_device as _check_device

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def _finish(data: np.ndarray, requires_grad: bool, device=None, out=None) -> Tensor:
    if device is None:
        device = default_device_or_none()  # torch.set_default_device
    if device is not None:
        _check_device(device)
    if out is not None:
        return _write_out(out, data, requires_grad)
    if requires_grad:
        _check_can_require_grad(data)
    t = _wrap(data, requires_grad)
    t._provenance = "created"  # read by autograd.explain: made by the user, not computed
    if _grad_state.inference:
        t._is_inference = True
    return t


def _write_out(out, data: np.ndarray, requires_grad: bool) -> Tensor:
    """``out=``: the result replaces ``out``'s contents, as PyTorch resizes and fills it."""
    if not isinstance(out, Tensor):
        raise TypeError(f"out= must be a Tensor, got {type(out).__name__}")
    if out._requires_grad or requires_grad:
        raise RuntimeError(
            "functions with out=... arguments don't support automatic differentiation; "
            "drop out= and assign the result instead"
        )
    out._data = data
    out._bump_version()
    return out


def _dtype_arg(dtype, default: _dtype.dtype) -> _dtype.dtype:
    return default if dtype is None else _dtype.as_dtype(dtype)


def _out_dtype(dtype, out, default: _dtype.dtype) -> _dtype.dtype:
    if dtype is None and isinstance(out, Tensor):
        return out.dtype
    return _dtype_arg(dtype, default)


def _is_int_like(value) -> bool:
    """Whether PyTorch's parser takes ``value`` as an int: ints and NumPy ints (not bools),
    one-element integer tensors."""
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, np.integer)) or (
        isinstance(value, Tensor) and value._data.size == 1 and value._data.dtype.kind in "iu"
    )


def _int_arg(value, op: str, what: str) -> int:
    """An int argument as PyTorch parses one (``_is_int_like``); anything else raises
    TypeError, and so do values beyond int64."""
    if not _is_int_like(value):
        kind = "bool" if isinstance(value, (bool, np.bool_)) else type(value).__name__
        raise TypeError(f"{op}(): {what} must be an int, not {kind}")
    value = int(value._data.reshape(())) if isinstance(value, Tensor) else int(value)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise TypeError(f"{op}(): {what} {value} does not fit in int64")
    return value


def _refuse_size(args: tuple, op: str) -> None:
    """TypeError in the words of PyTorch's argument parser for the first size that is not an
    int (none is: the caller re-raises its own error)."""
    for i, value in enumerate(args):
        if not _is_int_like(value):
            kind = "bool" if isinstance(value, (bool, np.bool_)) else type(value).__name__
            if len(args) == 1:
                raise TypeError(
                    f"{op}(): argument 'size' (position 1) must be tuple of ints, not {kind}"
                )
            raise TypeError(
                f"{op}(): argument 'size' failed to unpack the object at pos {i + 1} with "
                f'error "type must be tuple of ints,but got {kind}"'
            )


def _size(args: tuple, size, op: str, extra: dict | None = None) -> tuple:
    """The shape given as ``op(2, 3)``, ``op((2, 3))``, ``op([2, 3])`` or ``op(size=(2, 3))``.

    ``extra`` holds the keyword arguments left over after ``size``: any is a TypeError.
    """
    if size is None and args and not extra:
        # The common call, ``zeros(8, 1)``: plain ints in int64's range, taken as they are
        # (the checks below take ~1.5 us for them); anything else gets the full parsing.
        for s in args:
            if type(s) is not int or not 0 <= s <= _INT64_MAX:
                break
        else:
            return args
    if extra:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(extra))}'")
    if size is not None:
        if args:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        args = (size,)
    if not args:
        raise TypeError(f'{op}() missing 1 required positional argument: "size"')
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    elif len(args) > 1 and any(isinstance(a, (tuple, list)) for a in args):
        raise TypeError(f"{op}() takes one size: ints as separate arguments or one tuple, not both")
    try:
        shape = tuple(_int_arg(s, op, "each size") for s in args)
    except TypeError:
        _refuse_size(args, op)
        raise
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)} ({op}: "
                "sizes must be non-negative)"
            )
    return shape


def _size_tuple(size, op: str) -> tuple:
    """A ``size`` that must be a sequence (full, randint, new_full): an int is a TypeError."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{op}(): size must be a tuple of ints, not {type(size).__name__}")
    return _size((size,), None, op)


def _number(value, op: str, what: str):
    """A Number argument as a Python bool, int or float; a 0-dim tensor gives its value."""
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, np.bool_):
        return float(value)  # PyTorch reads a NumPy bool as a float Scalar
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, Tensor) and value._data.ndim == 0:
        return value._data.item()
    raise TypeError(f"{op}(): {what} must be a Number, not {type(value).__name__}")


def _number_dtype(value) -> _dtype.dtype:
    """The dtype a Python number makes on its own: bool, int64 or the default float."""
    if isinstance(value, bool):
        return _dtype.bool
    if isinstance(value, int):
        return _dtype.int64
    return _dtype.get_default_dtype()


def _overflow(value, dt: _dtype.dtype, op: str) -> RuntimeError:
    return RuntimeError(f"{op}: value {value!r} cannot be converted to {dt} without overflow")


def _checked_scalar(value, dt: _dtype.dtype, op: str):
    """``value`` (bool, int or float) converted to ``dt`` as PyTorch converts a Scalar.

    RuntimeError where PyTorch's checked conversion reports an overflow: NaN, inf or an
    out-of-range value for an integer dtype, a finite float too large for float16/32.
    Negative ints within the range's size wrap into unsigned dtypes (``-1`` -> ``255``).
    """
    kind = dt.np.kind
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not _INT64_MIN <= value <= _UINT64_MAX
    ):
        raise OverflowError(f"{op}: int {value} is too big to convert")
    if kind == "b":
        return bool(value)
    if kind == "f":
        value = float(value)
        if math.isfinite(value) and abs(value) > float(np.finfo(dt.np).max):
            raise _overflow(value, dt, op)
        return value
    info = np.iinfo(dt.np)
    if isinstance(value, float):
        if not (info.min <= value <= info.max):  # also catches NaN and inf
            raise _overflow(value, dt, op)
        return int(value)
    value = int(value)
    if value > _INT64_MAX:  # an unsigned 64-bit Scalar fits no leafgrad integer dtype
        raise _overflow(value, dt, op)
    if info.min == 0:
        if value > info.max or value < -info.max:
            raise _overflow(value, dt, op)
        return value % (info.max + 1)
    if not info.min <= value <= info.max:
        raise _overflow(value, dt, op)
    return value


def _like(input, dtype, op: str):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): input must be a Tensor, not {type(input).__name__}")
    return input._data.shape, _dtype_arg(dtype, input.dtype)
