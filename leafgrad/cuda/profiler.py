"""``torch.cuda.profiler``, as a CPU-only build of PyTorch has it: starting the CUDA profiler
fails (no CUDA runtime)."""

from __future__ import annotations

import contextlib

from ._refusals import _not_compiled

DEFAULT_FLAGS = ["gpustarttimestamp", "gpuendtimestamp", "gridsize3d", "threadblocksize",
                 "streamid", "enableonstart 0", "conckerneltrace"]  # fmt: skip

start = stop = _not_compiled


@contextlib.contextmanager
def profile():
    """The CUDA profiler around a block; fails on entry, as in a CPU-only build."""
    _not_compiled()
    yield


__all__ = ["start", "stop", "profile"]
