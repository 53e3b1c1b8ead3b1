"""``torch.cuda`` streams, events, graphs and device contexts, as a CPU-only build has them:
the classes exist (scripts name them), making one fails, and the contexts that a CPU program
can enter (``stream(None)``, ``device(-1)``) do nothing."""

from __future__ import annotations

from ._refusals import _not_compiled


def _dummy(name: str, message: str):
    class Refused:
        def __init__(self, *args, **kwargs) -> None:
            raise RuntimeError(message)

    Refused.__name__ = Refused.__qualname__ = name
    Refused.__doc__ = f"Refused, as in a CPU-only build of PyTorch: {message}."
    return Refused


Stream = _dummy("Stream", "torch.cuda.Stream requires CUDA support")
ExternalStream = _dummy("ExternalStream", "torch.cuda.ExternalStream requires CUDA support")
Event = _dummy("Event", "Tried to instantiate dummy base class Event")
CUDAGraph = _dummy("CUDAGraph", "Tried to instantiate dummy base class CUDAGraph")


class StreamContext:
    """``with StreamContext(stream):`` - nothing to switch with ``None``, the only stream here."""

    def __init__(self, stream) -> None:
        if stream is not None:
            raise RuntimeError("torch.cuda.StreamContext: there are no CUDA streams on the CPU")
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc) -> None:
        pass


def stream(stream) -> StreamContext:
    """The context of ``stream`` (only ``None`` exists without CUDA)."""
    return StreamContext(stream)


def set_stream(stream) -> None:
    """Accepted for ``None``, as in PyTorch's CPU build."""
    if stream is not None:
        raise RuntimeError("torch.cuda.set_stream: there are no CUDA streams on the CPU")


current_stream = _not_compiled
default_stream = _not_compiled
get_sync_debug_mode = _not_compiled
set_sync_debug_mode = _not_compiled


def is_current_stream_capturing() -> bool:
    """Refused, as in a CPU-only build of PyTorch (no CUDA graphs to capture)."""
    raise RuntimeError("Tried to instantiate dummy base class _cuda_isCurrentStreamCapturing")


def _index(device) -> int | None:
    if device is None or isinstance(device, int):
        return device
    text = str(device)
    if not text.startswith("cuda"):
        raise ValueError(f"Expected a cuda device, but got: {text}")
    return int(text.partition(":")[2] or 0)


class device:
    """``with torch.cuda.device(i):`` - entering with a real index fails without CUDA; -1 (or a
    CPU tensor's device, via ``device_of``) does nothing."""

    def __init__(self, device) -> None:
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None and self.idx >= 0:
            raise RuntimeError("PyTorch was compiled without CUDA support")

    def __exit__(self, *exc) -> bool:
        return False


class device_of(device):
    """The device context of a tensor: a no-op for CPU tensors (all of leafgrad's)."""

    def __init__(self, obj) -> None:
        self.idx, self.prev_idx = -1, -1


__all__ = [
    "Stream", "ExternalStream", "Event", "CUDAGraph", "StreamContext", "stream", "set_stream",
    "current_stream", "default_stream", "get_sync_debug_mode", "set_sync_debug_mode",
    "is_current_stream_capturing", "device", "device_of",
]  # fmt: skip
