"""Creating tensors: tensor(), zeros/ones/full/empty, ranges, eye, random numbers, manual_seed.

Dtype inference, argument checking and the values of ``arange``/``linspace`` follow PyTorch's
CPU implementation rule for rule, so that ``import leafgrad as torch`` gives the same tensors.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from . import _dtype
from ._tensor import Size, Tensor, _check_can_require_grad, _wrap
from ._tensor import device as _device

_rng = [np.random.default_rng()]
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def manual_seed(seed) -> np.random.Generator:
    """Seed leafgrad's random generator (NumPy's PCG64; streams differ from PyTorch's).

    Accepts what ``int()`` accepts, as PyTorch does; negative seeds wrap modulo 2**64 and
    seeds outside [-2**63, 2**64) raise ValueError.
    """
    seed = int(seed)
    if not _INT64_MIN <= seed <= _UINT64_MAX:
        raise ValueError(f"manual_seed: seed {seed} does not fit in 64 bits")
    _rng[0] = np.random.default_rng(seed % 2**64)
    return _rng[0]


seed = manual_seed


def _generator() -> np.random.Generator:
    return _rng[0]


# ----------------------------------------------------------------------------- helpers
def _finish(data: np.ndarray, requires_grad: bool, device=None, out=None) -> Tensor:
    if device is not None:
        _device(device)
    if out is not None:
        return _write_out(out, data, requires_grad)
    if requires_grad:
        _check_can_require_grad(data)
    t = _wrap(data, requires_grad)
    t._provenance = "created"  # read by autograd.explain: made by the user, not computed
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
            arr = np.array(data, dtype=target)
    else:
        arr = _from_data(data, dtype)
    return _finish(arr, requires_grad, device)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array (or returns a Tensor as is)."""
    if isinstance(data, Tensor):
        if device is not None:
            _device(device)
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
    """``size`` filled with ``fill_value``; the dtype follows the value (bool, int64, default float)."""
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


# ----------------------------------------------------------------------------- ranges
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter for float64


def _fma(a, b, c) -> np.ndarray:
    """``a * b + c`` with one rounding (float64), as the fused multiply-add of PyTorch's kernels.

    Dekker's exact product plus a compensated sum; where an operand is not finite, IEEE
    arithmetic already gives the fused result.
    """
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        p = a * b
        t = a * _SPLIT
        ah = t - (t - a)
        al = a - ah
        t = b * _SPLIT
        bh = t - (t - b)
        bl = b - bh
        err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        z = s - p
        comp = (p - (s - z)) + (c - z)
        fused = s + (comp + err)
        return np.where(np.isfinite(fused), fused, s)


# Lanes of PyTorch's AVX2 vectors, which set the rounding pattern of arange's fast path.
_VECTOR_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4, np.dtype(np.float16): 16}


def _arange_floats(start: float, step: float, n: int, dt: np.dtype) -> np.ndarray:
    """PyTorch's CPU arange values: ``start + step * i`` fused in float64, then rounded.

    Its vectorised loop, over blocks of two vectors, starts each vector at a rounded base
    and adds ``k * step`` to it; the leftover tail is computed element by element.
    """
    lanes = _VECTOR_LANES[dt]
    idx = np.arange(n, dtype=np.float64)
    m = n // (2 * lanes) * (2 * lanes)
    out = np.empty(n, dtype=dt)
    with np.errstate(over="ignore"):
        if dt == np.float16:
            # Accumulates in float32: round each fused value to float32, then to half.
            start32, step32 = float(np.float32(start)), float(np.float32(step))
            k = idx[:m] % lanes
            base = _fma(step32, idx[:m] - k, start32).astype(np.float32).astype(dt)
            out[:m] = _fma(k, step32, base.astype(np.float64)).astype(np.float32).astype(dt)
            out[m:] = _fma(step32, idx[m:], start32).astype(np.float32).astype(dt)
            return out
        k = idx[:m] % lanes
        base = _fma(step, idx[:m] - k, start).astype(dt)
        out[:m] = _fma(k, step, base.astype(np.float64)).astype(dt)
        out[m:] = _fma(step, idx[m:], start).astype(dt)
    return out


def _wrap_int64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


_MISSING = object()


def arange(start=_MISSING, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """``[start, end)`` in steps of ``step``: int64 when all three are ints, else the default float.

    The length is ``ceil((end - start) / step)`` in float64 (for int64 results, in exact
    integer arithmetic on the truncated bounds). RuntimeError for a zero step, infinite
    bounds or a step pointing away from ``end``. Float values are PyTorch's bit for bit up
    to 32768 elements; beyond that PyTorch splits the range across threads, which moves
    its rounding by an ulp here and there.
    """
    if start is _MISSING:
        if end is None:
            raise TypeError("arange() missing required argument 'end'")
        start = 0
    elif end is None:
        start, end = 0, start
    if (
        type(start) is int
        and type(end) is int
        and type(step) is int
        and out is None
        and (dtype is None or dtype is _dtype.int64)
        and _INT64_MIN // 2 <= min(start, end) <= max(start, end) <= _INT64_MAX // 2
        and ((step > 0 and end >= start) or (step < 0 and end <= start))
    ):
        # The common integer case, where NumPy's arange is PyTorch's exactly.
        return _finish(np.arange(start, end, step, dtype=np.int64), requires_grad, device)
    values = [
        _number(v, "arange", name) for v, name in ((start, "start"), (end, "end"), (step, "step"))
    ]
    if any(isinstance(v, float) for v in values):
        default = _dtype.get_default_dtype()
    else:
        default = _dtype.int64
    dt = _out_dtype(dtype, out, default)
    kind = dt.np.kind
    if kind == "b":
        raise NotImplementedError("arange: bool results are not implemented; make ints and compare")
    d_start, d_end, d_step = (float(v) for v in values)
    # PyTorch checks the bounds as float64 first, whatever the result dtype.
    if not (d_step > 0 or d_step < 0):
        raise RuntimeError(f"arange: step must be nonzero, got {values[2]!r}")
    if not (math.isfinite(d_start) and math.isfinite(d_end)):
        raise RuntimeError(f"arange: unsupported range {d_start} -> {d_end}; bounds must be finite")
    if not ((d_step > 0 and d_end >= d_start) or (d_step < 0 and d_end <= d_start)):
        raise RuntimeError(
            f"arange: upper bound and lower bound inconsistent with step sign "
            f"(start={values[0]}, end={values[1]}, step={values[2]})"
        )
    if kind == "f":
        acc = _dtype.float32 if dt.np == np.float16 else _dtype.float64  # accumulation type
        x_start, x_step = (_checked_scalar(v, acc, "arange") for v in (values[0], values[2]))
        n = _arange_length(math.ceil((d_end - d_start) / d_step) if math.isfinite(d_step) else 0)
        data = _arange_floats(x_start, x_step, n, dt.np)
    else:
        # Integer results count from the bounds truncated to int64.
        x_start, x_end, x_step = (_checked_scalar(v, _dtype.int64, "arange") for v in values)
        if dt is _dtype.int64:
            if x_step == 0:
                raise ValueError(f"arange: step must be nonzero, but {values[2]!r} truncates to 0")
            sign = 1 if x_step > 0 else -1
            num = _wrap_int64(_wrap_int64(x_end - x_start) + x_step - sign)
            q = abs(num) // abs(x_step)
            n = _arange_length(q if (num >= 0) == (x_step > 0) else -q)
        else:
            n = _arange_length(math.ceil((d_end - d_start) / d_step))
        with np.errstate(over="ignore"):
            data = (np.arange(n, dtype=np.int64) * np.int64(x_step) + np.int64(x_start)).astype(
                dt.np
            )
    return _finish(data, requires_grad, device, out)


def _arange_length(size) -> int:
    if not 0 <= size <= _INT64_MAX:
        raise RuntimeError(f"arange: invalid size {size}, possible overflow?")
    return int(size)


def _linspace_args(start, end, steps, op: str):
    for v, name in ((start, "start"), (end, "end")):
        if isinstance(v, Tensor) and v._data.ndim != 0:
            raise RuntimeError(
                f"{op}: start and end must be 0-dimensional, got {name} of shape {list(v.shape)}"
            )
    return _number(start, op, "start"), _number(end, op, "end"), _int_arg(steps, op, "steps")


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (default float dtype).

    As PyTorch's CPU kernel: the first half counts up from ``start`` and the second half down
    from ``end``, each value one fused multiply-add in the result's precision.
    """
    start, end, steps = _linspace_args(start, end, steps, "linspace")
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    if dt.np.kind == "b":
        raise NotImplementedError("linspace: bool results are not implemented")
    s, e = _checked_scalar(start, dt, "linspace"), _checked_scalar(end, dt, "linspace")
    if steps <= 1:
        data = np.full(steps, s, dtype=dt.np)
    else:
        data = _linspace_values(s, e, steps, dt.np)
    return _finish(data, requires_grad, device, out)


def _linspace_values(s, e, steps: int, dt: np.dtype) -> np.ndarray:
    idx = np.arange(steps, dtype=np.int64)
    half = steps // 2
    up, down = idx[:half], steps - idx[half:] - 1
    with np.errstate(all="ignore"):
        if dt == np.float16:
            # Half arithmetic rounds after every operation and is never fused.
            s16, e16 = np.float16(s), np.float16(e)
            step = (e16 - s16) / np.float16(steps - 1)
            return np.concatenate((s16 + step * up.astype(dt), e16 - step * down.astype(dt)))
        if dt.kind == "f":
            s, e = float(dt.type(s)), float(dt.type(e))
            step = (dt.type(e) - dt.type(s)) / dt.type(steps - 1)
        else:
            step = (float(e) - float(s)) / (steps - 1)
        step = float(step)
        vals = np.concatenate((_fma(step, up, float(s)), _fma(-step, down, float(e))))
        if dt.kind == "f":
            return vals.astype(dt)
        return np.trunc(vals).astype(np.int64).astype(dt)


def logspace(start, end, steps, base: float = 10.0, *, out=None, dtype=None, layout=None,
             device=None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``base ** linspace(start, end, steps)``."""
    start, end, steps = _linspace_args(start, end, steps, "logspace")
    if steps < 0:
        raise RuntimeError(f"logspace: number of steps must be non-negative, got {steps}")
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    if dt.np.kind == "b":
        raise NotImplementedError("logspace: bool results are not implemented")
    base = float(_number(base, "logspace", "base"))
    if steps <= 1:
        exps = np.full(steps, float(start))
    else:
        step_dt = dt.np if dt.np.kind == "f" else np.dtype(np.float64)
        exps = _linspace_values(float(start), float(end), steps, step_dt).astype(np.float64)
    with np.errstate(all="ignore"):
        vals = np.power(
            step_dt.type(base) if steps > 1 else base, exps.astype(step_dt) if steps > 1 else exps
        )
        data = (
            vals.astype(dt.np)
            if dt.np.kind == "f"
            else np.trunc(vals).astype(np.int64).astype(dt.np)
        )
    return _finish(data, requires_grad, device, out)


def eye(
    n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False
) -> Tensor:
    """The ``n x m`` identity matrix (``m`` defaults to ``n``)."""
    n = _int_arg(n, "eye", "n")
    m = n if m is None else _int_arg(m, "eye", "m")
    if n < 0 or m < 0:
        raise RuntimeError(f"eye: n and m must be greater or equal to 0, got n={n}, m={m}")
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    return _finish(np.eye(n, m, dtype=dt.np), requires_grad, device, out)


# ----------------------------------------------------------------------------- random
def _float_dtype(dtype, out, op: str) -> _dtype.dtype:
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    if not dt.is_floating_point:
        raise NotImplementedError(f"{op}: only floating-point dtypes are supported, not {dt}")
    return dt


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad: bool = False, pin_memory: bool = False, **kw) -> Tensor:  # fmt: skip
    """Uniform on [0, 1)."""
    shape = _size(size, kw.pop("size", None), "rand", kw)
    dt = _float_dtype(dtype, out, "rand")
    data = (generator or _generator()).random(shape, dtype=np.float64).astype(dt.np)
    return _finish(data, requires_grad, device, out)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad: bool = False, pin_memory: bool = False, **kw) -> Tensor:  # fmt: skip
    """Standard normal."""
    shape = _size(size, kw.pop("size", None), "randn", kw)
    dt = _float_dtype(dtype, out, "randn")
    data = (generator or _generator()).standard_normal(shape).astype(dt.np)
    return _finish(data, requires_grad, device, out)


_FLOAT_DIGITS = {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}


def _check_random_range(low: int, high: int, dt: _dtype.dtype, op: str) -> None:
    if low >= high:
        raise RuntimeError(f"{op}: expects low < high, but got low={low} >= high={high}")
    if dt.np.kind == "f":
        limit = 2 ** _FLOAT_DIGITS[dt.np]
        for v, name in ((low, "low"), (high - 1, "high - 1")):
            if not -limit <= v <= limit:
                warnings.warn(
                    f"{op}: {name} is out of bounds [-(2^{_FLOAT_DIGITS[dt.np]}), "
                    f"2^{_FLOAT_DIGITS[dt.np]}]; {dt} cannot represent every integer there",
                    UserWarning,
                    stacklevel=3,
                )
        return
    lo, hi = (0, 1) if dt.np.kind == "b" else (np.iinfo(dt.np).min, np.iinfo(dt.np).max)
    if not lo <= low <= hi:
        raise RuntimeError(f"{op}: low={low} is out of bounds for {dt}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"{op}: high - 1 = {high - 1} is out of bounds for {dt}")


def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """Integers uniform on ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``."""
    args = list(args)
    if size is None and args and (isinstance(args[-1], (tuple, list)) or len(args) == 3):
        size = args.pop()
    if len(args) > 2:
        raise TypeError("randint() takes low, high and size: randint(low, high, size)")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    if high is None or size is None:
        raise TypeError("randint() needs high and size, e.g. randint(0, 10, (3,))")
    low = 0 if low is None else _int_arg(low, "randint", "low")
    high = _int_arg(high, "randint", "high")
    shape = _size_tuple(size, "randint")
    dt = _out_dtype(dtype, out, _dtype.int64)
    _check_random_range(low, high, dt, "randint")
    data = (generator or _generator()).integers(low, high, shape).astype(dt.np)
    return _finish(data, requires_grad, device, out)


def rand_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "rand_like")
    if not dt.is_floating_point:
        raise NotImplementedError(f"rand_like: only floating-point dtypes are supported, not {dt}")
    return _finish(_generator().random(shape).astype(dt.np), requires_grad, device)


def randn_like(
    input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    shape, dt = _like(input, dtype, "randn_like")
    if not dt.is_floating_point:
        raise NotImplementedError(f"randn_like: only floating-point dtypes are supported, not {dt}")
    return _finish(_generator().standard_normal(shape).astype(dt.np), requires_grad, device)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None) -> Tensor:  # fmt: skip
    """``randint_like(input, high)`` or ``randint_like(input, low, high)``."""
    if high is None:
        low, high = 0, low
    low, high = _int_arg(low, "randint_like", "low"), _int_arg(high, "randint_like", "high")
    shape, dt = _like(input, dtype, "randint_like")
    _check_random_range(low, high, dt, "randint_like")
    return _finish(_generator().integers(low, high, shape).astype(dt.np), requires_grad, device)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False, pin_memory: bool = False) -> Tensor:  # fmt: skip
    """A random permutation of ``0 .. n-1`` (int64 unless told otherwise)."""
    n = _int_arg(n, "randperm", "n")
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    dt = _out_dtype(dtype, out, _dtype.int64)
    data = (generator or _generator()).permutation(n).astype(dt.np)
    return _finish(data, requires_grad, device, out)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None) -> Tensor:
    """Normal samples with the given mean and std (numbers or tensors)."""
    rng = generator or _generator()
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = _size_tuple(size, "normal") if size is not None else np.broadcast(m, s).shape
    if isinstance(mean, Tensor):
        dt = mean._data.dtype
    elif isinstance(std, Tensor):
        dt = std._data.dtype
    else:
        dt = _dtype_arg(dtype, _dtype.get_default_dtype()).np
    return _finish((m + s * rng.standard_normal(shape)).astype(dt), False, None, out)


# ----------------------------------------------------------------------------- Tensor.new_*
# They make tensors with this tensor's dtype unless told otherwise, never requiring grad
# unless asked.
def _new_sized(factory, op):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False, **kw):  # fmt: skip
        shape = _size(size, kw.pop("size", None), op, kw)
        dt = self.dtype if dtype is None else dtype
        return factory(shape, dtype=dt, device=device, requires_grad=requires_grad)

    method.__name__ = op
    return method


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


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):  # fmt: skip
    shape = _size_tuple(size, "new_full")
    dt = self.dtype if dtype is None else dtype
    return full(shape, fill_value, dtype=dt, device=device, requires_grad=requires_grad)


def _legacy_data(args: tuple, device) -> np.ndarray:
    """The array of ``Tensor(*args)``: sizes give zeros, a sequence gives its values.

    Always in the default dtype; a lone number is a TypeError (use ``tensor``).
    """
    if device is not None:
        _device(device)
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


Tensor._legacy_data = staticmethod(_legacy_data)
Tensor.new_zeros = _new_sized(zeros, "new_zeros")
Tensor.new_ones = _new_sized(ones, "new_ones")
Tensor.new_empty = _new_sized(empty, "new_empty")
Tensor.new_tensor = _new_tensor
Tensor.new_full = _new_full

__all__ = [
    "manual_seed", "seed", "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones",
    "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "rand_like", "randn_like",
    "randint_like", "randperm", "normal",
]  # fmt: skip
