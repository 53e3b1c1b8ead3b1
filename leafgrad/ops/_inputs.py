"""What a primitive does with its inputs around the forward: argument checks, PyTorch's
dtype promotion, and NumPy kept quiet (PyTorch returns inf/nan without warnings); and the
argument checks that several op families share (tensors only, dims)."""

from __future__ import annotations

import functools
import inspect
import operator

import numpy as np

from .. import _dtype
from .._dtype import result_type
from .._factory import _checked_scalar
from .._quiet import QUIET, QUIET_STATE
from .._tensor import Tensor, _normalize_dim


def fill_number(value, tensor: Tensor, op: str):
    """A number written into ``tensor`` (fill_, masked_fill, index_fill, scatter's value) as
    PyTorch converts it: RuntimeError where it overflows the dtype (NaN or 127.9 for int8,
    1e39 for float32; NumPy wrote garbage), a negative int within range wrapping into an
    unsigned dtype (-3 is 253 for uint8); other objects pass as they are."""
    kind = type(value)
    if kind is not bool and kind is not int and kind is not float:
        return value
    if kind is float:  # the common case first: a float into a float64/float32 tensor
        char = tensor._data.dtype.char
        if char == "d" or (char == "f" and not abs(value) > _FLOAT32_MAX):  # (NaN passes)
            return value
    return _checked_scalar(value, tensor.dtype, op)


_FLOAT32_MAX = float(np.finfo(np.float32).max)  # inf passes too: it converts


def wrapped_int(value: int, dtype: np.dtype):
    """A Python int as PyTorch casts it to an integer tensor's dtype for arithmetic: wrapped
    around, two's complement (300 is 44 for int8, -3 is 253 for uint8); OverflowError
    beyond int64, as PyTorch's Scalar."""
    return np.array(value, dtype=np.int64).astype(dtype)[()]


def wrapped_ints(x, y) -> tuple:
    """``(x, y)`` with a Python int among them wrapped into the other's integer dtype."""
    if type(x) is int:
        return wrapped_int(x, y.dtype), y
    if type(y) is int:
        return x, wrapped_int(y, x.dtype)
    return x, y


def scalar_type(t: Tensor) -> str:
    """PyTorch's ScalarType name of ``t``'s dtype (``Long``, ``Float`` ...)."""
    return _dtype.scalar_type_name(t._data.dtype)


def same_dtype(first: Tensor, second: Tensor, message) -> None:
    """RuntimeError ``message(first's, second's ScalarType names)`` unless the two tensors
    share a dtype: ops whose PyTorch kernels take one dtype and do not promote."""
    if first._data.dtype != second._data.dtype:
        raise RuntimeError(
            message(scalar_type(first), scalar_type(second))
            + "; convert one of them first (e.g. with .to(other.dtype))"
        )


def refusing_bool(name: str, forward):
    """``forward``, raising PyTorch's NotImplementedError for a bool input, where NumPy would
    compute (abs, floor, ceil, trunc and round of bools have no kernel in PyTorch)."""

    def checked(x, *args, **params):
        if x.dtype.kind == "b":
            raise NotImplementedError(
                f"{name}: not implemented for torch.bool tensors (PyTorch has no such kernel); "
                "convert with .int() or .float() first"
            )
        return forward(x, *args, **params)

    checked.__name__ = checked.__qualname__ = getattr(forward, "__name__", name)
    return checked


def _quietly(forward, arrays, params):
    """``forward(*arrays, **params)`` with NumPy's floating-point warnings off."""
    token = QUIET.set(QUIET_STATE)
    try:
        return forward(*arrays, **params)
    finally:
        QUIET.reset(token)


def _promote(args, float_only):
    """The arrays (or Python scalars) to hand the forward, cast to the result dtype."""
    # Fast path: the common case of tensors sharing one dtype (and float scalars with them).
    first = None
    for a in args:
        if type(a) is Tensor or isinstance(a, Tensor):
            d = a._data.dtype
            if first is None:
                first = d
            elif d != first:
                break
        elif type(a) is not float:
            break
    else:
        if first is not None and first.kind == "f":
            return [a._data if (type(a) is Tensor or isinstance(a, Tensor)) else a for a in args]
    dt = result_type(*args)
    if float_only and not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    target = dt.np
    arrays = []
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            arrays.append(d if d.dtype == target else d.astype(target))
        elif isinstance(a, np.generic):
            # NumPy scalars are weak in PyTorch's promotion, like Python numbers; NumPy's
            # own (NEP 50) would make float32 * np.float64(2) float64, so pass the number.
            arrays.append(a.item())
        else:
            arrays.append(a)
    return arrays


def _broadcast_error(name, args) -> RuntimeError:
    shapes = [list(a._data.shape) if isinstance(a, Tensor) else "scalar" for a in args]
    return RuntimeError(
        f"{size_mismatch_words([s for s in shapes if s != 'scalar'])} ({name}: shapes {shapes} "
        "cannot be broadcast together; aligned from the right, each pair of sizes must be "
        "equal or one of them 1. Reshape or unsqueeze an operand.)"
    )


def size_mismatch_words(shapes: list) -> str:
    """PyTorch's message for shapes that do not broadcast: the first pair of sizes that
    differ, from the right, and that dimension's index in the broadcast result."""
    ndim = max(len(s) for s in shapes)
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        sizes = [s[len(s) - 1 - offset] if offset < len(s) else 1 for s in shapes]
        wanted = 1
        for size in sizes:
            if size != 1 and wanted != 1 and size != wanted:
                return (
                    f"The size of tensor a ({wanted}) must match the size of tensor b ({size}) "
                    f"at non-singleton dimension {i}"
                )
            if size != 1:
                wanted = size
    return "shapes cannot be broadcast together"


def _check_args(name, args, allow_scalars):
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            if allow_scalars and isinstance(a, (int, float, bool, np.number, np.bool_)):
                continue
            expected = "a Tensor or a Python number" if allow_scalars else "a Tensor"
            raise TypeError(f"{name}(): argument {i} must be {expected}, not {type(a).__name__}")


def _check_tensors(op: str, *args) -> None:
    """TypeError unless every argument is a Tensor (products, einsum)."""
    _check_args(op, args, False)


def _dim_args(dims):
    """``f(0, 1)``, ``f((0, 1))`` and ``f([0, 1])`` all mean the dims (0, 1)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return tuple(operator.index(d) for d in dims)


def _varargs_or_keyword(args, keyword, name: str, op: str) -> tuple:
    """Sizes or dims given as varargs (``t.flip(0, 1)``, ``t.flip((0, 1))``) or by PyTorch's
    keyword (``t.flip(dims=(0, 1))``), as the varargs tuple either way."""
    if keyword is None:
        return args
    if args:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return (keyword,)


def _unique_dims(dims, ndim, op):
    """``dims`` normalized; RuntimeError when one is named twice."""
    out = tuple(_normalize_dim(d, ndim, op) for d in dims)
    if len(set(out)) != len(out):
        twice = next(d for d in out if out.count(d) > 1)
        raise RuntimeError(
            f"dim {twice} appears multiple times in the list of dims ({op}: dims {list(dims)})"
        )
    return out


def guard_indices(result, indices) -> None:
    """Make ``result``'s backward refuse to run once one of the index tensors ``indices``
    (Tensors, or tuples and lists holding some) is changed in place, as PyTorch's does: it
    saves them, while leafgrad's ops keep copies of their values. 0-d tensors are ints to
    PyTorch's indexing (nothing saved), so they are left unguarded."""
    node = result.grad_fn if type(result) is Tensor else None
    saved = getattr(node, "_saved", None)
    if saved is None:
        return
    found = []
    for value in indices:
        for t in value if isinstance(value, (tuple, list)) else (value,):
            if type(t) is Tensor and t._data.ndim:
                found.append(t)
    if found:
        saved.guard_tensors(found)


def guarding_indices(*names: str):
    """Decorate an op whose arguments ``names`` are index tensors: its result's backward
    refuses to run once one of them is changed in place (``guard_indices``)."""

    def decorate(fn):
        positions = list(inspect.signature(fn).parameters)
        where = [(name, positions.index(name)) for name in names]

        @functools.wraps(fn)
        def guarded(*args, **kwargs):
            out = fn(*args, **kwargs)
            if type(out) is Tensor and out.grad_fn is not None:
                guard_indices(
                    out,
                    [kwargs.get(n) if i >= len(args) else args[i] for n, i in where],
                )
            return out

        return guarded

    return decorate
