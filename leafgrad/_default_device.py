"""``torch.set_default_device`` / ``get_default_device`` (and ``with torch.device(...)``,
declared with the device): where factories put new tensors.

leafgrad holds tensors on the CPU only. As on a CPU-only build of PyTorch, any device name
may be set; factories that would then put a tensor elsewhere fail (``cuda``: AssertionError
"Torch not compiled with CUDA enabled"), and so does ``get_default_device()`` for ``cuda``.
"""

from __future__ import annotations

from ._tensor import _DEFAULT_DEVICE, CPU, check_device, device

__all__ = ["set_default_device", "get_default_device"]


def set_default_device(device) -> None:
    """Make factories (zeros, tensor, arange ...) put new tensors on ``device`` (None: cpu)."""
    _DEFAULT_DEVICE[-1] = CPU if device is None else _as_device(device)


def get_default_device() -> device:
    """The device factories use; fails for ``cuda`` as on a CPU-only build of PyTorch."""
    current = _DEFAULT_DEVICE[-1]
    if current.type == "cuda":
        check_device(current)
    return current


def default_device_or_none():
    """The default device when it is not the CPU (what factories must check), else None."""
    current = _DEFAULT_DEVICE[-1]
    return None if current.type == "cpu" else current


def _as_device(where) -> device:
    if isinstance(where, int) and not isinstance(where, bool):
        check_device(where)  # raises: no accelerator
    return where if isinstance(where, device) else device(where)
