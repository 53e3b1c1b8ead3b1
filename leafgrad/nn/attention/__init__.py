"""``torch.nn.attention``: choosing the kernel behind ``scaled_dot_product_attention``.

leafgrad has one implementation, the composed "math" one; as on PyTorch's CPU build the
math and flash choices both run, and a selection holding neither finds no kernel.
"""

from __future__ import annotations

import contextlib
import enum

__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The kernels ``scaled_dot_product_attention`` may use."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self) -> str:
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


_ALL = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
        SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE]  # fmt: skip
_enabled: list = [list(_ALL)]  # the backends allowed now (a one-item box, replaced by sdpa_kernel)


def _check_kernel_available() -> None:
    """Raise as PyTorch's CPU build does when neither the math nor the flash kernel is on."""
    if not {SDPBackend.MATH, SDPBackend.FLASH_ATTENTION} & set(_enabled[0]):
        raise RuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely due "
            "to turning off both the math kernel and the fused kernels. Enable "
            "SDPBackend.MATH (leafgrad's only kernel) in sdpa_kernel"
        )


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Within the block, ``scaled_dot_product_attention`` may only use ``backends`` (one
    ``SDPBackend`` or a list); usable as a decorator too."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
            f"{type(backends).__name__}"
        )
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    previous = _enabled[0]
    _enabled[0] = [SDPBackend(b) for b in chosen]
    try:
        yield {}
    finally:
        _enabled[0] = previous
