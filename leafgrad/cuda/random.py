"""``torch.cuda.random``: the per-device generators, of which a CPU-only build has none."""

from __future__ import annotations

from ._refusals import _not_compiled


def manual_seed(seed: int) -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def seed() -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


def seed_all() -> None:
    """Accepted and ignored: there is no CUDA generator to seed."""


get_rng_state = _not_compiled
set_rng_state = _not_compiled
initial_seed = _not_compiled


def get_rng_state_all() -> list:
    return []  # one state per device, and there are none


def set_rng_state_all(new_states) -> None:
    """Accepted: one state per device, and there are none."""


__all__ = [
    "manual_seed", "manual_seed_all", "seed", "seed_all", "get_rng_state", "set_rng_state",
    "initial_seed", "get_rng_state_all", "set_rng_state_all",
]  # fmt: skip
