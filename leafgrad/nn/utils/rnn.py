"""Variable-length sequences for the recurrent layers: ``PackedSequence`` and the functions
that pack, pad and unpad batches of sequences (all differentiable with respect to the data).

A packed batch sorts its sequences by length, longest first, and stores time step by time
step the entries of the sequences still running: ``batch_sizes[t]`` rows for step ``t``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import leafgrad as _lg

from ... import Tensor

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence",
    "pad_packed_sequence", "pad_sequence", "unpack_sequence", "unpad_sequence",
]  # fmt: skip


class _PackedFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedFields):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``: a batch of sequences packed
    time step by time step; build it with ``pack_padded_sequence`` or ``pack_sequence``."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # PackedSequence(data_and_batch_sizes): PyTorch's positional form.
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """The same sequences with ``data`` converted by ``Tensor.to``."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs) -> PackedSequence:
        return self

    def double(self) -> PackedSequence:
        return self.to(dtype=_lg.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_lg.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=_lg.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=_lg.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=_lg.int32)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (``None`` stays ``None``)."""
    if permutation is None:
        return None
    order = permutation.numpy()
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return _lg.tensor(inverse, dtype=_lg.int64)


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return lengths.numpy().astype(np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


def pack_padded_sequence(
    input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack ``input`` ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequence ``b``
    has ``lengths[b]`` valid steps; ``enforce_sorted`` wants the lengths decreasing."""
    sizes = _lengths_array(lengths)
    if sizes.size and sizes.min() <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    batch_dim = 0 if batch_first else 1
    if enforce_sorted:
        if np.any(np.diff(sizes) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        sorted_indices = None
    else:
        order = np.argsort(-sizes, kind="stable")
        sizes = sizes[order]
        sorted_indices = _lg.tensor(order, dtype=_lg.int64)
        input = input.index_select(batch_dim, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    if sizes.size and sizes[0] > input.shape[0]:
        raise RuntimeError(
            f"pack_padded_sequence: a length of {sizes[0]} exceeds the {input.shape[0]} time "
            "steps of the input; lengths must not exceed the padded length"
        )
    steps = int(sizes[0]) if sizes.size else 0
    batch_sizes = np.array([(sizes > t).sum() for t in range(steps)], dtype=np.int64)
    data = _lg.cat([input[t, : int(n)] for t, n in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _lg.tensor(batch_sizes, dtype=_lg.int64), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """``(padded (T, B, *) or (B, T, *), lengths)`` of a packed batch, in the order the
    sequences had before packing."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.numpy()
    steps, batch = len(batch_sizes), int(batch_sizes[0]) if len(batch_sizes) else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps_out = total_length
    else:
        steps_out = steps
    feature = tuple(data.shape[1:])
    rows, start = [], 0
    for n in batch_sizes:
        n = int(n)
        step = data[start : start + n]
        if n < batch:
            step = _lg.cat([step, data.new_full((batch - n, *feature), padding_value)], 0)
        rows.append(step)
        start += n
    rows += [data.new_full((batch, *feature), padding_value)] * (steps_out - steps)
    padded = _lg.stack(rows, 0) if rows else data.new_zeros((0, batch, *feature))
    lengths = np.array([(batch_sizes > b).sum() for b in range(batch)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.numpy()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _lg.tensor(lengths, dtype=_lg.int64)


def pad_sequence(
    sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"
) -> Tensor:
    """Stack sequences ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with
    ``batch_first``), padded on ``padding_side`` with ``padding_value``."""
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    sequences = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            fill = s.new_full((missing, *s.shape[1:]), padding_value)
            s = _lg.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return _lg.stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[: int(n)] for seq, n in zip(padded_sequences, _lengths_array(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The sequences of a packed batch, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
