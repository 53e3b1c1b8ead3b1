"""Ranges: arange, linspace, logspace and eye, with PyTorch's values.

Float arange/linspace values follow the fused multiply-add of PyTorch's AVX2/AVX-512 kernels,
so they match those bit for bit; on a CPU without FMA PyTorch itself rounds differently (by
up to an ulp of the range's size, or 1 in an integer linspace). logspace uses NumPy's
``power``, whose last bit depends on NumPy's SIMD kernels.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype
from ._factory import (
    _INT64_MAX,
    _INT64_MIN,
    _checked_scalar,
    _finish,
    _int_arg,
    _number,
    _out_dtype,
)
from ._tensor import Tensor

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
    bounds or a step pointing away from ``end``. Float values are PyTorch's (AVX2 kernels) bit
    for bit up to 32768 elements; beyond that PyTorch splits the range across threads, which moves
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
        raise RuntimeError(f"invalid size, possible overflow? (arange: size {size})")
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
        which, value = ("n", n) if n < 0 else ("m", m)
        raise RuntimeError(f"{which} must be greater or equal to 0, got {value} (eye)")
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    return _finish(np.eye(n, m, dtype=dt.np), requires_grad, device, out)


__all__ = ["arange", "linspace", "logspace", "eye"]
