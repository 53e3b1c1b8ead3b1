"""Samplers: the order in which a DataLoader visits a dataset's indices."""

from __future__ import annotations

import numpy as np

from ... import Generator, empty, float64, int64, randint, randperm, tensor
from ..._random import _generator
from ..._tensor import Tensor


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
    """Random indices from ``generator``: a fresh permutation each pass, or with
    ``replacement`` independent draws; ``num_samples`` of them (default: the dataset's
    length). The draws are PyTorch's, so a seed gives its order: permutations whole (the
    last one cut), draws in blocks of 32."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None,
                 generator=None) -> None:  # fmt: skip
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        count = self.num_samples
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={count}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # PyTorch's: a generator of its own, seeded from the global one
            seed = int(empty((), dtype=int64).random_().item())
            generator = Generator().manual_seed(seed)
        count = self.num_samples
        if self.replacement:
            for _ in range(count // 32):
                yield from randint(high=n, size=(32,), dtype=int64, generator=generator).tolist()
            yield from randint(
                high=n, size=(count % 32,), dtype=int64, generator=generator
            ).tolist()
        else:
            for _ in range(count // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[: count % n]

    def __len__(self) -> int:
        return self.num_samples


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


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    replacement unless told otherwise), from ``generator``."""

    def __init__(self, weights, num_samples: int, replacement: bool = True,
                 generator=None) -> None:  # fmt: skip
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        values = weights.numpy() if isinstance(weights, Tensor) else weights
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(values.shape)}"
            )
        self.weights = tensor(values, dtype=float64)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        weights = self.weights.numpy()
        if weights.min() < 0 or not np.isfinite(weights).all():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if weights.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rng = _generator(self.generator)
        if self.replacement:
            drawn = rng.choice(weights.size, self.num_samples, True, weights / weights.sum())
            return iter(drawn.tolist())
        if self.num_samples > weights.size:
            raise RuntimeError(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement; "
                f"asked for {self.num_samples} of {weights.size}"
            )
        # An exponential race: the smallest E / w come first; zero weights last, as PyTorch
        # draws them once the others are used up.
        with np.errstate(divide="ignore"):
            keys = rng.exponential(size=weights.size) / weights
        return iter(np.argsort(keys, kind="stable")[: self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples
