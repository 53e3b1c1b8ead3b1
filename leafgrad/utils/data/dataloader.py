"""``torch.utils.data.dataloader``: the module scripts import the loader and its collation
from (``from torch.utils.data.dataloader import DataLoader, default_collate``)."""

from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .loader import DataLoader
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler
from .worker import get_worker_info

__all__ = [
    "BatchSampler",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
]
