"""``get_worker_info``: facts about the current DataLoader worker process."""

from __future__ import annotations

__all__ = ["get_worker_info"]


def get_worker_info():
    """``None``: leafgrad's DataLoader loads in the calling process (no workers)."""
    return None
