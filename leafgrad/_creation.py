"""Creating tensors: tensor(), zeros/ones/full/empty, ranges, eye, random numbers, manual_seed.

Dtype inference, argument checking and the values of ``arange``/``linspace`` follow PyTorch's
CPU implementation rule for rule, so that ``import leafgrad as torch`` gives the same tensors.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from . import _dtype
from ._engine.grad_mode import _state as _grad_state
from ._exposure import public
from ._tensor import Size, Tensor, _check_can_require_grad, _wrap
from ._tensor import check_device as _check_device

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


# ----------------------------------------------------------------------------- helpers
def _finish(data: np.ndarray, requires_grad: bool, device=None, out=None) -> Tensor:
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


def _int_arg(value, op: str, what: str) -> int:
    """An int argument as PyTorch parses one: ints, NumPy ints, one-element integer tensors.

    bool, float and everything else raise TypeError; values beyond int64 too.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}(): {what} must be an int, not bool")
    if isinstance(value, (int, np.integer)):
        value = int(value)
    elif isinstance(value, Tensor) and value._data.size == 1 and value._data.dtype.kind in "iu":
        value = int(value._data.reshape(()))
    else:
        raise TypeError(f"{op}(): {what} must be an int, not {type(value).__name__}")
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise TypeError(f"{op}(): {what} {value} does not fit in int64")
    return value


def _size(args: tuple, size, op: str, extra: dict | None = None) -> tuple:
    """The shape given as ``op(2, 3)``, ``op((2, 3))``, ``op([2, 3])`` or ``op(size=(2, 3))``.

    ``extra`` holds the keyword arguments left over after ``size``: any is a TypeError.
    """
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
    shape = tuple(_int_arg(s, op, "each size") for s in args)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"{op}: sizes must be non-negative, got {list(shape)}")
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


# ----------------------------------------------------------------------------- tensor()
def _is_sequence(obj) -> bool:
    """What CPython's PySequence_Check accepts, minus Tensors (PyTorch reads them as scalars)."""
    if isinstance(obj, (list, tuple, range, np.ndarray, str, bytes)):
        return True
    if isinstance(obj, (Tensor, dict, np.generic)):
        return False
    return hasattr(type(obj), "__getitem__") and hasattr(type(obj), "__len__")


def _compute_sizes(data) -> list:
    """The shape, read along the first element of each level as PyTorch does."""
    sizes = []
    seq = data
    while _is_sequence(seq):
        length = len(seq)
        sizes.append(length)
        if len(sizes) > 64:
            raise ValueError(f"tensor(): too many dimensions '{type(seq).__name__}'")
        if length == 0:
            break
        seq = seq[0]
    return sizes


_SIMPLE = {float: "f", int: "i", bool: "b"}


def _infer_dtype(obj) -> _dtype.dtype:
    """PyTorch's dtype inference: each element's own dtype, promoted over the sequence."""
    if isinstance(obj, (np.ndarray, np.generic)):
        return _dtype.from_numpy_dtype(obj.dtype)
    if isinstance(obj, float):
        return _dtype.get_default_dtype()
    if isinstance(obj, bool):
        return _dtype.bool
    if isinstance(obj, int):
        return _dtype.int64
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"tensor(): invalid data type '{type(obj).__name__}'")
    if isinstance(obj, complex):
        raise TypeError("tensor(): leafgrad has no complex dtypes")
    if _is_sequence(obj):
        if len(obj) == 0:
            return _dtype.get_default_dtype()
        if isinstance(obj, list):
            # Fast path: a row of plain Python numbers.
            kinds = {_SIMPLE.get(t) for t in set(map(type, obj))}
            if None not in kinds:
                if "f" in kinds:
                    return _dtype.get_default_dtype()
                return _dtype.int64 if "i" in kinds else _dtype.bool
        result = None
        for item in obj:
            d = _infer_dtype(item)
            result = d if result is None else _dtype._promote(result, d)
        return result
    raise RuntimeError(f"tensor(): could not infer dtype of {type(obj).__name__}")


def _flatten(obj, dim: int, sizes: list, leaves: list) -> None:
    """Append the leaves of ``obj`` (at depth ``dim``) to ``leaves``, checking every length."""
    if dim == len(sizes):
        leaves.append(obj)
        return
    if isinstance(obj, Tensor):
        obj = obj._data
    if isinstance(obj, np.ndarray) and obj.ndim == 0:
        raise TypeError("tensor(): not a sequence: a 0-d array where a sequence was expected")
    try:
        seq = obj if isinstance(obj, (list, tuple)) else list(obj)
    except TypeError:
        raise TypeError(
            f"tensor(): not a sequence: found {type(obj).__name__} where a sequence of length "
            f"{sizes[dim]} was expected at dim {dim}"
        ) from None
    if len(seq) != sizes[dim]:
        raise ValueError(
            f"tensor(): expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)}); "
            "nested lists must be rectangular"
        )
    if dim == len(sizes) - 1:
        leaves.extend(seq)
    else:
        for item in seq:
            _flatten(item, dim + 1, sizes, leaves)


def _as_float(x) -> float:
    if isinstance(x, float):
        return x
    if isinstance(x, (str, bytes)) or x is None or isinstance(x, (list, tuple)):
        raise TypeError(f"tensor(): must be real number, not {type(x).__name__}")
    return float(x)


def _as_int(x) -> int:
    """PyTorch's unpacking into an integer dtype: floats truncate, others need ``__index__``."""
    if isinstance(x, float):
        return x  # checked and truncated by the caller
    if isinstance(x, Tensor):
        return x.__index__()
    try:
        return int(x.__index__())
    except AttributeError:
        raise TypeError(
            f"tensor(): '{type(x).__name__}' object cannot be interpreted as an integer"
        ) from None


def _as_bool(x) -> bool:
    if isinstance(x, (float, np.bool_)):
        return bool(x)
    return bool(_as_int(x))


_NUMBER_TYPES = {float, int, bool}


def _leaves_to_array(leaves: list, dt: _dtype.dtype) -> np.ndarray:
    kind = dt.np.kind
    if set(map(type, leaves)) <= _NUMBER_TYPES:
        fast = _numbers_to_array(leaves, dt)
        if fast is not None:
            return fast
    if kind == "f":
        if not all(type(x) is float for x in leaves):
            leaves = [_as_float(x) for x in leaves]
        try:
            with np.errstate(over="ignore"):
                return np.array(leaves, dtype=np.float64).astype(dt.np)
        except OverflowError:
            raise OverflowError("tensor(): int too large to convert to float") from None
    if kind == "b":
        return np.array([_as_bool(x) for x in leaves], dtype=np.bool_)
    values = [x if type(x) is int else _as_int(x) for x in leaves]
    info = np.iinfo(dt.np)
    lowest = -int(info.max) if info.min == 0 else int(info.min)  # unsigned: negatives wrap
    checked = []
    for v in values:
        if isinstance(v, float):
            if not (info.min <= v <= info.max):
                raise _overflow(v, dt, "tensor()")
            v = int(v)
        elif not _INT64_MIN <= v <= _INT64_MAX:
            raise ValueError(f"tensor(): integer {v} overflows int64")
        elif not lowest <= v <= info.max:
            raise _overflow(v, dt, "tensor()")
        checked.append(v)
    return np.array(checked, dtype=np.int64).astype(dt.np)


def _numbers_to_array(numbers: list, dt: _dtype.dtype):
    """Plain Python numbers converted in NumPy; None where only the exact path can tell."""
    kind = dt.np.kind
    try:
        if kind == "f":
            with np.errstate(over="ignore"):
                return np.array(numbers, dtype=np.float64).astype(dt.np)
        if kind == "b":
            return np.array(numbers, dtype=np.float64) != 0  # NaN and huge ints are True
        if float in set(map(type, numbers)):
            return None
        arr = np.array(numbers, dtype=np.int64)
    except OverflowError:
        return None  # ints beyond int64 or float64: the element-wise path names the error
    if dt.np == np.int64:
        return arr
    info = np.iinfo(dt.np)
    lowest = -int(info.max) if info.min == 0 else int(info.min)  # unsigned: negatives wrap
    if arr.size and (arr.min() < lowest or arr.max() > info.max):
        return None
    return arr.astype(dt.np)


def _from_data(data, dtype) -> np.ndarray:
    """A new array from nested Python data, Tensors, NumPy arrays and scalars."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"tensor(): invalid data type '{type(data).__name__}'")
    sizes = _compute_sizes(data)
    dt = _infer_dtype(data) if dtype is None else _dtype.as_dtype(dtype)
    if not sizes:  # a scalar
        return _leaves_to_array([data], dt).reshape(())
    leaves = []
    if math.prod(sizes):
        _flatten(data, 0, sizes, leaves)
    return _leaves_to_array(leaves, dt).reshape(sizes)


def tensor(
    data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """A new leaf tensor holding a copy of ``data``.

    Python floats become the default dtype (float32), ints int64, bools bool; NumPy arrays,
    NumPy scalars and Tensors keep their dtype, and mixed sequences promote like PyTorch
    (``[np.float64(1), 2]`` is float64). Ragged nesting raises ValueError, strings TypeError,
    objects with no dtype (None, sets, dicts) RuntimeError.
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy a tensor, use source.detach().clone() (or .requires_grad_(True) on that) "
            "rather than tensor(source).",
            UserWarning,
            stacklevel=2,
        )
        arr = data._data.copy()
        if dtype is not None:
            arr = arr.astype(_dtype.as_dtype(dtype).np, copy=False)
    elif isinstance(data, (np.ndarray, np.generic)):
        _dtype.from_numpy_dtype(data.dtype)
        target = data.dtype if dtype is None else _dtype.as_dtype(dtype).np
        with np.errstate(invalid="ignore", over="ignore"):
            arr = np.array(data, dtype=target, order="C")  # a contiguous copy, as PyTorch
    else:
        arr = _from_data(data, dtype)
    return _finish(arr, requires_grad, device)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array (or returns a Tensor as is)."""
    if isinstance(data, Tensor):
        if device is not None:
            _check_device(device)
        return data if dtype is None else data.to(_dtype.as_dtype(dtype))
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        if dtype is None or _dtype.as_dtype(dtype).np == data.dtype:
            return _finish(data, False, device)
        return _finish(data.astype(_dtype.as_dtype(dtype).np), False, device)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    """``as_tensor`` with PyTorch's ``copy`` and ``requires_grad`` options."""
    out = as_tensor(obj, dtype=dtype, device=device)
    if copy and (out is obj or (isinstance(obj, np.ndarray) and np.shares_memory(out._data, obj))):
        out = _wrap(out._data.copy())
    if requires_grad:
        out.requires_grad_(True)
    return out


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray`` (which keeps its dtype)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected an np.ndarray, got {type(ndarray).__name__}")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return _wrap(ndarray)


# ----------------------------------------------------------------------------- filled
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
          pin_memory: bool = False, **kw) -> Tensor:  # fmt: skip
    shape = _size(size, kw.pop("size", None), "zeros", kw)
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    return _finish(np.zeros(shape, dt.np), requires_grad, device, out)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
         pin_memory: bool = False, **kw) -> Tensor:  # fmt: skip
    shape = _size(size, kw.pop("size", None), "ones", kw)
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    return _finish(np.ones(shape, dt.np), requires_grad, device, out)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
          pin_memory: bool = False, memory_format=None, **kw) -> Tensor:  # fmt: skip
    """Zero-filled rather than uninitialised: the same cost in NumPy, and reproducible."""
    shape = _size(size, kw.pop("size", None), "empty", kw)
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    return _finish(np.zeros(shape, dt.np), requires_grad, device, out)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``size`` filled with ``fill_value``; the dtype follows it (bool, int64, default float)."""
    shape = _size_tuple(size, "full")
    value = _number(fill_value, "full", "fill_value")
    dt = _out_dtype(dtype, out, _number_dtype(value))
    value = _checked_scalar(value, dt, "full")
    return _finish(np.full(shape, value, dt.np), requires_grad, device, out)


def _like(input, dtype, op: str):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): input must be a Tensor, not {type(input).__name__}")
    return input._data.shape, _dtype_arg(dtype, input.dtype)


def zeros_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "zeros_like")
    return _finish(np.zeros(shape, dt.np), requires_grad, device)


def ones_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "ones_like")
    return _finish(np.ones(shape, dt.np), requires_grad, device)


def empty_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "empty_like")
    return _finish(np.zeros(shape, dt.np), requires_grad, device)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:  # fmt: skip
    shape, dt = _like(input, dtype, "full_like")
    value = _checked_scalar(_number(fill_value, "full_like", "fill_value"), dt, "full_like")
    return _finish(np.full(shape, value, dt.np), requires_grad, device)


# ----------------------------------------------------------------------------- Tensor.new_*
# They make tensors with this tensor's dtype unless told otherwise, never requiring grad
# unless asked.
def _new_sized(factory, op):
    @public(function=False, method=(op,))
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False, **kw):  # fmt: skip
        shape = _size(size, kw.pop("size", None), op, kw)
        dt = self.dtype if dtype is None else dtype
        return factory(shape, dtype=dt, device=device, requires_grad=requires_grad)

    method.__name__ = op
    return method


@public(function=False, method=("new_tensor",))
def _new_tensor(
    self, data, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy a tensor, use source.detach().clone() rather than t.new_tensor(source).",
            UserWarning,
            stacklevel=2,
        )
    return tensor(
        data,
        dtype=self.dtype if dtype is None else dtype,
        device=device,
        requires_grad=requires_grad,
    )


@public(function=False, method=("new_full",))
def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):  # fmt: skip
    shape = _size_tuple(size, "new_full")
    dt = self.dtype if dtype is None else dtype
    return full(shape, fill_value, dtype=dt, device=device, requires_grad=requires_grad)


# Tensor(*args) builds its array with this: the Tensor imports nothing that makes arrays.
@public(function=False, method=("_legacy_data",))
@staticmethod
def _legacy_data(args: tuple, device) -> np.ndarray:
    """The array of ``Tensor(*args)``: sizes give zeros, a sequence gives its values.

    Always in the default dtype; a lone number is a TypeError (use ``tensor``).
    """
    if device is not None:
        _check_device(device)
    default = _dtype.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in args):
        return np.zeros(_size(args, None, "Tensor") if args else (0,), default.np)
    if len(args) == 1 and _is_sequence(args[0]) and not isinstance(args[0], (str, bytes)):
        data = args[0]
        if isinstance(data, np.ndarray):
            return data.astype(default.np)
        return _from_data(data, default)
    raise TypeError(
        f"Tensor(): expected sizes (ints) or a sequence of data, got "
        f"({', '.join(type(a).__name__ for a in args)}); use tensor() for a single number"
    )


_new_zeros = _new_sized(zeros, "new_zeros")
_new_ones = _new_sized(ones, "new_ones")
_new_empty = _new_sized(empty, "new_empty")

__all__ = [
    "manual_seed", "seed", "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones",
    "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "rand_like", "randn_like",
    "randint_like", "randperm", "normal",
]  # fmt: skip

# Split out of this module; they use its helpers, so they are imported last.
from ._random import (  # noqa: E402
    _generator,  # noqa: F401 - in-place random fills use it
    manual_seed,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
)
from ._ranges import arange, eye, linspace, logspace  # noqa: E402
