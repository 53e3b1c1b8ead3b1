"""``torch.cuda.nvtx`` annotations, as a CPU-only build of PyTorch has them: every call fails
because NVTX is not installed."""

from __future__ import annotations

import contextlib


def _no_nvtx(*args, **kwargs):
    raise RuntimeError(
        "NVTX functions not installed. Are you sure you have a CUDA build? (leafgrad is a "
        "CPU-only build: use torch.profiler.record_function style timing instead)"
    )


range_push = range_pop = range_start = range_end = mark = _no_nvtx


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """An NVTX range around the block; fails on entry, as in a CPU-only build of PyTorch."""
    _no_nvtx()
    yield


__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]
