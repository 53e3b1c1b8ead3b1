"""Process-wide switches of the ``torch`` namespace: deterministic algorithms, float32 matmul
precision, warn-always, anomaly mode, denormals, inter-op threads and what the build has.

leafgrad's kernels are NumPy's and already deterministic, and its matmuls always run in full
float32, so these switches are remembered and reported back (scripts set and read them) but
change no result.
"""

from __future__ import annotations

import os

from ._engine.anomaly import state as _anomaly
from ._warn import warn_at_user
from .backends import cuda as _backends_cuda

_DEBUG_MODES = ("default", "warn", "error")


class _Flags:
    deterministic = False
    warn_only = False
    matmul_precision = "highest"
    warn_always = False
    interop_threads = os.cpu_count() or 1


_flags = _Flags()


def _bool_arg(op: str, value, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"{op}(): argument '{name}' (position 1) must be bool, not {type(value).__name__}"
        )
    return value


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms (leafgrad's always are); remembered for the getters."""
    _flags.deterministic = _bool_arg("use_deterministic_algorithms", mode, "mode")
    _flags.warn_only = _bool_arg("use_deterministic_algorithms", warn_only, "warn_only")


def are_deterministic_algorithms_enabled() -> bool:
    return _flags.deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _flags.warn_only


def set_deterministic_debug_mode(debug_mode) -> None:
    """``"default"``/0: off; ``"warn"``/1: on, warn only; ``"error"``/2: on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(
                f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
            )
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 when off, 1 when on with warnings only, 2 when on."""
    if not _flags.deterministic:
        return 0
    return 1 if _flags.warn_only else 2


def set_float32_matmul_precision(precision: str) -> None:
    """``"highest"``, ``"high"`` or ``"medium"``: remembered (leafgrad always uses full float32);
    anything else warns and changes nothing, as in PyTorch."""
    if precision not in ("highest", "high", "medium"):
        warn_at_user(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "setFloat32MatmulPrecision call has no effect."
        )
        return
    _flags.matmul_precision = precision
    _backends_cuda.matmul.allow_tf32 = precision != "highest"


def get_float32_matmul_precision() -> str:
    return _flags.matmul_precision


def set_warn_always(b: bool, /) -> None:
    """Remembered for ``is_warn_always_enabled``; RuntimeError for a non-bool, as PyTorch."""
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _flags.warn_always = b


def is_warn_always_enabled() -> bool:
    return _flags.warn_always


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly mode on or off for good (``autograd.set_detect_anomaly`` without the scope)."""
    _anomaly.enabled, _anomaly.check_nan = bool(enabled), bool(check_nan)


def set_flush_denormal(mode: bool) -> bool:
    """False: NumPy offers no switch to flush denormals to zero, so nothing is configured."""
    _bool_arg("set_flush_denormal", mode, "mode")
    return False


def set_num_interop_threads(n: int) -> None:
    """Remembered for ``get_num_interop_threads``: leafgrad runs no inter-op thread pool."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RuntimeError(f"set_num_interop_threads expects a positive integer, got {n!r}")
    _flags.interop_threads = n


def get_num_interop_threads() -> int:
    return _flags.interop_threads


def init_num_threads() -> None:
    """Nothing to do: BLAS's thread count is process-wide (``set_num_threads``)."""


def is_vulkan_available() -> bool:
    return False


# What this "build" has: LAPACK through SciPy; no MKL, OpenMP or torch.fft.
has_lapack = True
has_mkl = False
has_openmp = False
has_spectral = False

__all__ = [
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
    "set_anomaly_enabled", "set_flush_denormal", "set_num_interop_threads",
    "get_num_interop_threads", "init_num_threads", "is_vulkan_available", "has_lapack",
    "has_mkl", "has_openmp", "has_spectral",
]  # fmt: skip
