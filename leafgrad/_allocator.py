"""Keep freed array memory for reuse instead of handing it back to the OS.

Each op allocates a fresh result array. glibc serves blocks above 128 KiB with mmap and
unmaps them on free, so every medium-sized array (say 1000 x 100 floats) costs page faults
to zero fresh pages: about half the run time of an op chain on such arrays. Raising the mmap
and trim thresholds lets those blocks come from, and return to, the heap, much as PyTorch's
caching allocator reuses its blocks. Set LEAFGRAD_NO_MALLOPT=1 to leave malloc alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def tune_malloc() -> bool:
    """Raise glibc's mmap/trim thresholds; True when applied (Linux with glibc only)."""
    if not sys.platform.startswith("linux") or os.environ.get("LEAFGRAD_NO_MALLOPT"):
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
