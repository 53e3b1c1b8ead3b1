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

_NONE = "Cannot access accelerator device when none is available."


def _no_accelerator():
    raise RuntimeError(_NONE)


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator's device type: None, as PyTorch's CPU build answers."""
    return None


def device_count() -> int:
    return 0


def current_device_index() -> int:
    _no_accelerator()


def current_device_idx() -> int:
    """The deprecated name of ``current_device_index``."""
    warn_at_user("Use `current_device_index` instead.", FutureWarning)
    return current_device_index()


def set_device_index(device, /) -> None:
    _no_accelerator()


def set_device_idx(device, /) -> None:
    """The deprecated name of ``set_device_index``."""
    warn_at_user("Use `set_device_index` instead.", FutureWarning)
    set_device_index(device)


def set_stream(stream) -> None:
    _no_accelerator()


def current_stream(device=None, /):
    _no_accelerator()


def synchronize(device=None, /) -> None:
    _no_accelerator()


def get_device_capability(device=None, /) -> dict:
    _no_accelerator()


def empty_cache() -> None:
    _no_accelerator()


def empty_host_cache() -> None:
    _no_accelerator()


def get_memory_info(device_index=None, /) -> tuple:
    _no_accelerator()


def memory_stats(device_index=None, /):
    _no_accelerator()


def memory_allocated(device_index=None, /) -> int:
    _no_accelerator()


def max_memory_allocated(device_index=None, /) -> int:
    _no_accelerator()


def memory_reserved(device_index=None, /) -> int:
    _no_accelerator()


def max_memory_reserved(device_index=None, /) -> int:
    _no_accelerator()


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    _no_accelerator()


def reset_peak_memory_stats(device_index=None, /) -> None:
    _no_accelerator()


class device_index:
    """``with torch.accelerator.device_index(i):``: None switches nothing, an index raises."""

    def __init__(self, device, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            _no_accelerator()

    def __exit__(self, *exc_info) -> None:
        return None
