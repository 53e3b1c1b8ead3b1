"""Samplers: the order in which a DataLoader visits a dataset's indices."""

from __future__ import annotations

from ... import randperm


class Sampler:
    """Yields dataset indices."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh random permutation each pass (``replacement=False``), from ``generator``."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None,
                 generator=None) -> None:  # fmt: skip
        if replacement:
            raise NotImplementedError("RandomSampler(replacement=True) is not supported")
        if num_samples is not None and num_samples != len(data_source):
            raise NotImplementedError("RandomSampler(num_samples=...) is not supported")
        self.data_source = data_source
        self.generator = generator

    def __iter__(self):
        return iter(randperm(len(self.data_source), generator=self.generator).tolist())

    def __len__(self) -> int:
        return len(self.data_source)


class SubsetRandomSampler(Sampler):
    """The given indices in a fresh random order each pass."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        order = randperm(len(self.indices), generator=self.generator).tolist()
        return (self.indices[i] for i in order)

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
