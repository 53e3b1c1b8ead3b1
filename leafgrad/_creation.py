"""Creating tensors: tensor(), zeros/ones/full/empty, their _like and Tensor.new_ variants.

Dtype inference and argument checking follow PyTorch's CPU implementation rule for rule, so
that ``import leafgrad as torch`` gives the same tensors. Ranges (arange, linspace, eye) live
in ``_ranges.py``, random numbers in ``_random.py``, what all of them share in ``_factory.py``.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype
from ._exposure import public
from ._factory import (
    _INT64_MAX,
    _INT64_MIN,
    _checked_scalar,
    _finish,
    _like,
    _number,
    _number_dtype,
    _out_dtype,
    _overflow,
    _size,
    _size_tuple,
)
from ._memory_format import like_in_format
from ._tensor import CPU, Size, Tensor, _wrap
from ._tensor import check_device as _check_device
from ._tensor import device as _device
from ._warn import warn_at_user, warn_once


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
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


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


def _row_of_numbers(data: list, dtype):
    """A non-empty list of plain Python numbers (``tensor([0, 2])``) as ``_from_data`` makes
    it, without its walk over the nesting (~2 us); None for any other list, or where only
    the element-wise path can tell (ints beyond int64, narrow dtypes out of range)."""
    kinds = set(map(type, data))
    if not kinds <= _NUMBER_TYPES:
        return None
    if dtype is not None:
        dt = _dtype.as_dtype(dtype)
    elif float in kinds:
        dt = _dtype.get_default_dtype()
    else:
        dt = _dtype.int64 if int in kinds else _dtype.bool
    return _numbers_to_array(data, dt)


def _from_data(data, dtype) -> np.ndarray:
    """A new array from nested Python data, Tensors, NumPy arrays and scalars."""
    if type(data) is list and data:
        row = _row_of_numbers(data, dtype)
        if row is not None:
            return row
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


def _warn_copy_construct(call: str) -> None:
    """PyTorch's warning for ``torch.tensor(t)`` / ``t.new_tensor(s)`` of a tensor."""
    warn_at_user(
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
        "or sourceTensor.detach().clone().requires_grad_(True), rather than "
        f"{call}(sourceTensor)."
    )


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
        _warn_copy_construct("torch.tensor")
        arr = data._data.copy()
        if dtype is not None:
            arr = arr.astype(_dtype.as_dtype(dtype).np, copy=False)
    elif isinstance(data, (np.ndarray, np.generic)):
        _dtype.from_numpy_dtype(data.dtype)
        target = data.dtype if dtype is None else _dtype.as_dtype(dtype).np
        with np.errstate(invalid="ignore", over="ignore"):
            arr = np.array(data, dtype=target, order="C")  # a contiguous copy, as PyTorch
    else:
        if type(data) in (list, tuple) and data and type(data[0]) is np.ndarray:
            warn_once(
                "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                "consider converting the list to a single numpy.ndarray with numpy.array() "
                "before converting to a tensor."
            )
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
            _warn_if_read_only(data)
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
    _warn_if_read_only(ndarray)
    return _wrap(ndarray)


def _warn_if_read_only(array: np.ndarray) -> None:
    """PyTorch's warning (once per process) for a tensor sharing a read-only array."""
    if not array.flags.writeable:
        warn_once(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest "
            "of this program."
        )


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


def zeros_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    if dtype is None and isinstance(input, Tensor):  # its own dtype: taken from its array
        values = np.zeros(input._data.shape, input._data.dtype)
    else:
        shape, dt = _like(input, dtype, "zeros_like")
        values = np.zeros(shape, dt.np)
    data = like_in_format(values, input._data, memory_format, "zeros_like")
    return _finish(data, requires_grad, device or CPU)  # the input's device, not the default


def ones_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "ones_like")
    data = like_in_format(np.ones(shape, dt.np), input._data, memory_format, "ones_like")
    return _finish(data, requires_grad, device or CPU)  # the input's device, not the default


def empty_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "empty_like")
    data = like_in_format(np.zeros(shape, dt.np), input._data, memory_format, "empty_like")
    return _finish(data, requires_grad, device or CPU)  # the input's device, not the default


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:  # fmt: skip
    shape, dt = _like(input, dtype, "full_like")
    value = _checked_scalar(_number(fill_value, "full_like", "fill_value"), dt, "full_like")
    data = like_in_format(np.full(shape, value, dt.np), input._data, memory_format, "full_like")
    return _finish(data, requires_grad, device or CPU)  # the input's device, not the default


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
        _warn_copy_construct("tensor.new_tensor")
        data = data._data  # the same copy, without tensor()'s own warning on top
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
def _legacy_data(args: tuple, device, dtype=None, size=None) -> np.ndarray:
    """The array of ``Tensor(*args)`` (or ``Tensor(size=...)``): sizes give zeros, a sequence
    gives its values.

    In ``dtype`` (the default dtype when None; ``FloatTensor`` ... pass theirs); a lone
    number is a TypeError (use ``tensor``), as is ``size=`` with positional arguments.
    """
    if size is not None:
        if args:
            raise TypeError("Tensor(): pass the size either positionally or as size=, not both")
        args = (Size(size),)
    if device is not None:
        kind = (device if isinstance(device, _device) else _device(device)).type
        if kind != "cpu":
            # A RuntimeError, not the AssertionError other factories raise for cuda.
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: {kind} was "
                "passed; leafgrad holds tensors on the CPU only"
            )
    default = _dtype.get_default_dtype() if dtype is None else dtype
    if len(args) == 1 and isinstance(args[0], Size):
        # A Size is a shape, even the empty one (a 0-d tensor; no arguments: shape [0]).
        return np.zeros(_size(args, None, "Tensor"), default.np)
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


@public(function=False, method=("new",))
def _new(self, *args, size=None, device=None) -> Tensor:
    """Legacy ``t.new(...)``: as ``Tensor(...)``, in ``t``'s dtype (a tensor of another dtype
    is a TypeError); never requires grad."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0]._data.dtype != self._data.dtype:
            raise TypeError(
                f"new(): expected a tensor of dtype {self.dtype}, got {args[0].dtype}; "
                f"convert it first with .to({self.dtype})"
            )
        return Tensor(args[0])
    return _wrap(_legacy_data(args, device, self.dtype, size))


_new_zeros = _new_sized(zeros, "new_zeros")
_new_ones = _new_sized(ones, "new_ones")
_new_empty = _new_sized(empty, "new_empty")

__all__ = [
    "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full",
    "zeros_like", "ones_like", "empty_like", "full_like",
]  # fmt: skip
