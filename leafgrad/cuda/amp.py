"""``torch.cuda.amp``: the deprecated CUDA spellings of ``torch.amp``, disabled without CUDA."""

from __future__ import annotations

import functools

from .. import _dtype
from .. import amp as _amp
from .._warn import warn_at_user


class autocast(_amp.autocast):
    """``torch.amp.autocast("cuda", ...)`` under its deprecated name (warns, then disables)."""

    def __init__(self, enabled: bool = True, dtype=_dtype.float16, cache_enabled: bool = True):
        warn_at_user(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
        )
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``torch.amp.GradScaler("cuda", ...)`` under its deprecated name (disabled here)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:  # fmt: skip
        warn_at_user(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning,
        )
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)  # fmt: skip


custom_fwd = functools.partial(_amp.custom_fwd, device_type="cuda")
custom_bwd = functools.partial(_amp.custom_bwd, device_type="cuda")

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]
