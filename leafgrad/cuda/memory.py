"""``torch.cuda.memory``: allocator statistics as a CPU-only build reports them (nothing was
ever allocated), and the calls that need a device failing as that build fails."""

from __future__ import annotations

import collections

from .._warn import warn_at_user
from ._refusals import _not_compiled, missing_binding


def empty_cache() -> None:
    """Nothing to free: no CUDA memory is ever allocated."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


def memory_cached(device=None) -> int:
    warn_at_user(
        "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
        FutureWarning,
    )
    return 0


def max_memory_cached(device=None) -> int:
    warn_at_user(
        "`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
        FutureWarning,
    )
    return 0


def memory_stats(device=None) -> dict:
    """Empty: the allocator has no statistics without CUDA."""
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None) -> dict:
    return {}


def host_memory_stats() -> dict:
    return collections.OrderedDict()


def host_memory_stats_as_nested_dict() -> dict:
    return {}


reset_peak_memory_stats = missing_binding("reset_peak_memory_stats", "_cuda_resetPeakMemoryStats")


def _resets_all_peaks(name: str):
    def reset(device=None) -> None:
        """FutureWarning, then AttributeError, as in a CPU-only build of PyTorch."""
        warn_at_user(
            f"torch.cuda.{name} now calls torch.cuda.reset_peak_memory_stats, which resets /all/ "
            "peak memory stats.",
            FutureWarning,
        )
        reset_peak_memory_stats(device)

    reset.__name__ = reset.__qualname__ = name
    return reset


reset_max_memory_allocated = _resets_all_peaks("reset_max_memory_allocated")
reset_max_memory_cached = _resets_all_peaks("reset_max_memory_cached")
reset_accumulated_memory_stats = missing_binding(
    "reset_accumulated_memory_stats", "_cuda_resetAccumulatedMemoryStats"
)
reset_accumulated_host_memory_stats = missing_binding(
    "reset_accumulated_host_memory_stats", "_cuda_resetAccumulatedHostMemoryStats"
)
reset_peak_host_memory_stats = missing_binding(
    "reset_peak_host_memory_stats", "_cuda_resetPeakHostMemoryStats"
)
memory_snapshot = missing_binding("memory_snapshot", "_cuda_memorySnapshot")
get_allocator_backend = missing_binding("get_allocator_backend", "_cuda_getAllocatorBackend")
mem_get_info = _not_compiled
memory_summary = _not_compiled
caching_allocator_alloc = _not_compiled
caching_allocator_delete = _not_compiled
get_per_process_memory_fraction = _not_compiled
set_per_process_memory_fraction = _not_compiled


def list_gpu_processes(device=None) -> str:
    """The message PyTorch gives without NVIDIA's management library."""
    return "pynvml module not found, please install nvidia-ml-py"


__all__ = [
    "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_cached", "max_memory_cached", "memory_stats",
    "memory_stats_as_nested_dict", "host_memory_stats", "host_memory_stats_as_nested_dict",
    "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached",
    "reset_accumulated_memory_stats", "reset_accumulated_host_memory_stats",
    "reset_peak_host_memory_stats", "memory_snapshot", "get_allocator_backend", "mem_get_info",
    "memory_summary", "caching_allocator_alloc", "caching_allocator_delete",
    "get_per_process_memory_fraction", "set_per_process_memory_fraction", "list_gpu_processes",
]  # fmt: skip
