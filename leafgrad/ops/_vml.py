"""Elementary functions by MKL's vector math (VML), as PyTorch's CPU wheels compute them,
where MKL and numba are installed (``pip install leafgrad[fast]``); NumPy's elsewhere.

Why: PyTorch's CPU kernels for these functions call MKL's VML (high accuracy). With pip's
MKL 2024.2 the values of ``torch.exp``, ``log``, ``log2``, ``log10``, ``sin``, ``cos``,
``tan``, ``tanh``, ``asin`` and ``atan`` on float32 and float64 inputs of 7 to 2e5 elements
equalled ``vms*``/``vmd*`` to the bit (MKL 2026.2 moved 0.01-3% of them by an ulp), where
NumPy's agreed on 52-99% of float32 elements (its float32 ``exp`` is up to 2.3 ulp off,
VML's 0.56) and on 79% (``tanh``) to 99.8% (``sin``, ``cos``) of float64 ones (``DTYPES``:
every function in both dtypes). VML is faster too where NumPy is slow: NumPy 2.4 computes
float64 ``sin`` and ``cos`` one element at a time through libm, (1000, 100) float64 sin 790
us against PyTorch's 104 and VML's 134 (one thread, this project's Sapphire Rapids host);
float32 ``exp`` on 1e5 elements 64 us against VML's 30; elsewhere they are as fast. VML's
high-accuracy mode is within 1 ulp of the exact result; its special values are NumPy's (NaN,
infinities, signed zeros; errors ignored, denormals kept). Arrays of ``MIN_SIZE`` elements
or more take it, whatever their layout, as in PyTorch; smaller ones stay NumPy's (a compiled
call costs ~1 us where NumPy's costs ~0.4: a 13-op chain on 8 elements went 0.97 -> 1.03 of
PyTorch's time), as do other dtypes and calls with NumPy's own arguments (``out=``). Where
numba is there, float32 and float64 ``tanh`` take ``_tanh_loops``' one pass instead (within
1.5 ulp; faster than VML's generic kernels on AMD CPUs, which PyTorch's wheels run).
"""

from __future__ import annotations

import threading

import numpy as np

from . import _fused, _mkl, _tanh64

# Elements from which VML computes (below: NumPy's values, within 3 ulp of PyTorch's).
MIN_SIZE = 64

# op -> (NumPy's function, VML's name); the order of _mkl_calls.VECTOR_FUNCTIONS.
FUNCTIONS = {
    "sin": (np.sin, "Sin"),
    "cos": (np.cos, "Cos"),
    "exp": (np.exp, "Exp"),
    "log": (np.log, "Ln"),
    "tanh": (np.tanh, "Tanh"),
    "tan": (np.tan, "Tan"),
    "asin": (np.arcsin, "Asin"),
    "atan": (np.arctan, "Atan"),
    "log2": (np.log2, "Log2"),
    "log10": (np.log10, "Log10"),
}

# op -> the dtypes (chars) VML computes it in: every one in both. (Until session 43 float64
# exp, log, tan, asin, atan, log2 and log10 stayed NumPy's, taken to be PyTorch's values
# already; with MKL 2026.2 NumPy's differed from PyTorch's on 0.06-16% of float64 elements
# where VML's matched all, and VML took 0.22-0.95x NumPy's time: 2e5 float64 exp 431 us
# against NumPy's 1111 and PyTorch's 417, log10 647 against 2876.)
DTYPES = dict.fromkeys(FUNCTIONS, "fd")

_callers = None  # dtype char -> compiled caller; {}: not in use
_loading = threading.Lock()


def _load() -> dict:
    global _callers
    with _loading:
        if _callers is None:
            callers = {}
            if _mkl.available() and _fused.available():
                names = [p + vml for _, vml in FUNCTIONS.values() for p in ("vms", "vmd")]
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
    """Whether VML's functions are in use."""
    return bool(_callers if _callers is not None else _load())


def _flat_views(x: np.ndarray) -> tuple:
    """``(flat, out, into)``: a fresh ``out`` of ``x``'s layout (a C- or F-ordered ``x`` keeps
    it, as NumPy's; any other is copied first, as PyTorch's kernels buffer it), and the 1-D
    views of ``x`` and ``out`` in memory order, for a compiled pass to fill ``into``."""
    if not (x.flags.c_contiguous or x.flags.f_contiguous):
        x = np.ascontiguousarray(x)
    out = np.empty_like(x)
    return x.ravel(order="K"), out, out.ravel(order="K")


def _function(name: str, otherwise=None, min_size: int = MIN_SIZE):
    """``name``'s function: VML's for an array alone of ``min_size`` elements or more in one
    of ``DTYPES[name]`` (a non-contiguous one copied first, as PyTorch's kernels buffer it),
    else ``otherwise(x)`` (NumPy's function by default; NumPy's with NumPy's arguments)."""
    numpys = FUNCTIONS[name][0]
    dtypes = DTYPES[name]
    otherwise = otherwise or numpys
    which = list(FUNCTIONS).index(name)

    def function(x, *args, **params):
        if args or params:
            return numpys(x, *args, **params)
        callers = _callers if _callers is not None else _load()
        if not callers or type(x) is not np.ndarray or x.size < min_size:
            return otherwise(x)
        char = x.dtype.char
        if char not in dtypes:
            return otherwise(x)
        flat, out, into = _flat_views(x)
        callers[char](which, flat, into)
        return out

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``np.{numpys.__name__}(x, ...)``; by VML where it takes ``x``."
    return function


sin, cos, exp, log, tan = (_function(n) for n in ("sin", "cos", "exp", "log", "tan"))
_EXP = list(FUNCTIONS).index("exp")


def exp_into(t, min_size: int = MIN_SIZE):
    """``np.exp(t, out=t)``: by VML where ``exp`` would take ``t`` (a contiguous float32 or
    float64 array of ``min_size`` elements or more; VML computes in place), for the
    activations' own passes (sigmoid, SiLU, softplus, GELU): float64 2.6x NumPy's speed."""
    callers = _callers if _callers is not None else _load()
    if (
        callers
        and type(t) is np.ndarray
        and t.size >= min_size
        and t.dtype.char in "fd"
        and (t.flags.c_contiguous or t.flags.f_contiguous)
    ):
        flat = t.ravel(order="K")  # (a view of either layout)
        callers[t.dtype.char](_EXP, flat, flat)
        return t
    return np.exp(t, out=t)


asin, atan, log2, log10 = (_function(n) for n in ("asin", "atan", "log2", "log10"))
# float64 tanh on CPUs where NumPy's is slow: _tanh64's table, where VML is not there
_vml_tanh = _function("tanh", _tanh64.tanh)
_tanh_loops = None  # the module, once imported (it imports numba)


def tanh(x, *args, **params):
    """``np.tanh(x, ...)``: a float32 or float64 array alone of ``MIN_SIZE`` elements or more
    by ``_tanh_loops``' compiled pass where numba is there (2-2.6x VML's speed on AMD CPUs,
    within 1.5 ulp), else as ``_function`` (VML's, ``_tanh64``'s or NumPy's)."""
    global _tanh_loops
    if (
        args
        or params
        or type(x) is not np.ndarray
        or x.size < MIN_SIZE
        or x.dtype.char not in "fd"
        or not _fused.available()
    ):
        return _vml_tanh(x, *args, **params)
    if _tanh_loops is None:
        from . import _tanh_loops  # why: imports numba
    loop = _tanh_loops.tanh32 if x.dtype.char == "f" else _tanh_loops.tanh64
    flat, out, into = _flat_views(x)
    loop(into, flat)
    return out


# At any size, for the Taylor path's derivative blocks: a block's values must not depend
# on how the rows were cut (``jet_blocks``).
sin_any, cos_any, exp_any = (_function(n, min_size=1) for n in ("sin", "cos", "exp"))

__all__: list = []
