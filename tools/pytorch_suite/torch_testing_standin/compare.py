"""Value comparison with PyTorch's default tolerances (per dtype, looser of the pair)."""

from __future__ import annotations

import importlib
import numbers

import numpy as np

# (rtol, atol) as PyTorch's torch.testing defaults
_TOL = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


def _tol(*dtypes):
    pairs = [_TOL.get(str(d).replace("torch.", ""), (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _torch():
    return importlib.import_module("torch")  # leafgrad or PyTorch, whichever is bound


def _array(t):
    t = t.detach()
    return np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t.numpy())


def _is_tensor(x):
    return isinstance(x, _torch().Tensor)


def compare(x, y, rtol=None, atol=None, equal_nan=True, exact_dtype=True, path="") -> str | None:
    """None when equal, else a message saying where and how they differ."""
    if _is_tensor(x) or _is_tensor(y) or isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype, path)
    if isinstance(x, (bool, str, type(None))) or isinstance(y, (bool, str, type(None))):
        return None if x == y else f"{path}: {x!r} != {y!r}"
    if isinstance(x, numbers.Number) and isinstance(y, numbers.Number):
        return _compare_numbers(x, y, rtol, atol, equal_nan, path)
    if isinstance(x, dict) and isinstance(y, dict):
        if set(x) != set(y):
            return f"{path}: keys {sorted(map(str, x))} != {sorted(map(str, y))}"
        for k in x:
            msg = compare(x[k], y[k], rtol, atol, equal_nan, exact_dtype, f"{path}[{k!r}]")
            if msg:
                return msg
        return None
    if _sequence(x) and _sequence(y):
        if len(x) != len(y):
            return f"{path}: lengths {len(x)} != {len(y)}"
        for i, (a, b) in enumerate(zip(x, y)):
            msg = compare(a, b, rtol, atol, equal_nan, exact_dtype, f"{path}[{i}]")
            if msg:
                return msg
        return None
    return None if x == y else f"{path}: {x!r} != {y!r}"


def _sequence(x):
    return isinstance(x, (list, tuple, _torch().Size)) or (
        hasattr(x, "__len__") and hasattr(x, "__getitem__") and not isinstance(x, (str, bytes))
    )


def _compare_numbers(x, y, rtol, atol, equal_nan, path):
    if isinstance(x, complex) or isinstance(y, complex):
        x, y = complex(x), complex(y)
    if rtol is None:
        rtol, atol = (0.0, 0.0) if isinstance(x, int) and isinstance(y, int) else _tol("float64")
    if equal_nan and _isnan(x) and _isnan(y):
        return None
    if x == y or abs(x - y) <= atol + rtol * abs(y):
        return None
    return f"{path}: {x!r} != {y!r} (rtol={rtol}, atol={atol})"


def _isnan(v):
    return v != v


def _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype, path):
    dtypes = []
    arrays = []
    for v in (x, y):
        if _is_tensor(v):
            dtypes.append(v.dtype)
            arrays.append(_array(v))
        elif isinstance(v, np.ndarray):
            dtypes.append(str(v.dtype))
            arrays.append(v)
        elif isinstance(v, numbers.Number):
            arrays.append(np.asarray(v))
        else:
            try:
                arrays.append(_array(_torch().tensor(v)))
            except Exception:
                return f"{path}: cannot compare {type(x).__name__} with {type(y).__name__}"
    a, b = arrays
    if _is_tensor(x) and _is_tensor(y):
        if tuple(x.shape) != tuple(y.shape):
            return f"{path}: shapes {tuple(x.shape)} != {tuple(y.shape)}"
        if exact_dtype and x.dtype != y.dtype:
            return f"{path}: dtypes {x.dtype} != {y.dtype}"
    elif a.shape != b.shape and a.size != b.size and min(a.size, b.size) != 1:
        return f"{path}: shapes {a.shape} != {b.shape}"
    if rtol is None:
        rtol, atol = _tol(*dtypes) if dtypes else (0.0, 0.0)
        if all(not np.issubdtype(arr.dtype, np.inexact) for arr in arrays):
            rtol, atol = 0.0, 0.0
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        return f"{path}: shapes {a.shape} != {b.shape}"
    if a.dtype == bool or b.dtype == bool:
        ok = np.array_equal(a, b)
    else:
        ok = np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if ok:
        return None
    return f"{path}: values differ (rtol={rtol}, atol={atol}):\n{a}\n{b}"


def assert_close(
    actual, expected, *, rtol=None, atol=None, equal_nan=False, check_dtype=True, msg=None, **_
):
    """``torch.testing.assert_close`` on our comparison."""
    err = compare(actual, expected, rtol, atol, equal_nan, check_dtype)
    if err:
        raise AssertionError(msg or err)
