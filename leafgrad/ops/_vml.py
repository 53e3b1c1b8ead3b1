"""float64 sine and cosine by MKL's vector math (VML), where MKL and numba are installed
(``pip install leafgrad[fast]``); NumPy's elsewhere.

Why: NumPy 2.4 computes float64 ``sin`` and ``cos`` one element at a time through libm
(~8-10 ns an element on this project's Sapphire Rapids host), where PyTorch's CPU kernels are
vectorised (SLEEF): on (1000, 100) float64, sin's forward took 790 us against PyTorch's 104,
its backward (a cosine) 724 against 186. MKL's ``vmdSin`` takes 134 us and ``vmdCos`` 97
(NumPy's 1040 and 626, alone). A sine is a PINN's everyday function: SIREN activations,
Fourier features, sources such as ``sin(pi x)`` in the residual. VML's high-accuracy mode is
within 1 ulp of the exact result, as NumPy's libm and PyTorch's SLEEF (u10) are: on uniform
inputs 99.8% of its results are NumPy's bits and the rest 1 ulp away. float32 keeps NumPy's
loops (vectorised already, as fast as VML's).
"""

from __future__ import annotations

import threading

import numpy as np

from . import _fused, _mkl

# Elements from which a compiled call (~1 us) beats NumPy's ~9 ns an element.
MIN_SIZE = 128

_callers = None  # VML function name -> compiled caller; {}: not in use
_loading = threading.Lock()


def _load() -> dict:
    global _callers
    with _loading:
        if _callers is None:
            callers = {}
            names = ("vmdSin", "vmdCos")
            if _mkl.available() and _fused.available():
                addresses = {name: _mkl.address_of(name) for name in names}
                if all(addresses.values()):
                    try:
                        from . import _mkl_calls  # why: imports numba

                        callers = _mkl_calls.vector_callers(addresses)
                    except Exception:  # numba failing to compile them: NumPy's
                        callers = {}
            _callers = callers
    return _callers


def available() -> bool:
    """Whether VML's sine and cosine are in use."""
    return bool(_callers if _callers is not None else _load())


def _takes(x) -> bool:
    return (
        type(x) is np.ndarray
        and x.dtype.char == "d"
        and x.size >= MIN_SIZE
        and (x.flags.c_contiguous or x.flags.f_contiguous)
        and available()
    )


def _apply(name: str, x: np.ndarray) -> np.ndarray:
    """VML's ``name`` of a contiguous float64 ``x``, into a fresh array of its layout."""
    out = np.empty_like(x)
    flat = x.reshape(-1) if x.flags.c_contiguous else x.T.reshape(-1)
    _callers[name](flat, out.reshape(-1) if out.flags.c_contiguous else out.T.reshape(-1))
    return out


def sin(x, *args, **params):
    """``np.sin(x, ...)``; a large contiguous float64 ``x`` alone by VML."""
    if not args and not params and _takes(x):
        return _apply("vmdSin", x)
    return np.sin(x, *args, **params)


def cos(x, *args, **params):
    """``np.cos(x, ...)``; a large contiguous float64 ``x`` alone by VML."""
    if not args and not params and _takes(x):
        return _apply("vmdCos", x)
    return np.cos(x, *args, **params)


__all__: list = []
