"""Timing interleaved in one process, thread pinning, and peak memory of one step."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import statistics
import time
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

import leafgrad

try:
    import torch
except ImportError:  # leafgrad is then measured alone
    torch = None

_libc = None


def library(method: str):
    """The library a method runs on (None: PyTorch is not installed)."""
    return torch if method.startswith("torch") else leafgrad


@contextmanager
def threads(count: int | None):
    """Both libraries on ``count`` threads (None: each library's default)."""
    if count is None:
        yield
        return
    before = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(count)
    try:
        with threadpool_limits(limits=count):  # NumPy's BLAS (and OpenMP) pools
            yield
    finally:
        if torch is not None:
            torch.set_num_threads(before)


def time_interleaved(workload, steps: dict, rounds: int) -> dict:
    """Median seconds per step of each method, the methods taking turns round by round."""
    samples = {m: [] for m in steps}
    number = workload.number
    for _ in range(rounds):
        for method, step in steps.items():
            start = time.perf_counter()
            for _ in range(number):
                step()
            samples[method].append((time.perf_counter() - start) / number)
    return {m: _summary(s) for m, s in samples.items()}


def time_sequence(steps: dict, count: int) -> dict:
    """Seconds of each of ``count`` successive steps, the methods taking turns step by step;
    ``first`` and ``last`` are the medians of the first and last tenth (at least 3 steps)."""
    samples = {m: [] for m in steps}
    for _ in range(count):
        for method, step in steps.items():
            start = time.perf_counter()
            step()
            samples[method].append(time.perf_counter() - start)
    out = {}
    for method, s in samples.items():
        tenth = max(3, len(s) // 10)
        summary = _summary(s)
        summary["first"] = statistics.median(s[:tenth])
        summary["last"] = statistics.median(s[-tenth:])
        summary["growth"] = summary["last"] / summary["first"]
        out[method] = summary
    return out


def _summary(samples: list) -> dict:
    return {"median": statistics.median(samples), "min": min(samples), "rounds": len(samples)}


def peak_step_mib(step) -> float | None:
    """Growth of the resident set during one step, MiB (None where Linux's counters are
    missing): the allocator's free memory is handed back first, then the peak is reset."""
    gc.collect()
    _trim()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM (the peak) to the current resident set
    except OSError:
        return None
    before = _status_kib("VmRSS:")
    step()
    peak = _status_kib("VmHWM:")
    return max(peak - before, 0) / 1024


def _trim() -> None:
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        except OSError:
            _libc = False
    if _libc and hasattr(_libc, "malloc_trim"):
        _libc.malloc_trim(0)


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0
