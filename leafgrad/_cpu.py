"""What NumPy runs on here: the SIMD feature groups its kernels may use, its BLAS, and the CPU's
vendor."""

from __future__ import annotations

from threadpoolctl import ThreadpoolController


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


def numpy_avx512() -> bool:
    """Whether NumPy's AVX-512 loops are in use here: its ``X86_V4`` dispatch group (which
    ``NPY_DISABLE_CPU_FEATURES`` can turn off), or with older NumPy the CPU's AVX512_SKX.
    Some of its loops differ in kind between the levels (``log1p`` is vectorised only with
    AVX-512; ``power`` of negative bases falls to a slow loop only there)."""
    features = numpy_cpu_features()
    group = features.get("X86_V4")
    return bool(features.get("AVX512_SKX") if group is None else group)


def numpy_blas():
    """threadpoolctl's controller of the BLAS NumPy calls (``internal_api``, ``version``,
    ``get_num_threads()``; OpenBLAS's also ``architecture``, its kernels): the one NumPy's
    wheel bundles, else the first loaded; None where threadpoolctl finds none."""
    libs = ThreadpoolController().select(user_api="blas").lib_controllers
    return ([lib for lib in libs if "numpy" in lib.filepath] or libs or [None])[0]


def cpu_vendor() -> str:
    """The CPU's vendor as Linux reports it (``"GenuineIntel"``, ``"AuthenticAMD"`` ...), or
    ``""`` where ``/proc/cpuinfo`` does not say (other systems)."""
    return cpuinfo("vendor_id")


def cpuinfo(field: str) -> str:
    """The first CPU's ``field`` in ``/proc/cpuinfo`` (``"model name"``, ``"vendor_id"``
    ...), or ``""`` where the file or the field is missing (other systems)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                name, _, value = line.partition(":")
                if name.strip() == field:
                    return value.strip()
    except OSError:
        pass
    return ""
