"""``torch.storage``: the storage classes, importable by this path."""

from ._storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
