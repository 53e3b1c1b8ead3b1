"""Collation: a list of samples becomes one batch, as PyTorch's ``default_collate`` makes it."""

from __future__ import annotations

import collections.abc

import numpy as np

from ... import float64, int64, stack, tensor
from ..._tensor import Tensor


def default_collate(batch: list):
    """Stack tensors, arrays and numbers along a new first dim; recurse into containers."""
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch), 0)
    if isinstance(first, np.ndarray):
        if first.dtype.kind in "OSU":
            raise TypeError(f"default_collate: cannot batch NumPy arrays of dtype {first.dtype}")
        return stack([tensor(b) for b in batch], 0)
    if isinstance(first, np.generic):
        return tensor(np.array(batch))
    if isinstance(first, bool):
        return tensor(batch)
    if isinstance(first, float):
        return tensor(batch, dtype=float64)
    if isinstance(first, int):
        return tensor(batch, dtype=int64)
    if isinstance(first, (str, bytes)):
        return batch
    if isinstance(first, collections.abc.Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(field) for field in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, NumPy arrays, numbers, dicts or lists; "
        f"found {type(first).__name__}"
    )


def default_convert(data):
    """NumPy arrays become tensors (recursively); everything else is left as it is."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSU":
        return tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {key: default_convert(value) for key, value in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return [default_convert(d) for d in data]
    return data
