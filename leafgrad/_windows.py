"""Window functions for spectral analysis: bartlett, blackman, hamming, hann and kaiser windows.

Each follows PyTorch's recipe step by step in the result's dtype (float16 through float32, as
PyTorch's half kernels do), so float32 windows match PyTorch's to a few ulp; ``periodic=True``
(the default) gives the first ``N`` points of the symmetric window of length ``N + 1``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import i0 as _i0

from . import _dtype
from ._factory import _finish, _out_dtype
from ._tensor import Tensor


def _length(window_length, op: str) -> int:
    if isinstance(window_length, (bool, np.bool_)) or not isinstance(
        window_length, (int, np.integer)
    ):
        raise TypeError(
            f"{op}(): argument 'window_length' (position 1) must be int, not "
            f"{type(window_length).__name__}"
        )
    n = int(window_length)
    if n < 0:
        raise RuntimeError(
            f"{op} requires non-negative window_length, got window_length={n}; pass the number "
            "of points in the window"
        )
    return n


def _flag(value, op: str, name: str, position: int) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be bool, not "
            f"{type(value).__name__}"
        )
    return bool(value)


def _real(value, op: str, name: str, position: int) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be float, not "
            f"{type(value).__name__}"
        )
    return float(value)


def _window_dtype(dtype, out, op: str) -> _dtype.dtype:
    dt = _out_dtype(dtype, out, _dtype.get_default_dtype())
    if not dt.is_floating_point:
        raise RuntimeError(
            f"{op} expects floating point dtypes, got: {dt}; pass dtype=torch.float32 or "
            "another floating dtype"
        )
    return dt


def _steps(dt: _dtype.dtype):
    """(compute dtype, round): PyTorch rounds a half tensor after every in-place step, while
    computing each step in float32."""
    if dt is _dtype.float16:
        return np.float32, lambda a: a.astype(np.float16).astype(np.float32)
    return dt.np.type, lambda a: a


def _make(op, window_length, periodic, dtype, out, requires_grad, device, values):
    """Common frame: checks, the 0- and 1-point windows, the periodic trim, the new leaf."""
    n = _length(window_length, op)
    periodic = _flag(periodic, op, "periodic", 2)
    dt = _window_dtype(dtype, out, op)
    if n <= 1:
        return _finish(np.ones(n, dt.np), requires_grad, device, out)
    m = n + 1 if periodic else n
    ct, rnd = _steps(dt)
    data = values(m, ct, rnd)[:n]
    return _finish(np.ascontiguousarray(data.astype(dt.np)), requires_grad, device, out)


def _hamming_values(alpha: float, beta: float):
    def values(m, ct, rnd):
        w = rnd(np.arange(m, dtype=ct) * ct(2 * math.pi / (m - 1)))
        w = rnd(np.cos(w))
        w = rnd(w * ct(-beta))
        return rnd(w + ct(alpha))

    return values


def hamming_window(
    window_length,
    periodic=True,
    alpha=0.54,
    beta=0.46,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad: bool = False,
) -> Tensor:
    """``alpha - beta * cos(2 pi k / (N - 1))`` (``N`` one longer when ``periodic``)."""
    alpha = _real(alpha, "hamming_window", "alpha", 3)
    beta = _real(beta, "hamming_window", "beta", 4)
    return _make(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        out,
        requires_grad,
        device,
        _hamming_values(alpha, beta),
    )


def hann_window(
    window_length,
    periodic=True,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad: bool = False,
) -> Tensor:
    """``0.5 - 0.5 cos(2 pi k / (N - 1))``: the Hamming window with alpha = beta = 0.5."""
    return _make(
        "hann_window",
        window_length,
        periodic,
        dtype,
        out,
        requires_grad,
        device,
        _hamming_values(0.5, 0.5),
    )


def _blackman_values(m, ct, rnd):
    w = rnd(np.arange(m, dtype=ct) * ct(math.pi / (m - 1)))
    a = rnd(rnd(np.cos(rnd(w * ct(4)))) * ct(0.08))
    b = rnd(rnd(np.cos(rnd(w * ct(2)))) * ct(0.5))
    return rnd(rnd(a - b) + ct(0.42))


def blackman_window(
    window_length,
    periodic=True,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad: bool = False,
) -> Tensor:
    """``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``."""
    return _make(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        out,
        requires_grad,
        device,
        _blackman_values,
    )


def _bartlett_values(m, ct, rnd):
    w = rnd(np.arange(m, dtype=ct) * ct(2.0 / (m - 1)))
    half = ((m - 1) >> 1) + 1
    w[half:] = rnd(rnd(w[half:] * ct(-1)) + ct(2))
    return w


def bartlett_window(
    window_length,
    periodic=True,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad: bool = False,
) -> Tensor:
    """The triangular window ``1 - |2k / (N - 1) - 1|``."""
    return _make(
        "bartlett_window",
        window_length,
        periodic,
        dtype,
        out,
        requires_grad,
        device,
        _bartlett_values,
    )


def kaiser_window(
    window_length,
    periodic=True,
    beta=12.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad: bool = False,
) -> Tensor:
    """``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)`` with ``a = (N - 1) / 2``."""
    beta = _real(beta, "kaiser_window", "beta", 3)

    def values(m, ct, rnd):
        a = (m - 1) / 2.0
        k = rnd(np.arange(m, dtype=ct)).astype(np.float64)
        # PyTorch evaluates this in the dtype's op-math type; float64 here, rounded at the end.
        arg = beta * np.sqrt(np.abs(1 - ((k - a) / a) ** 2))
        return (_i0(arg) / _i0(beta)).astype(ct)

    return _make(
        "kaiser_window", window_length, periodic, dtype, out, requires_grad, device, values
    )


__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]
