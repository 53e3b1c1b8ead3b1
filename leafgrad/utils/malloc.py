"""``tune_malloc()``: keep freed array memory for reuse instead of handing it back to the OS.

Each op allocates a fresh result array. glibc serves blocks above 128 KiB with mmap and
unmaps them on free, so every medium-sized array (say 1000 x 100 floats) costs page faults
to zero fresh pages. Raising the mmap and trim thresholds lets those blocks come from, and
return to, the heap, much as PyTorch's caching allocator reuses its blocks.

The thresholds belong to the whole process, every library in it included, so leafgrad never
changes them by itself: a program opts in by calling ``tune_malloc()`` (the ``leafgrad``
command and ``benchmarks/`` do). Measured on ``benchmarks/ops.py``, the (1000, 100) op chain
runs 2-5x faster with it; small arrays are unaffected.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

__all__ = ["tune_malloc"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def tune_malloc() -> bool:
    """Raise glibc's mmap/trim thresholds for this process; True when applied (glibc only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, 256 * 1024 * 1024)
        and mallopt(_M_TRIM_THRESHOLD, 1024 * 1024 * 1024)
    )
