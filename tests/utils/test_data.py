"""torch.utils.data: datasets, samplers, DataLoader and collation, against PyTorch."""

from collections import namedtuple

import numpy as np
import pytest

import leafgrad
from leafgrad.utils import data


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    return leafgrad if request.param == "leafgrad" else pytest.importorskip("torch")


def _plain(x):
    """A batch as plain Python, with each tensor's dtype, for comparing the two libraries."""
    if hasattr(x, "tolist") and hasattr(x, "dtype"):
        return ("tensor", str(x.dtype).replace("torch.", ""), tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_plain(v) for v in x])
    return x


def _both(fn):
    torch = pytest.importorskip("torch")
    return _plain(fn(leafgrad)), _plain(fn(torch))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: list(m.utils.data.DataLoader(
            m.utils.data.TensorDataset(m.arange(10.0), m.arange(10)), batch_size=4)),
        lambda m: list(m.utils.data.DataLoader(
            m.utils.data.TensorDataset(m.arange(10.0)), batch_size=4, drop_last=True)),
        lambda m: list(m.utils.data.DataLoader(m.arange(6.0).reshape(3, 2), batch_size=2)),
        lambda m: list(m.utils.data.DataLoader(m.arange(3.0), batch_size=None)),
        lambda m: len(m.utils.data.DataLoader(m.utils.data.TensorDataset(m.ones(10)),
                                              batch_size=3)),
        lambda m: m.utils.data.default_collate(
            [{"a": 1, "b": m.ones(2)}, {"a": 2, "b": m.zeros(2)}]),
        lambda m: m.utils.data.default_collate([np.ones(2), np.zeros(2)]),
        lambda m: m.utils.data.default_collate([(1.5, 2, True), (2.5, 3, False)]),
        lambda m: m.utils.data.default_collate([np.float32(1), np.float32(2)]),
        lambda m: m.utils.data.default_collate([["a", 1], ["b", 2]]),
        lambda m: m.utils.data.default_convert([np.arange(3), {"x": np.ones(1)}, 5]),
        lambda m: m.utils.data.ConcatDataset([m.utils.data.TensorDataset(m.arange(3.0)),
                                              m.utils.data.TensorDataset(m.arange(3.0, 5.0))])[-1],
        lambda m: len(m.utils.data.ConcatDataset([m.arange(3), m.arange(4)])),
        lambda m: m.utils.data.Subset(m.utils.data.TensorDataset(m.arange(5)), [4, 0])[1],
    ],
)  # fmt: skip
def test_batches_and_collation_match_pytorch(make):
    ours, theirs = _both(make)
    assert ours == theirs


def _shuffled_batches(m, make_dataset, batch_size=4):
    m.manual_seed(0)
    return list(m.utils.data.DataLoader(make_dataset(m), batch_size, shuffle=True))


@pytest.mark.parametrize(
    "make_dataset",
    [
        # A TensorDataset of plain tensors (one NumPy index per tensor), of several dtypes
        # and dims, and a random_split Subset of one.
        lambda m: m.utils.data.TensorDataset(
            m.arange(30.0).reshape(10, 3), m.arange(10), m.arange(10.0) > 4),
        lambda m: m.utils.data.TensorDataset(m.arange(20.0).reshape(10, 2, 1).double()),
        lambda m: m.utils.data.random_split(
            m.utils.data.TensorDataset(m.arange(20.0).reshape(10, 2)), [6, 4],
            generator=m.Generator().manual_seed(1))[0],
        # Tensors that require grad: one sample at a time, stacked (StackBackward0).
        lambda m: m.utils.data.TensorDataset(m.arange(10.0).requires_grad_()),
    ],
)  # fmt: skip
def test_shuffled_batches_of_tensor_datasets_match_pytorch(make_dataset):
    torch = pytest.importorskip("torch")
    ours = _shuffled_batches(leafgrad, make_dataset)
    theirs = _shuffled_batches(torch, make_dataset)
    assert _plain(ours) == _plain(theirs)
    for batch_ours, batch_theirs in zip(ours, theirs):
        for a, b in zip(batch_ours, batch_theirs):
            assert a.is_contiguous() and a.requires_grad == b.requires_grad
            assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__


def test_tensor_dataset_batches_are_the_samples_stacked():
    """The batch-at-a-time fetch gives what collating the samples one by one gives."""
    x = leafgrad.arange(24.0).reshape(8, 3)
    y = leafgrad.arange(8)
    dataset = data.TensorDataset(x, y)
    batches = list(data.DataLoader(dataset, batch_size=3, sampler=[5, -1, 0, 2, 7]))
    for batch, rows in zip(batches, ([5, -1, 0], [2, 7])):
        expected = data.default_collate([dataset[i] for i in rows])
        assert type(batch) is list and len(batch) == 2
        for got, want in zip(batch, expected):
            assert got.dtype == want.dtype and got.tolist() == want.tolist()
            assert got.is_contiguous() and got._base is None


def test_a_dataset_with_getitems_is_fetched_a_batch_at_a_time(torch):
    """PyTorch's fetch: ``__getitems__(indices)`` where the dataset has one."""

    calls = []

    class Batched(torch.utils.data.Dataset):
        def __getitem__(self, i):
            raise AssertionError("fetched one sample at a time")

        def __getitems__(self, indices):
            calls.append(list(indices))
            return [torch.tensor([float(i)]) for i in indices]

        def __len__(self):
            return 5

    batches = list(torch.utils.data.DataLoader(Batched(), batch_size=2))
    assert [b.tolist() for b in batches] == [[[0.0], [1.0]], [[2.0], [3.0]], [[4.0]]]
    assert calls == [[0, 1], [2, 3], [4]]


def test_collating_namedtuples_keeps_their_type(torch):
    Point = namedtuple("Point", "x y")
    batch = torch.utils.data.default_collate([Point(1.0, 2), Point(3.0, 4)])
    assert type(batch) is Point and batch.x.tolist() == [1.0, 3.0] and batch.y.tolist() == [2, 4]


def test_shuffled_epochs_are_permutations_repeatable_from_a_seeded_generator():
    ds = data.TensorDataset(leafgrad.arange(20))

    def epochs(seed):
        loader = data.DataLoader(ds, batch_size=6, shuffle=True,
                                 generator=leafgrad.Generator().manual_seed(seed))  # fmt: skip
        return [[int(v) for batch in loader for v in batch[0]] for _ in range(2)]

    first, second = epochs(0)
    assert sorted(first) == sorted(second) == list(range(20))
    assert first != second  # a fresh order each epoch
    assert epochs(0) == [first, second]
    assert epochs(1) != [first, second]


def test_random_split_partitions_by_lengths_or_fractions(torch):
    ds = torch.utils.data.TensorDataset(torch.arange(10))
    parts = torch.utils.data.random_split(ds, [3, 7], generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    seen = sorted(int(p[i][0]) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    fractions = torch.utils.data.random_split(ds, [0.25, 0.75])
    assert [len(p) for p in fractions] == [3, 7]  # the remainder goes round-robin
    with pytest.raises(ValueError):
        torch.utils.data.random_split(ds, [3, 3])


def test_an_iterable_dataset_is_batched_as_it_streams(torch):
    class Stream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(5))

    assert [b.tolist() for b in torch.utils.data.DataLoader(Stream(), batch_size=2)] == [
        [0, 1], [2, 3], [4],
    ]  # fmt: skip


def test_bad_arguments_are_refused_with_a_clear_message():
    ds = data.TensorDataset(leafgrad.ones(4))
    with pytest.raises(ValueError, match="num_workers=2"):
        data.DataLoader(ds, num_workers=2)
    with pytest.raises(ValueError, match="mutually exclusive"):
        data.DataLoader(ds, sampler=data.SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_size"):
        data.BatchSampler(data.SequentialSampler(ds), 0, False)
    with pytest.raises(AssertionError, match="Size mismatch"):
        data.TensorDataset(leafgrad.ones(3), leafgrad.ones(4))


def test_a_training_loop_over_a_dataloader_runs(torch):
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 64).reshape(-1, 1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x**2), batch_size=16,
                                         shuffle=True)  # fmt: skip
    model = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(30):
        for xb, yb in loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] / 2
