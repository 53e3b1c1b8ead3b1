"""``DataLoader``: batches of a dataset, in order or shuffled, collated into tensors."""

from __future__ import annotations

from ... import empty, int64
from .collate import default_collate, default_convert
from .dataset import IterableDataset, tensor_rows
from .sampler import BatchSampler, RandomSampler, SequentialSampler


class DataLoader:
    """Iterate ``dataset`` in batches; PyTorch's arguments, loaded in the calling process.

    ``num_workers`` must be 0 (see the package docstring); ``pin_memory`` and the worker
    options are accepted and have nothing to do on the CPU.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:  # fmt: skip
        if num_workers != 0:
            raise ValueError(
                f"DataLoader: num_workers={num_workers} is not supported: leafgrad loads "
                "batches in the calling process; use num_workers=0"
            )
        if isinstance(dataset, IterableDataset) and (shuffle or sampler or batch_sampler):
            raise ValueError("DataLoader with IterableDataset: shuffle/sampler must be unset")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler or drop_last):
            raise ValueError(
                "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                "sampler, and drop_last"
            )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        self.dataset = dataset
        self.batch_size = None if batch_sampler is not None else batch_size
        self.drop_last = drop_last
        self.num_workers = 0
        self.generator = generator
        if sampler is None and not isinstance(dataset, IterableDataset):
            sampler = RandomSampler(dataset, generator=generator) if shuffle else (
                SequentialSampler(dataset))  # fmt: skip
        self.sampler = sampler
        if batch_sampler is None and batch_size is not None and sampler is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._batched else default_convert
        self.collate_fn = collate_fn

    @property
    def _batched(self) -> bool:
        return self.batch_sampler is not None or (
            isinstance(self.dataset, IterableDataset) and self.batch_size is not None
        )

    def __iter__(self):
        # PyTorch's iterator draws its workers' base seed as it starts, from ``generator``
        # (else the global one): drawn here too, so what a script draws next is PyTorch's.
        empty((), dtype=int64).random_(generator=self.generator)
        return self._batches()

    def _batches(self):
        if isinstance(self.dataset, IterableDataset):
            yield from self._iterate_stream()
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self._fetch(indices)
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _fetch(self, indices):
        """The batch at ``indices``: PyTorch's fetch (the dataset's ``__getitems__`` where
        it has one, else one ``dataset[i]`` per index), collated."""
        dataset, collate = self.dataset, self.collate_fn
        if collate is default_collate:
            rows = tensor_rows(dataset, indices)
            if rows is not None:
                return rows
        getitems = getattr(dataset, "__getitems__", None)
        if getitems:
            return collate(getitems(indices))
        return collate([dataset[i] for i in indices])

    def _iterate_stream(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
