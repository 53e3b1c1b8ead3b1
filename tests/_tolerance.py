"""How close two floating-point results must be to count as the same on any x86-64 CPU.

NumPy picks its SIMD kernels by CPU (AVX-512 on one machine, AVX2 or SSE on another), BLAS
builds sum in different orders, and PyTorch's ATen kernels round differently again. So a
result that is not an exact operation may differ in its last bits between machines, and
between leafgrad and PyTorch. Compare bit for bit only what is exact (shapes, dtypes,
integers, indexing, copies, sums of small integers); everything else through these helpers:

- ``"elementwise"``: one formula per element (``exp``, ``pow``, ``x * y + z``): a few ulp;
- ``"direct"``: a short chain of formulas, reductions, small matrix products: float32 to
  about 1e-6 relative, float64 to about 1e-12;
- ``"iterative"``: many dependent steps (optimizers, L-BFGS, training loops), where rounding
  differences compound: float32 about 1e-4, float64 about 1e-8.
"""

from __future__ import annotations

import numpy as np

ULPS = 4
_TOLERANCES = {
    "elementwise": {
        np.float16: (ULPS * 2.0**-10, 0),
        np.float32: (ULPS * 2.0**-23, 0),
        np.float64: (ULPS * 2.0**-52, 0),
    },
    "direct": {
        np.float16: (2e-3, 1e-4),
        np.float32: (1e-6, 1e-7),
        np.float64: (1e-12, 1e-14),
    },
    "iterative": {
        np.float16: (1e-2, 1e-3),
        np.float32: (1e-4, 1e-6),
        np.float64: (1e-8, 1e-12),
    },
}


def as_array(x) -> np.ndarray:
    """A NumPy array from a leafgrad or PyTorch tensor, an array or a number."""
    if hasattr(x, "detach"):
        x = x.detach()
    if hasattr(x, "numpy"):
        x = x.numpy()
    return np.asarray(x)


def tolerance(dtype, kind: str = "direct") -> tuple[float, float]:
    """``(rtol, atol)`` for results of ``dtype`` computed the way ``kind`` says."""
    dtype = np.dtype(dtype)
    table = _TOLERANCES[kind]
    return table.get(dtype.type, table[np.float64])


def assert_close(actual, expected, kind: str = "direct", dtype=None) -> None:
    """``actual`` equals ``expected`` within ``kind``'s tolerance for their dtype.

    NaNs must sit in the same places and infinities must match exactly. The dtype is
    ``expected``'s unless given; integer and bool results must be equal.
    """
    a, e = as_array(actual), as_array(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    dtype = np.dtype(dtype or e.dtype)
    if dtype.kind not in "fc":
        np.testing.assert_array_equal(a, e)
        return
    if kind == "elementwise":
        _assert_ulp_close(a, e, dtype)
        return
    rtol, atol = tolerance(dtype, kind)
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)


def _assert_ulp_close(a: np.ndarray, e: np.ndarray, dtype: np.dtype) -> None:
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    same_nan = np.isnan(a64) == np.isnan(e64)
    assert same_nan.all(), f"NaNs differ:\n{a}\n{e}"
    finite = np.isfinite(e64) & ~np.isnan(a64)
    assert (a64[~finite & ~np.isnan(e64)] == e64[~finite & ~np.isnan(e64)]).all(), (
        f"infinities differ:\n{a}\n{e}"
    )
    # One ulp at the larger magnitude, but never below the smallest normal's ulp, so
    # results that should be zero may land on a tiny denormal either side.
    info = np.finfo(dtype)
    scale = np.maximum(np.abs(a64), np.abs(e64))[finite]
    ulp = np.maximum(np.spacing(scale.astype(dtype)).astype(np.float64), info.tiny * info.eps)
    err = np.abs(a64[finite] - e64[finite])
    bad = err > ULPS * ulp
    assert not bad.any(), (
        f"{int(bad.sum())} of {bad.size} values differ by more than {ULPS} ulp "
        f"(worst {float((err / ulp).max()):.1f} ulp):\n{a}\n{e}"
    )
