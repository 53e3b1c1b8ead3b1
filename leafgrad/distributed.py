"""``torch.distributed`` as in a PyTorch build without distributed support: ``is_available()``
is False and nothing else works (leafgrad runs in one process)."""

from __future__ import annotations


def is_available() -> bool:
    """False: this build has no distributed (multi-process) support."""
    return False


class ProcessGroup:
    """The placeholder a build without distributed support defines (it does nothing)."""
