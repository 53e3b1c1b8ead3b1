"""What NumPy says about this CPU: the SIMD feature groups its kernels may use."""

from __future__ import annotations


def numpy_cpu_features() -> dict:
    """NumPy's ``{feature: available}`` (``"AVX2": True`` ...) as the CPU reports them (only
    the dispatch groups, ``"X86_V3"`` ..., also reflect ``NPY_DISABLE_CPU_FEATURES``); empty
    where NumPy does not expose them."""
    try:
        # why: a private NumPy module, imported only here and guarded
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:
        return {}
    return dict(__cpu_features__)
