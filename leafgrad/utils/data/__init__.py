"""``torch.utils.data``: datasets, batching and collation, in the calling process.

``DataLoader`` loads in the process that iterates it (``num_workers=0``); PINN and
scientific-ML data sets live in memory, where worker processes only add start-up cost.
Shuffling and ``random_split`` draw from leafgrad's generators, so orders differ from
PyTorch's for the same seed (as every leafgrad random stream does).
"""

from .collate import default_collate, default_convert
from .dataset import (
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .loader import DataLoader
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler

__all__ = [
    "BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
    "TensorDataset", "default_collate", "default_convert", "random_split",
]  # fmt: skip
