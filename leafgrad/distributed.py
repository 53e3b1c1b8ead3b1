"""``torch.distributed`` as in a PyTorch build without distributed support (USE_DISTRIBUTED=0):
``is_available()`` is False, and the module holds only what such a build's holds (its error
types and placeholder classes); leafgrad runs in one process."""

from __future__ import annotations

RankType = int


def is_available() -> bool:
    """False: this build has no distributed (multi-process) support."""
    return False


class DistError(RuntimeError):
    """Raised by the distributed package (never, here: it is not available)."""


class DistBackendError(DistError):
    """A backend failed."""


class DistNetworkError(DistError):
    """A network operation failed."""


class DistStoreError(DistError):
    """A store operation failed."""


class QueueEmptyError(DistStoreError):
    """A store queue was empty."""


class GroupName:
    """The placeholder a build without distributed support defines (it does nothing)."""


class ProcessGroup:
    """The placeholder a build without distributed support defines (it does nothing)."""
