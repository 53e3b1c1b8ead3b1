"""``torch.accelerator``: the device-generic API of a CPU-only build, which has no accelerator.

PyTorch's current tutorials pick their device with ``torch.accelerator.is_available()`` and
``current_accelerator()``; those answer "none", and whatever needs a device raises
PyTorch's RuntimeError.
"""

from __future__ import annotations

from ._warn import warn_at_user

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "get_device_capability", "current_stream", "device_count", "device_index",
           "empty_cache", "empty_host_cache", "get_memory_info", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
           "synchronize"]  # fmt: skip


def _no_accelerator(*args, **kwargs):
    """What needs a device raises as PyTorch's CPU build does: there is none."""
    raise RuntimeError("Cannot access accelerator device when none is available.")


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator's device type: None, as PyTorch's CPU build answers."""
    return None


def device_count() -> int:
    return 0


current_device_index = set_device_index = set_stream = current_stream = synchronize = (
    _no_accelerator
)
get_device_capability = empty_cache = empty_host_cache = get_memory_info = _no_accelerator
memory_stats = memory_allocated = max_memory_allocated = _no_accelerator
memory_reserved = max_memory_reserved = _no_accelerator
reset_accumulated_memory_stats = reset_peak_memory_stats = _no_accelerator


def current_device_idx() -> int:
    """The deprecated name of ``current_device_index``."""
    warn_at_user("Use `current_device_index` instead.", FutureWarning)
    return current_device_index()


def set_device_idx(device, /) -> None:
    """The deprecated name of ``set_device_index``."""
    warn_at_user("Use `set_device_index` instead.", FutureWarning)
    set_device_index(device)


class device_index:
    """``with torch.accelerator.device_index(i):``: None switches nothing, an index raises."""

    def __init__(self, device, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            _no_accelerator()

    def __exit__(self, *exc_info) -> None:
        return None
