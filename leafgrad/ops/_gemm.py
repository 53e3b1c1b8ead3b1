"""``matmul``: NumPy's 2-D product, cut into pieces that OpenBLAS's small-matrix kernel takes.

A PINN layer's products are tall and thin: ``(N, 20) @ (20, 20)`` for the activations and
``(20, N) @ (N, 20)`` for the weight's gradient. OpenBLAS's SkylakeX kernels (x86-64 with
AVX-512; also Cooperlake and Sapphire Rapids) have a small-matrix GEMM that skips packing,
permitted while ``M N K <= 100^3`` (``dgemm_small_kernel_permit_skylakex.c``). At N = 1e4 the
products are past that and take the general path, which is slower on these shapes: measured
with one BLAS thread on a Sapphire Rapids VM (NumPy 2.4, OpenBLAS 0.3.31), ``(1e4, 20) @
(20, 20)`` float64 265 -> 175 us in row blocks within the bound (PyTorch 141), and ``(20, 1e4)
@ (1e4, 20)`` summed over blocks of the inner axis 326 -> 208 us float64, 134 -> 103 us
float32; widths 32 to 64 gain 1.1-1.6x likewise. Row blocks in float32 pay only for tall
products of width 32 and more (``_float64_or_tall``; width 20: 102 -> 116 us). The float64
small kernel is also faster with ``b`` in C order than transposed (a backward's ``w^T``):
``(1e3, 20) @ (20, 20)^T`` 25 -> 15 us with ``b`` copied first (float32: no gain).

With more than one BLAS thread the general path spreads a tall product's rows over them and
wins, so row blocks are cut only while OpenBLAS runs one thread (read per call: ~0.3 us,
against products of 100 us and more). A weight's gradient it spreads poorly: on two threads
inner blocks still gain up to 32 x 32 results (``(20, 1.2e4) @ (1.2e4, 20)`` 367 -> 219 us
float64, 180 -> 119 us float32) and lose at 64 x 64, so they are cut there up to 32 x 32.
Elsewhere (other BLAS or kernels) nothing changes: that is all that was measured. A row
block's entries are computed as in the whole product; a sum over inner blocks rounds
differently (a few ulp), as a different BLAS would.
"""

from __future__ import annotations

import os

import numpy as np

from .._cpu import cpu_vendor, numpy_blas
from . import _mkl

# OpenBLAS's bound for its small-matrix kernel: M N K <= 100^3.
SMALL_MNK = 100**3
# Products MKL takes (``_mkl``), at least: past the small-matrix bound ((3e3, 20) @ (20, 20)
# float64 93 -> 42 us, float32 38 -> 29; ``(20, 3e3) @ (3e3, 20)`` float32 50 -> 30, called
# from compiled code: ``_mkl_calls``). Through ctypes (~7 us a call) float32 paid only from a
# 1e4-row layer: at 3e3 rows a weight's gradient lost, 56 -> 62 us.
MKL_FROM = {"d": SMALL_MNK, "f": SMALL_MNK}
# Where the call goes through ctypes (no numba), float32 from 4 times that.
MKL_FROM_BY_CTYPES = {"d": SMALL_MNK, "f": 4 * SMALL_MNK}
# Widths (the two small sides' product) the pieces were measured to pay for: 20 x 20 to 64 x 64.
MAX_SMALL_SIDES = 64 * 64
MIN_SMALL_SIDES = 16 * 16
# float32 row blocks pay from 32 x 32 weights (at 20 x 20 and 24 x 24 they lose or tie).
MIN_FLOAT32_ROW_SIDES = 32 * 32
# With more BLAS threads, inner blocks still pay up to 32 x 32 results (measured on two).
MAX_THREADED_INNER = 32 * 32
_SKYLAKEX_KERNELS = {"skylakex", "cooperlake", "sapphirerapids"}

# MKL's products only on Intel's CPUs: on an AMD EPYC (Zen 3, AVX2; OpenBLAS's Haswell kernels)
# they were slower than OpenBLAS's on one thread (its non-Intel code path): ``(1e4, 20) @ (20,
# 20)`` float64 765 against 308 us, its weight's gradient 591 against 305, float32 176 against
# 163 and 192 against 171; a collapsed Burgers step N = 1e4 float64 128 -> 97 ms with
# OpenBLAS's (the two taking turns in one process).
_intel = None  # whether the CPU is Intel's, once read

_blas = None  # NumPy's OpenBLAS controller where its kernels are SkylakeX's; False: none
_numpy_blas = None  # NumPy's BLAS controller, whichever it is; False: none found


def _numpy_controller():
    """threadpoolctl's controller of NumPy's BLAS, whichever it is, else False (looked up
    once)."""
    global _numpy_blas
    if _numpy_blas is None:
        _numpy_blas = numpy_blas() or False
    return _numpy_blas


def _blas_kernels() -> str:
    """The kernels NumPy's OpenBLAS runs (``architecture``, lower case); "" for other BLAS."""
    return str(getattr(_numpy_controller(), "architecture", "")).lower()  # OpenBLAS's only


def _skylakex_blas():
    """NumPy's BLAS controller when it is OpenBLAS running SkylakeX kernels, else False."""
    global _blas
    if _blas is None:
        _blas = _numpy_controller() if _blas_kernels() in _SKYLAKEX_KERNELS else False
    return _blas


# ``_thin_gemm``'s kernels against OpenBLAS's Zen kernels on this project's AMD EPYC (Zen 3),
# one thread: ``(M, K) @ (K, N)`` from N = 4 (at N = 1 OpenBLAS's vector product wins),
# float64 (3000, 20) @ (20, 20) 94 -> 59 us, 1000 rows 32 -> 20, 300 rows 10 -> 6, (3000,
# 32) @ (32, 32) 194 -> 129, 64 x 64 weights 640 -> 544, the first layer's (3000, 2) @ (2,
# 20) 31 -> 13; float32 (3000, 20) @ (20, 20) 48 -> 38, 1e4 rows 164 -> 126, (3000, 32) @
# (32, 32) 94 -> 64. The weight's gradient ``A^T G`` with both widths multiples of 4 up to
# 32 (float64 lost at 50 and 64): 20 x 20 over 3000 rows float64 92 -> 68 us, float32 50 ->
# 41, 32 x 32 float64 191 -> 161, 4 x 20 float64 35 -> 15. From 256 rows: each product
# alone wins from 64, but a tiny PINN's step (N = 100, width 32, float32) took 3% longer
# with them (not understood). Where OpenBLAS runs more threads it spreads a tall product
# over them. With its SkylakeX kernels (measured on a Zen 4 EPYC) the row blocks below
# take the products: ``product`` was 10-20% faster up to width 32 (float64 (1e4, 20) @ (20,
# 20) 191 -> 165 us) but slower at 64 (1572 -> 1894), ``gram`` slower (167 -> 192), about
# 1% of a collapsed Burgers step: left to OpenBLAS. MKL's products: not measured.
THIN_MIN_ROWS = 256
THIN_MIN_WIDTH = 4
THIN_MAX_WIDTH = 64
THIN_MAX_GRAM_WIDTH = 32
_THIN_BLAS = {"haswell", "zen"}  # OpenBLAS's AVX2 kernels (``_blas_kernels``)
_thin_module = None  # _thin_gemm where its kernels run here, else False; None: not looked up


def _thin_kernels() -> bool:
    """Whether ``_thin_gemm`` takes products now: built, the CPU has AVX2 and FMA,
    NumPy's BLAS is OpenBLAS with AVX2 kernels, on one thread, and MKL takes none."""
    global _thin_module
    if _thin_module is None:
        _thin_module = _load_thin()
    if not _thin_module:
        return False
    return _numpy_controller().get_num_threads() == 1 and not _mkl_in_use()


def _load_thin():
    if os.environ.get("LEAFGRAD_PURE_PYTHON"):  # the pure path, as for the compiled modules
        return False
    try:
        from . import _thin_gemm  # why: a C extension the build may not have made
    except ImportError:
        return False
    return _thin_gemm if _thin_gemm.AVAILABLE and _blas_kernels() in _THIN_BLAS else False


def _thin(a: np.ndarray, b: np.ndarray, m: int, k: int, n: int) -> np.ndarray | None:
    """``a @ b`` by ``_thin_gemm`` where it was measured faster (above), else None."""
    item = a.itemsize
    if n <= THIN_MAX_WIDTH and m >= THIN_MIN_ROWS and k <= THIN_MAX_WIDTH:
        if a.strides[1] != item or not _thin_kernels():  # (rows not contiguous: rare here)
            return None
        out = np.empty((m, n), a.dtype)
        return out if _thin_module.product(a, b, out) else None
    if (
        k >= THIN_MIN_ROWS
        and THIN_MIN_WIDTH <= m <= THIN_MAX_GRAM_WIDTH
        and n <= THIN_MAX_GRAM_WIDTH
        and m % 4 == 0
        and n % 4 == 0
        and a.strides[0] == item  # a = A^T, A's rows contiguous: the weight's gradient
        and b.strides[1] == item
        and _thin_kernels()
    ):
        out = np.empty((m, n), a.dtype)
        return out if _thin_module.gram(a.T, b, out) else None
    return None


def _mkl_in_use() -> bool:
    """Whether a product past the small-matrix bound goes to MKL (``_mkl``): installed, on an
    Intel CPU, and NumPy's BLAS on one thread (MKL runs sequentially; more OpenBLAS threads
    share a tall product's rows)."""
    global _intel
    if _intel is None:
        _intel = cpu_vendor() == "GenuineIntel"
    if not _intel or not _mkl.available():
        return False
    blas = _numpy_controller()
    return not blas or blas.get_num_threads() == 1


def _mkl_from() -> dict:
    """dtype char -> the products (M K N) MKL takes from: ``MKL_FROM``, or through ctypes
    ``MKL_FROM_BY_CTYPES``."""
    return MKL_FROM if _mkl.compiled_calls() else MKL_FROM_BY_CTYPES


def _pieces(m: int, k: int, n: int, dtype) -> str | None:
    """``"rows"``, ``"inner"`` or None: how to cut an ``(m, k) @ (k, n)`` product."""
    if m * k * n <= SMALL_MNK or dtype.char not in "fd":
        return None
    if MIN_SMALL_SIDES <= m * n <= MAX_SMALL_SIDES and k > max(m, n):
        kind = "inner"
    elif MIN_SMALL_SIDES <= k * n <= MAX_SMALL_SIDES and m > k and _float64_or_tall(m, k, n, dtype):
        kind = "rows"
    else:
        return None
    blas = _skylakex_blas()
    if not blas:
        return None
    if blas.get_num_threads() != 1 and (kind == "rows" or m * n > MAX_THREADED_INNER):
        return None
    return kind


def _float64_or_tall(m: int, k: int, n: int, dtype) -> bool:
    """Whether row blocks pay for this dtype: float64's always (within the widths), float32's
    from 32 x 32 weights and eight blocks (measured on cold operands, as in a training step:
    ``(1e4, 32) @ (32, 32)`` 247 -> 196 us, but ``(1300, 32)`` 39 -> 44 and ``(1024, 64)``
    82 -> 88 us)."""
    return dtype == np.float64 or (k * n >= MIN_FLOAT32_ROW_SIDES and m * k * n >= 8 * SMALL_MNK)


def _outer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for an inner size of 1 (a one-feature first layer, the input gradient of a
    one-output last layer): each entry is one product. ``np.matmul`` loops over it slowly,
    and so does a broadcast multiply (its inner loop runs along the short rows); ``np.dot``
    hands float32/float64 to BLAS: (1e4, 1) @ (1, 20) float32 234 us by matmul, 121 by the
    multiply, 40 by dot, near PyTorch's. Its entries are the products' (a zero's sign may
    differ)."""
    if a.dtype.char in "fd" and b.dtype == a.dtype:
        return np.dot(a, b)
    return np.multiply(a, b, order="C")


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)`` for 2-D ``a`` and ``b``: a fresh array, computed in pieces within
    OpenBLAS's small-matrix bound where that was measured faster, or by ``_thin_gemm``
    (float64, float32)."""
    (m, k), n = a.shape, b.shape[1]
    if k == 1:
        return _outer(a, b)
    char = a.dtype.char
    if (char == "d" or char == "f") and b.dtype.char == char and n >= THIN_MIN_WIDTH:
        out = _thin(a, b, m, k, n)
        if out is not None:
            return out
    # (Every mm runs this: the cheapest tests first, and dtype.char, not ``== np.float64``;
    # the flags last: reading them makes an object, ~0.1 us.)
    if (
        m > k
        and k * n <= MAX_SMALL_SIDES
        and a.dtype.char == "d"
        and not b.flags.c_contiguous
        and _skylakex_blas()
    ):  # a transposed b (w^T in a backward) in C order: the small kernel's faster layout
        b = np.ascontiguousarray(b)
    if m * k * n <= SMALL_MNK or a.dtype != b.dtype:
        return np.matmul(a, b)
    # (_mkl_in_use first: off Intel's CPUs it answers at once, without _mkl's Python calls)
    if _mkl_in_use() and m * k * n >= _mkl_from().get(a.dtype.char, m * k * n + 1):
        out = _mkl.matmul(a, b)
        if out is not None:
            return out
    kind = _pieces(m, k, n, a.dtype)
    if kind is None:
        return np.matmul(a, b)
    if kind == "rows":
        step = SMALL_MNK // (k * n)
        out = np.empty((m, n), a.dtype)
        for i in range(0, m, step):
            np.matmul(a[i : i + step], b, out=out[i : i + step])
        return out
    step = SMALL_MNK // (m * n)
    total = np.matmul(a[:, :step], b[:step])
    for i in range(step, k, step):
        total += np.matmul(a[:, i : i + step], b[i : i + step])
    return total


__all__: list = []
