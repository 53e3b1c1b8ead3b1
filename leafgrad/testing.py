"""``torch.testing``: ``assert_close`` with PyTorch's default tolerances, checks and messages
(tensors, NumPy arrays, Python numbers, and sequences and mappings of them), the
deprecated ``assert_allclose``, and ``make_tensor`` drawing PyTorch's random values."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from . import _dtype
from ._creation import empty
from ._random import randint
from ._tensor import Tensor, _wrap
from ._typeinfo import finfo, iinfo
from ._warn import warn_at_user

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# (rtol, atol) by dtype, as PyTorch's; integers and bools are compared for equality.
_TOLERANCES = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}
_NUMBERS = (bool, int, float, complex, np.number, np.bool_)


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg=None,
) -> None:
    """AssertionError unless ``actual`` and ``expected`` are close: ``|actual - expected| <=
    atol + rtol * |expected|`` elementwise, with PyTorch's defaults by dtype (float32: rtol
    1.3e-6, atol 1e-5; float64: 1e-7 both; float16: 1e-3, 1e-5; others exact), after equal
    shapes and (unless told not to) dtypes and strides. ``msg``: a string replacing the
    message, or a callable given it."""
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    options = {
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_dtype": check_dtype,
        "check_stride": check_stride,
    }
    failure = _compare(actual, expected, options)
    if failure is None:
        return
    text, path = failure
    if path:
        text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
    if msg is not None:
        text = msg(text) if callable(msg) else msg
    raise AssertionError(text)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """Deprecated in PyTorch for ``assert_close``: the same comparison, NaNs equal by default
    and dtypes not checked (numbers and sequences become tensors of ``actual``'s dtype)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = _wrap(np.asarray(actual))
    if not isinstance(expected, Tensor):
        expected = _wrap(np.asarray(expected, dtype=_values(actual).dtype))
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_dtype=False,
        msg=msg or None,
    )


def _values(x) -> np.ndarray:
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _compare(actual, expected, options, path=()):
    """None if equal enough, else ``(message, path to the failing item)``."""
    tensor_like = (Tensor, np.ndarray)
    if isinstance(actual, tensor_like) and isinstance(expected, tensor_like):
        if isinstance(actual, Tensor) != isinstance(expected, Tensor):
            return _no_pair(actual, expected)
        message = _compare_arrays(_values(actual), _values(expected), options)
        return None if message is None else (message, path)
    if isinstance(actual, _NUMBERS) and isinstance(expected, _NUMBERS):
        message = _compare_numbers(actual, expected, options)
        return None if message is None else (message, path)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual), key=repr)
            extra = sorted(set(actual) - set(expected), key=repr)
            text = "The keys of the mappings do not match:\n"
            if missing:
                text += f"Missing keys in the actual mapping: {missing}\n"
            if extra:
                text += f"Additional keys in the actual mapping: {extra}\n"
            return text.strip(), path
        for key in expected:
            failure = _compare(actual[key], expected[key], options, (*path, key))
            if failure is not None:
                return failure
        return None
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            return (
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                path,
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            failure = _compare(a, e, options, (*path, i))
            if failure is not None:
                return failure
        return None
    return _no_pair(actual, expected)


def _is_sequence(x) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, (str, bytes))


def _no_pair(actual, expected):
    raise TypeError(
        f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}."
    )


def _torch_dtype(array: np.ndarray) -> str:
    return str(_dtype.from_numpy_dtype(array.dtype))


def _tolerances(options, *dtypes) -> tuple:
    if options["rtol"] is not None:
        return options["rtol"], options["atol"]
    pairs = [_TOLERANCES.get(np.dtype(d).name, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _compare_arrays(actual: np.ndarray, expected: np.ndarray, options) -> str | None:
    if actual.shape != expected.shape:
        return (
            "The values for attribute 'shape' do not match: "
            f"torch.Size({list(actual.shape)}) != torch.Size({list(expected.shape)})."
        )
    if options["check_dtype"] and actual.dtype != expected.dtype:
        return (
            "The values for attribute 'dtype' do not match: "
            f"{_torch_dtype(actual)} != {_torch_dtype(expected)}."
        )
    if options["check_stride"] and actual.size > 1:
        strides = [tuple(s // a.itemsize for s in a.strides) for a in (actual, expected)]
        if strides[0] != strides[1]:
            return (
                f"The values for attribute 'stride()' do not match: {strides[0]} != {strides[1]}."
            )
    rtol, atol = _tolerances(options, actual.dtype, expected.dtype)
    common = np.result_type(actual, expected)
    a, e = actual.astype(common, copy=False), expected.astype(common, copy=False)
    if common.kind in "fc":
        with np.errstate(invalid="ignore", over="ignore"):  # PyTorch's isclose rule
            matches = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    else:
        matches = a == e
    if matches.all():
        return None
    if actual.ndim == 0:
        return _scalar_message(a.item(), e.item(), rtol, atol)
    return _tensor_message(a, e, matches, rtol, atol)


def _tensor_message(actual, expected, matches, rtol, atol) -> str:
    total = matches.size
    mismatched = total - int(matches.sum())
    flat_a, flat_e, flat_m = actual.reshape(-1), expected.reshape(-1), matches.reshape(-1)
    if flat_a.dtype.kind not in "fc":
        flat_a, flat_e = flat_a.astype(np.int64), flat_e.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(flat_a - flat_e)
        abs_diff[flat_m] = 0
        if abs_diff.dtype.kind in "iub":  # PyTorch divides integers in its default float
            default = _dtype.get_default_dtype().np
            rel_diff = abs_diff.astype(default) / np.abs(flat_e).astype(default)
        else:
            rel_diff = abs_diff / np.abs(flat_e)
        rel_diff[flat_m] = 0
    abs_i, rel_i = _argmax_with_nan(abs_diff), _argmax_with_nan(rel_diff)
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    return _mismatch_message(
        "Tensor-likes",
        extra,
        abs_diff[abs_i].item(),
        np.unravel_index(abs_i, actual.shape),
        atol,
        rel_diff[rel_i].item(),
        np.unravel_index(rel_i, actual.shape),
        rtol,
    )


def _argmax_with_nan(values: np.ndarray) -> int:
    """PyTorch's ``max`` index: the first NaN if any, else the first maximum."""
    nan = np.isnan(values) if values.dtype.kind in "fc" else None
    if nan is not None and nan.any():
        return int(np.argmax(nan))
    return int(np.argmax(values))


def _compare_numbers(actual, expected, options) -> str | None:
    types = [np.asarray(x).dtype for x in (actual, expected)]
    if options["rtol"] is not None:
        rtol, atol = options["rtol"], options["atol"]
    elif any(t.kind in "fc" for t in types):  # a Python float compares as float64
        rtol, atol = _TOLERANCES["float64"]
    else:
        rtol, atol = 0.0, 0.0
    if isinstance(actual, float) or isinstance(expected, float):
        if options["equal_nan"] and np.isnan(actual) and np.isnan(expected):
            return None
    if abs(actual - expected) <= atol + rtol * abs(expected):
        return None
    return _scalar_message(actual, expected, rtol, atol)


def _scalar_message(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message(
        "Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff, None,
        rtol,
    )  # fmt: skip


def _mismatch_message(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        if idx is None:
            text = f"{kind.title()} difference: {diff}"
        else:
            text = f"Greatest {kind} difference: {diff} at index {tuple(int(i) for i in idx)}"
        if not equality:
            text += f" (up to {tol} allowed)"
        return text + "\n"

    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    text += line("absolute", abs_diff, abs_idx, atol)
    text += line("relative", rel_diff, rel_idx, rtol)
    return text.strip()


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format=None) -> Tensor:  # fmt: skip
    """A tensor of random values in [low, high) drawn as PyTorch's ``make_tensor`` draws
    them (``uniform_`` for floats, ``randint`` for integers and bools), so that a seeded
    script gets PyTorch's values and leaves the generator where PyTorch's leaves it."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
            f"but got noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    kind = _kind(dtype)
    if requires_grad and kind in "biu":
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, "
            f"but got dtype={dtype}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dim, every other value kept, from the second
        shape = (*shape[:-1], 2 * shape[-1])
    result = _random_values(shape, dtype, device, kind, low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if kind in "biu" else finfo(dtype).tiny
    if kind == "f":
        result.requires_grad = requires_grad
    return result


def _kind(dtype) -> str:
    """NumPy's kind letter of ``dtype``: "b", "i"/"u", "f", or "c" for those leafgrad refuses."""
    if dtype.is_floating_point:
        return "f"
    return dtype.np.kind if dtype.np is not None else "c"


def _random_values(shape, dtype, device, kind, low, high) -> Tensor:
    """make_tensor's draw: PyTorch's bounds by kind, clamped into the dtype's range."""
    if kind == "b":
        low, high = _bounds(low, high, 0, 2, 0, 2, dtype)
        return randint(low, high, shape, device=device, dtype=dtype)
    if kind in "iu":
        info = iinfo(dtype)
        top = info.max + (1 if dtype is not _dtype.int64 else 0)  # randint's int64 bound
        low, high = _bounds(low, high, info.min, top, -9, 10, dtype)
        return randint(low, high, shape, device=device, dtype=dtype)
    info = finfo(dtype)
    low, high = _bounds(low, high, info.min, info.max, -9, 9, dtype)
    result = empty(shape, device=device, dtype=dtype)
    if high - low >= info.max:  # uniform_ needs the width to be finite
        return result.uniform_(low / 2, high / 2).mul_(2)
    return result.uniform_(low, high)


def _bounds(low, high, lowest, highest, default_low, default_high, dtype) -> tuple:
    """PyTorch's ``modify_low_high``: defaults, checks, clamping (and ceilings for integers)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    integral = not dtype.is_floating_point
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and not integral:
        warn_at_user(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
            "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), "
            f"but {dtype} only supports [{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (math.ceil(low), math.ceil(high)) if integral else (low, high)
