"""``torch.utils.data``: datasets, batching and collation, in the calling process.

``DataLoader`` loads in the process that iterates it (``num_workers=0``); PINN and
scientific-ML data sets live in memory, where worker processes only add start-up cost.
Shuffling and ``random_split`` draw from leafgrad's generators, so orders differ from
PyTorch's for the same seed (as every leafgrad random stream does).
"""

from .collate import default_collate, default_convert
from .datapipes import (
    DataChunk,
    DFIterDataPipe,
    IterDataPipe,
    MapDataPipe,
    argument_validation,
    functional_datapipe,
    guaranteed_datapipes_determinism,
    non_deterministic,
    runtime_validation,
    runtime_validation_disabled,
)
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .loader import DataLoader
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .worker import get_worker_info

__all__ = [
    "BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler",
    "TensorDataset", "default_collate", "default_convert", "random_split",
]  # fmt: skip
__all__ += [
    "ChainDataset", "DistributedSampler", "StackDataset", "WeightedRandomSampler",
    "get_worker_info",
]  # fmt: skip
__all__ += [
    "DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe", "argument_validation",
    "functional_datapipe", "guaranteed_datapipes_determinism", "non_deterministic",
    "runtime_validation", "runtime_validation_disabled",
]  # fmt: skip
