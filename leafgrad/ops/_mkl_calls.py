"""MKL's functions called from compiled code (numba), where numba is there too: the matrix
product ``cblas_?gemm`` (``_mkl``) and the vector math functions (``_vml``).

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

import types as types_module

import llvmlite.binding as llvm
import numpy as np
from numba import literal_unroll, types

from . import _fused

_GEMMS = {"d": "cblas_dgemm", "f": "cblas_sgemm"}
_ROW_MAJOR = 101  # CBLAS's enum value
# VML's mode: high accuracy (VML_HA, within 1 ulp), denormals kept (VML_FTZDAZ_OFF), errors
# ignored (VML_ERRMODE_IGNORE: NaN and inf come out as NumPy's, nothing raised or printed).
_VML_MODE = 0x2 | 0x140000 | 0x100
_VML_CHUNK = 2**30  # VML's LP64 interface counts in 32-bit ints


def _signature(scalar):
    size, address = types.intc, types.voidptr
    sizes = (size,) * 6
    return types.void(*sizes, scalar, address, size, address, size, scalar, address, size)


def _symbol(name: str) -> str:
    """The name LLVM knows MKL's function ``name`` by here (``_link``)."""
    return "leafgrad_mkl_" + name


def _link(addresses: dict) -> None:
    """Give LLVM each MKL function's address (name -> address) under our name for it."""
    for name, address in addresses.items():
        llvm.add_symbol(_symbol(name), address)


_dgemm = types.ExternalFunction(_symbol(_GEMMS["d"]), _signature(types.float64))
_sgemm = types.ExternalFunction(_symbol(_GEMMS["f"]), _signature(types.float32))


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


# VML's functions the unary ops take (``_vml.FUNCTIONS``), in this order: ``which`` below.
VECTOR_FUNCTIONS = ("Sin", "Cos", "Exp", "Ln", "Tanh", "Tan", "Asin", "Atan", "Log2", "Log10")


def _vector_externals(prefix: str) -> tuple:
    signature = types.void(types.intc, types.voidptr, types.voidptr, types.int64)
    return tuple(
        types.ExternalFunction(_symbol(prefix + name), signature) for name in VECTOR_FUNCTIONS
    )


def _vector_loop(which, x, out):
    """``f(which, x, out)``: VML's function ``VECTOR_FUNCTIONS[which]`` (of ``_FUNCTIONS``,
    one dtype's) over 1-D ``x`` into ``out``. One compiled function a dtype, the function
    picked by ``which`` (the tuple unrolled: its functions are of different types): two
    compilations instead of twenty. VML counts in 32-bit ints, so the elements go in
    chunks."""
    for start in range(0, x.size, _VML_CHUNK):
        n = min(_VML_CHUNK, x.size - start)
        a, r = x[start:].ctypes, out[start:].ctypes
        i = 0
        for function in literal_unroll(_FUNCTIONS):  # noqa: F821 (each copy's global)
            if i == which:
                function(n, a, r, _VML_MODE)
            i += 1


def _with_functions(functions: tuple):
    """``_vector_loop`` with ``functions`` as its global ``_FUNCTIONS``. A global, not a closure
    variable: numba's disk cache keys a loop by its closure's pickle, which for these types
    differs between processes (each process compiled both loops again and added them to the
    cache); the two dtypes' copies differ in their signatures."""
    scope = {**globals(), "_FUNCTIONS": functions}
    return types_module.FunctionType(_vector_loop.__code__, scope, "_vector_loop")


def vector_callers(addresses: dict) -> dict:
    """dtype char -> compiled ``f(which, x, out)``: VML's function ``VECTOR_FUNCTIONS[which]``
    of 1-D ``x`` into ``out``, for MKL's functions at ``addresses`` (``"vmsSin"`` ... ->
    address; every one of both dtypes)."""
    _link(addresses)
    callers = {}
    for char, scalar, prefix in (("f", types.float32, "vms"), ("d", types.float64, "vmd")):
        flat = types.Array(scalar, 1, "C")
        signature = types.void(types.intc, types.Array(scalar, 1, "C", readonly=True), flat)
        callers[char] = _fused.jit(_with_functions(_vector_externals(prefix)), signature)
    return callers


def callers(addresses: dict) -> dict:
    """dtype char -> compiled ``product(a, b, out, layout_a, lda, layout_b, ldb)`` writing
    ``a @ b`` into ``out``, for MKL's functions at ``addresses`` (dtype char -> address)."""
    _link({_GEMMS[char]: address for char, address in addresses.items()})
    products = {"d": (_product_d, types.float64), "f": (_product_f, types.float32)}
    return {
        char: _fused.jit(products[char][0], _product_signature(products[char][1]))
        for char in addresses
    }


__all__: list = []
