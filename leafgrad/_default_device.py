"""``torch.set_default_device`` / ``get_default_device``: where factories put new tensors.

leafgrad holds tensors on the CPU only. As on a CPU-only build of PyTorch, any device name
may be set; factories that would then put a tensor elsewhere fail (``cuda``: AssertionError
"Torch not compiled with CUDA enabled"), and so does ``get_default_device()`` for ``cuda``.
"""

from __future__ import annotations

from ._tensor import CPU, check_device, device

__all__ = ["set_default_device", "get_default_device"]

_default = [CPU]


def set_default_device(device) -> None:
    """Make factories (zeros, tensor, arange ...) put new tensors on ``device`` (None: cpu)."""
    _default[0] = CPU if device is None else _as_device(device)


def get_default_device() -> device:
    """The device factories use; fails for ``cuda`` as on a CPU-only build of PyTorch."""
    if _default[0].type == "cuda":
        check_device(_default[0])
    return _default[0]


def default_device_or_none():
    """The default device when it is not the CPU (what factories must check), else None."""
    current = _default[0]
    return None if current is CPU else current


def _as_device(where) -> device:
    if isinstance(where, int) and not isinstance(where, bool):
        check_device(where)  # raises: no accelerator
    return where if isinstance(where, device) else device(where)
