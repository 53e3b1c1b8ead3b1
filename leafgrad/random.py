"""``torch.random``: the default generator, its seed and state, and ``fork_rng``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ._random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


@contextlib.contextmanager
def fork_rng(
    devices=None, enabled: bool = True, _caller="fork_rng", _devices_kw="devices", device_type=None
) -> Iterator[None]:
    """Restore the default generator's state on leaving the block: draws inside it do not
    change what is drawn after it. (leafgrad has only the CPU generator, so ``devices`` and
    ``device_type`` name nothing more.)"""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
