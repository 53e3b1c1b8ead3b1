"""Intel MKL's matrix product, where it is installed (``pip install leafgrad[mkl]``), for the
tall products of a PINN's layers past OpenBLAS's small-matrix kernel.

Why: PyTorch's CPU wheels multiply with MKL, which is faster than NumPy's OpenBLAS on these
shapes. Measured with one thread on a 2-core Sapphire/Emerald Rapids VM (NumPy 2.4's
OpenBLAS 0.3.31, MKL 2024.2, medians of interleaved runs): ``(M, 20) @ (20, 20)`` float64
M = 3e3 97 -> 48 us, 1e4 335 -> 185, 3e4 1049 -> 539 (PyTorch 41, 175, 547); float32 1e4
128 -> 98 (PyTorch 95); a weight's gradient ``(20, 4e4) @ (4e4, 20)`` float64 1392 -> 1078,
float32 807 -> 677; ``g @ w^T`` 20-25% less. Below OpenBLAS's small-matrix bound (``_gemm``)
OpenBLAS is as fast and a call through ctypes costs a few microseconds more, so only larger
products come here. MKL runs sequentially (its threading layer set so before any call):
it stands in for a one-thread OpenBLAS product only (``_gemm``). Its sums round in another
order than OpenBLAS's: results differ in the last bits, as another BLAS's would. On AMD's
CPUs its products were slower than OpenBLAS's, so ``_gemm`` calls them on Intel's only.
``LEAFGRAD_MKL=0`` turns it off. No MKL, or none loadable: None from ``matmul``.
"""

from __future__ import annotations

import ctypes
import os
import threading

import numpy as np

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112  # CBLAS's enum values
_SEQUENTIAL = 1  # MKL_THREADING_SEQUENTIAL
_LP64 = 0  # MKL_INTERFACE_LP64
_INT_MAX = 2**31 - 1  # MKL's LP64 interface: 32-bit sizes

_gemms = None  # dtype char -> cblas_?gemm, once loaded; {}: MKL missing or turned off
_products: dict = {}  # dtype char -> the compiled caller of cblas_?gemm (``_mkl_calls``)
_library = None  # MKL's library (ctypes) once loaded
_loading = threading.Lock()


def _library_path() -> str | None:
    """Where pip's ``mkl`` package put ``libmkl_rt``, or None."""
    from importlib import metadata  # why: only on the first large product

    try:
        files = metadata.files("mkl") or []
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name.startswith("libmkl_rt.so"):
            return str(f.locate())
    return None


def _load() -> dict:
    global _gemms, _library
    with _loading:
        if _gemms is not None:
            return _gemms
        gemms = {}
        path = _library_path() if os.environ.get("LEAFGRAD_MKL", "1") != "0" else None
        if path is not None:
            try:
                lib = ctypes.CDLL(path)
                # 32-bit sizes whatever MKL_INTERFACE_LAYER says (the calls pass C ints)
                lib.MKL_Set_Interface_Layer.argtypes = [ctypes.c_int]
                lib.MKL_Set_Interface_Layer(_LP64)
                lib.MKL_Set_Threading_Layer.argtypes = [ctypes.c_int]
                lib.MKL_Set_Threading_Layer(_SEQUENTIAL)
                for char, scalar, name in (
                    ("f", ctypes.c_float, "cblas_sgemm"),
                    ("d", ctypes.c_double, "cblas_dgemm"),
                ):
                    gemm = getattr(lib, name)
                    gemm.restype = None
                    size, address = ctypes.c_int, ctypes.c_void_p
                    gemm.argtypes = [size] * 6 + [scalar, address, size, address, size]
                    gemm.argtypes += [scalar, address, size]
                    gemms[char] = gemm
                _library = lib
            except (OSError, AttributeError):  # a broken or foreign install: OpenBLAS's
                gemms = {}
        if gemms:
            _products.update(_compiled_callers(gemms))
        _gemms = gemms
        return gemms


def _compiled_callers(gemms: dict) -> dict:
    """The compiled callers of ``gemms`` where numba is there (``_mkl_calls``), else none."""
    from . import _fused  # why: numba is optional and ~0.3 s to import

    if not _fused.available():
        return {}
    try:
        from . import _mkl_calls  # why: imports numba

        addresses = {char: ctypes.cast(g, ctypes.c_void_p).value for char, g in gemms.items()}
        return _mkl_calls.callers(addresses)
    except Exception:  # numba failing to compile them: the calls through ctypes
        return {}


def available() -> bool:
    """Whether MKL's products are in use (installed, loadable and not turned off)."""
    return bool(_gemms if _gemms is not None else _load())


def address_of(name: str) -> int | None:
    """The address of MKL's function ``name`` (for compiled callers), or None where MKL is
    not in use or has no such function."""
    if not available() or _library is None:
        return None
    try:
        return ctypes.cast(getattr(_library, name), ctypes.c_void_p).value
    except AttributeError:
        return None


def compiled_calls() -> bool:
    """Whether MKL's products are called from compiled code (``_mkl_calls``), not ctypes."""
    return available() and bool(_products)


def _operand(x: np.ndarray):
    """``(transpose flag, leading dimension)`` of a 2-D ``x`` that is C-contiguous or the
    transpose of a C-contiguous array, else None."""
    itemsize = x.itemsize
    rows, cols = x.shape
    row_stride, col_stride = x.strides
    if col_stride == itemsize and (row_stride == cols * itemsize or rows == 1):
        return _NO_TRANS, max(cols, 1)
    if row_stride == itemsize and (col_stride == rows * itemsize or cols == 1):
        return _TRANS, max(rows, 1)
    return None


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``a @ b`` for 2-D float32/float64 ``a`` and ``b`` of one dtype, into a fresh C-ordered
    array by MKL; None where MKL is missing or the operands' layouts are not BLAS's."""
    gemms = _gemms if _gemms is not None else _load()
    gemm = gemms.get(a.dtype.char) if gemms else None
    if gemm is None or b.dtype != a.dtype:
        return None
    (m, k), n = a.shape, b.shape[1]
    if max(m, k, n) > _INT_MAX:
        return None
    layout_a, layout_b = _operand(a), _operand(b)
    if layout_a is None or layout_b is None:
        return None
    out = np.empty((m, n), a.dtype)
    product = _products.get(a.dtype.char)
    if product is not None:
        product(a, b, out, layout_a[0], layout_a[1], layout_b[0], layout_b[1])
        return out
    gemm(
        _ROW_MAJOR, layout_a[0], layout_b[0], m, n, k,
        1.0, a.ctypes.data, layout_a[1], b.ctypes.data, layout_b[1],
        0.0, out.ctypes.data, max(n, 1),
    )  # fmt: skip
    return out


__all__: list = []
