"""``torch.cpu``: the device leafgrad always runs on; streams and events are no-ops."""

from __future__ import annotations

import contextlib

from ._torch_eager import Event, Stream

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream",
           "device_count", "get_capabilities", "is_available", "is_initialized", "set_device",
           "stream", "synchronize"]  # fmt: skip

_stream = Stream()


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """Nothing to switch: there is one CPU device."""


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU work finishes before the call returns."""


def current_stream(device=None) -> Stream:
    return _stream


def get_capabilities() -> dict:
    """The CPU features PyTorch would report; leafgrad runs NumPy kernels and reports none."""
    return {}


class StreamContext(contextlib.AbstractContextManager):
    """``with torch.cpu.stream(s):``: a no-op, there is one CPU stream."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def __exit__(self, *exc) -> None:
        return None


def stream(stream) -> StreamContext:
    return StreamContext(stream)
