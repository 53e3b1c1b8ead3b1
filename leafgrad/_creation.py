"""Creating tensors: tensor(), zeros/ones/full/empty, ranges, eye, random numbers, manual_seed."""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from . import _dtype
from ._tensor import Tensor, _check_can_require_grad, _wrap
from ._tensor import device as _device

_rng = [np.random.default_rng()]


def manual_seed(seed: int):
    """Seed leafgrad's random generator (NumPy's PCG64; streams differ from PyTorch's)."""
    if not isinstance(seed, (int, np.integer)):
        raise TypeError(f"manual_seed: seed must be an int, got {type(seed).__name__}")
    _rng[0] = np.random.default_rng(int(seed))
    return _rng[0]


seed = manual_seed


def _generator() -> np.random.Generator:
    return _rng[0]


def _finish(data: np.ndarray, requires_grad: bool, device=None) -> Tensor:
    if device is not None:
        _device(device)
    if requires_grad:
        _check_can_require_grad(data)
    t = _wrap(data, bool(requires_grad))
    t._provenance = "created"  # read by autograd.explain: made by the user, not computed
    return t


def _python_dtype(data) -> np.dtype:
    """The dtype PyTorch infers for nested Python data: bool < int64 < default float."""
    kinds = set()
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, Tensor):
            kinds.add(x._data.dtype.kind)
        elif isinstance(x, np.ndarray) or isinstance(x, np.generic):
            kinds.add(np.asarray(x).dtype.kind)
        elif isinstance(x, bool):
            kinds.add("b")
        elif isinstance(x, numbers.Integral):
            kinds.add("i")
        elif isinstance(x, numbers.Real):
            kinds.add("f")
        else:
            raise TypeError(
                f"tensor(): cannot make a tensor from an element of type {type(x).__name__}; "
                "use numbers, nested lists of numbers, NumPy arrays or Tensors"
            )
    if "f" in kinds:
        return _dtype.get_default_dtype().np
    if "i" in kinds or "u" in kinds:
        return np.dtype(np.int64)
    if "b" in kinds:
        return np.dtype(np.bool_)
    return _dtype.get_default_dtype().np  # empty list


def _unwrap_nested(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(x) for x in data]
    return data


def tensor(data, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data``.

    Python floats become the default dtype (float32), ints int64, bools bool; NumPy arrays
    and scalars keep their dtype.
    """
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy a tensor, use source.detach().clone() (or .requires_grad_(True) on that) "
            "rather than tensor(source).",
            UserWarning,
            stacklevel=2,
        )
        arr = data._data.copy()
    elif isinstance(data, (np.ndarray, np.generic)):
        arr = np.array(data)
        _dtype.from_numpy_dtype(arr.dtype)
    elif isinstance(data, str) or data is None:
        raise TypeError(f"tensor(): cannot make a tensor from {type(data).__name__}")
    else:
        inferred = _python_dtype(data)
        try:
            arr = np.array(_unwrap_nested(data), dtype=inferred if dtype is None else None)
        except ValueError as exc:
            raise ValueError(
                f"tensor(): the nested sequence is ragged ({exc}); every row must have the "
                "same length"
            ) from None
        if arr.dtype == object:
            raise ValueError("tensor(): the nested sequence is ragged; every row must have the same length")
    if dtype is not None:
        arr = arr.astype(_dtype.as_dtype(dtype).np, copy=False)
    return _finish(arr, requires_grad, device)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array (or returns a Tensor as is)."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        if dtype is None or _dtype.as_dtype(dtype).np == data.dtype:
            return _wrap(data)
        return _wrap(data.astype(_dtype.as_dtype(dtype).np))
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (which keeps its dtype)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected an np.ndarray, got {type(array).__name__}")
    _dtype.from_numpy_dtype(array.dtype)
    return _wrap(array)


def _size(size, op: str) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s)
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{op}: sizes must be ints, got {type(s).__name__} in {list(size)}")
        if s < 0:
            raise RuntimeError(f"{op}: sizes must be non-negative, got {list(size)}")
        out.append(int(s))
    return tuple(out)


def _np_dtype(dtype, default=None) -> np.dtype:
    if dtype is None:
        return (default or _dtype.get_default_dtype()).np
    return _dtype.as_dtype(dtype).np


def zeros(*size, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    return _finish(np.zeros(_size(size, "zeros"), _np_dtype(dtype)), requires_grad, device)


def ones(*size, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    return _finish(np.ones(_size(size, "ones"), _np_dtype(dtype)), requires_grad, device)


def empty(*size, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    # Zero-filled rather than uninitialised: the same cost in NumPy, and reproducible.
    return _finish(np.zeros(_size(size, "empty"), _np_dtype(dtype)), requires_grad, device)


def _scalar_dtype(value):
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, numbers.Integral):
        return np.dtype(np.int64)
    return _dtype.get_default_dtype().np


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    np_dtype = _scalar_dtype(fill_value) if dtype is None else _np_dtype(dtype)
    return _finish(np.full(_size((size,), "full"), fill_value, np_dtype), requires_grad, device)


def _like(input: Tensor, dtype):
    if not isinstance(input, Tensor):
        raise TypeError(f"*_like: input must be a Tensor, got {type(input).__name__}")
    return input._data.shape, (input._data.dtype if dtype is None else _np_dtype(dtype))


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    shape, dt = _like(input, dtype)
    return _finish(np.zeros(shape, dt), requires_grad, device)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    shape, dt = _like(input, dtype)
    return _finish(np.ones(shape, dt), requires_grad, device)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    shape, dt = _like(input, dtype)
    return _finish(np.zeros(shape, dt), requires_grad, device)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    shape, dt = _like(input, dtype)
    return _finish(np.full(shape, fill_value, dt), requires_grad, device)


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``[start, end)`` in steps; int64 when all arguments are ints, else the default float."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError(
            f"arange: upper bound and step sign are inconsistent (start={vals[0]}, end={vals[1]}, step={vals[2]})"
        )
    integral = all(isinstance(v, (int, np.integer)) for v in vals)
    default = _dtype.int64 if integral else None
    np_dtype = _np_dtype(dtype, default)
    # Count and values in float64, then cast: matches PyTorch's length rule (ceil((end-start)/step)).
    n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
    data = (vals[0] + np.arange(n, dtype=np.float64) * vals[2]) if not integral else np.arange(*vals)
    return _finish(data.astype(np_dtype), requires_grad, device)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    data = np.linspace(float(start), float(end), int(steps))
    return _finish(data.astype(_np_dtype(dtype)), requires_grad, device)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    data = np.logspace(float(start), float(end), int(steps), base=base)
    return _finish(data.astype(_np_dtype(dtype)), requires_grad, device)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad, device)


def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uniform on [0, 1)."""
    rng = generator or _generator()
    data = rng.random(_size(size, "rand"), dtype=np.float64).astype(_np_dtype(dtype))
    return _finish(data, requires_grad, device)


def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Standard normal."""
    rng = generator or _generator()
    data = rng.standard_normal(_size(size, "randn")).astype(_np_dtype(dtype))
    return _finish(data, requires_grad, device)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Integers uniform on ``[low, high)``; ``randint(high, size)`` starts at 0."""
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint: size is required, e.g. randint(0, 10, (3,))")
    rng = generator or _generator()
    data = rng.integers(low, high, _size((size,), "randint")).astype(_np_dtype(dtype, _dtype.int64))
    return _finish(data, requires_grad, device)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    shape, dt = _like(input, dtype)
    return _finish(_generator().random(shape).astype(dt), requires_grad, device)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    shape, dt = _like(input, dtype)
    return _finish(_generator().standard_normal(shape).astype(dt), requires_grad, device)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    if high is None:
        low, high = 0, low
    shape, dt = _like(input, dtype)
    return _finish(_generator().integers(low, high, shape).astype(dt), requires_grad, device)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    rng = generator or _generator()
    return _finish(rng.permutation(n).astype(_np_dtype(dtype, _dtype.int64)), requires_grad, device)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None) -> Tensor:
    """Normal samples with the given mean and std (numbers or tensors)."""
    rng = generator or _generator()
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = _size((size,), "normal") if size is not None else np.broadcast(m, s).shape
    default = mean._data.dtype if isinstance(mean, Tensor) else _np_dtype(dtype)
    return _wrap((m + s * rng.standard_normal(shape)).astype(default))


# Tensor.new_* create tensors with this tensor's dtype unless told otherwise.
def _new(factory):
    def method(self, *args, dtype=None, device=None, requires_grad=False, **kw):
        return factory(*args, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad, **kw)

    return method


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


Tensor.new_zeros = _new(zeros)
Tensor.new_ones = _new(ones)
Tensor.new_empty = _new(empty)
Tensor.new_tensor = _new_tensor
Tensor.new_full = _new_full

__all__ = [
    "manual_seed", "seed", "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones",
    "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange",
    "linspace", "logspace", "eye", "rand", "randn", "randint", "rand_like", "randn_like",
    "randint_like", "randperm", "normal",
]  # fmt: skip
