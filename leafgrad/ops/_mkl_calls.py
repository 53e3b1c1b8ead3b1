"""MKL's functions called from compiled code (numba), where numba is there too: the matrix
product ``cblas_?gemm`` (``_mkl``) and vector math's ``vmdSin``/``vmdCos`` (``_vml``).

Why: a call through ctypes costs ~7 us before MKL starts (each argument converted, three
``ndarray.ctypes`` objects made), as much as the product itself at a PINN layer's sizes:
``(1e3, 20) @ (20, 20)`` float64 took 21.7 us by ctypes, 15.4 us from here and 15.5 us by
NumPy's OpenBLAS; a (4, 4) product 7.7 us by ctypes, 1.8 us from here (one thread, this
project's Sapphire Rapids host). With the call this cheap MKL pays from OpenBLAS's
small-matrix bound on in float32 too (``_gemm.MKL_FROM``).

Each function's address, read from MKL's library by ctypes (``_mkl``), is given to LLVM
under a name of ours (so no other library's ``cblas_dgemm``, e.g. an ILP64 one, can stand
in); the compiled callers name it, so they are cached on disk like the other kernels and
linked to the address in each process.
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
from numba import types

from . import _fused

_SYMBOLS = {"d": "leafgrad_mkl_cblas_dgemm", "f": "leafgrad_mkl_cblas_sgemm"}
_ROW_MAJOR = 101  # CBLAS's enum value
# VML's mode: high accuracy (VML_HA, within 1 ulp), denormals kept (VML_FTZDAZ_OFF), errors
# ignored (VML_ERRMODE_IGNORE: NaN and inf come out as NumPy's, nothing raised or printed).
_VML_MODE = 0x2 | 0x140000 | 0x100
_VML_CHUNK = 2**30  # VML's LP64 interface counts in 32-bit ints


def _signature(scalar):
    size, address = types.intc, types.voidptr
    sizes = (size,) * 6
    return types.void(*sizes, scalar, address, size, address, size, scalar, address, size)


_dgemm = types.ExternalFunction(_SYMBOLS["d"], _signature(types.float64))
_sgemm = types.ExternalFunction(_SYMBOLS["f"], _signature(types.float32))


def _product_d(a, b, out, layout_a, lda, layout_b, ldb):
    m, n, k = out.shape[0], out.shape[1], a.shape[1]
    _dgemm(_ROW_MAJOR, layout_a, layout_b, m, n, k, 1.0, a.ctypes, lda, b.ctypes, ldb,
           0.0, out.ctypes, max(n, 1))  # fmt: skip


def _product_f(a, b, out, layout_a, lda, layout_b, ldb):
    m, n, k = out.shape[0], out.shape[1], a.shape[1]
    one, zero = np.float32(1.0), np.float32(0.0)
    _sgemm(_ROW_MAJOR, layout_a, layout_b, m, n, k, one, a.ctypes, lda, b.ctypes, ldb,
           zero, out.ctypes, max(n, 1))  # fmt: skip


def _product_signature(scalar):
    """Operands of any layout (``_mkl`` checked it is BLAS's), a fresh C-ordered result:
    one compiled function per dtype, made at once."""
    operand = types.Array(scalar, 2, "A", readonly=True)
    size = types.intc
    return types.void(operand, operand, types.Array(scalar, 2, "C"), size, size, size, size)


_vml_signature = types.void(types.intc, types.voidptr, types.voidptr, types.int64)
_vmd_sin = types.ExternalFunction("leafgrad_mkl_vmdSin", _vml_signature)
_vmd_cos = types.ExternalFunction("leafgrad_mkl_vmdCos", _vml_signature)


def _sin_d(x, out):
    for start in range(0, x.size, _VML_CHUNK):
        n = min(_VML_CHUNK, x.size - start)
        _vmd_sin(n, x[start:].ctypes, out[start:].ctypes, _VML_MODE)


def _cos_d(x, out):
    for start in range(0, x.size, _VML_CHUNK):
        n = min(_VML_CHUNK, x.size - start)
        _vmd_cos(n, x[start:].ctypes, out[start:].ctypes, _VML_MODE)


def vector_callers(addresses: dict) -> dict:
    """name (``"vmdSin"``, ``"vmdCos"``) -> compiled ``f(x, out)`` over 1-D float64 ``x``
    into ``out``, for MKL's functions at ``addresses`` (name -> address)."""
    loops = {"vmdSin": _sin_d, "vmdCos": _cos_d}
    flat = types.Array(types.float64, 1, "C")
    signature = types.void(types.Array(types.float64, 1, "C", readonly=True), flat)
    callers = {}
    for name, address in addresses.items():
        llvm.add_symbol("leafgrad_mkl_" + name, address)
        callers[name] = _fused.jit(loops[name], signature)
    return callers


def callers(addresses: dict) -> dict:
    """dtype char -> compiled ``product(a, b, out, layout_a, lda, layout_b, ldb)`` writing
    ``a @ b`` into ``out``, for MKL's functions at ``addresses`` (dtype char -> address)."""
    for char, address in addresses.items():
        llvm.add_symbol(_SYMBOLS[char], address)
    products = {"d": (_product_d, types.float64), "f": (_product_f, types.float32)}
    return {
        char: _fused.jit(products[char][0], _product_signature(products[char][1]))
        for char in addresses
    }


__all__: list = []
