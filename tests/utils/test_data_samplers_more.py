"""WeightedRandomSampler, DistributedSampler, ChainDataset, StackDataset and get_worker_info,
behaving as PyTorch's (random orders come from each library's own generator)."""

import numpy as np
import pytest

import leafgrad


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    """The library under test: leafgrad, then PyTorch as the oracle."""
    return leafgrad if request.param == "leafgrad" else pytest.importorskip("torch")


class _Count:
    """An iterable dataset of ``range(n)`` (subclassing the library's IterableDataset)."""

    @staticmethod
    def of(torch, n):
        class Count(torch.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(n))

            def __len__(self):
                return n

        return Count()


def test_weighted_random_sampler_follows_the_weights(torch):
    torch.manual_seed(0)
    sampler = torch.utils.data.WeightedRandomSampler([0.1, 0.9, 0.0], 4000)
    drawn = np.array(list(sampler))
    assert len(sampler) == 4000 and set(drawn) <= {0, 1}
    assert abs((drawn == 1).mean() - 0.9) < 0.03
    assert sampler.weights.dtype == torch.float64


def test_weighted_random_sampler_without_replacement_draws_distinct_indices(torch):
    torch.manual_seed(1)
    drawn = list(torch.utils.data.WeightedRandomSampler([1.0, 2.0, 3.0, 4.0], 4, False))
    assert sorted(drawn) == [0, 1, 2, 3]
    # once the weighted indices are used up, zero-weight ones follow
    assert list(torch.utils.data.WeightedRandomSampler([1.0, 0.0], 2, replacement=False)) == [0, 1]
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist"):
        list(torch.utils.data.WeightedRandomSampler([1.0, 0.0], 3, replacement=False))
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        list(torch.utils.data.WeightedRandomSampler([0.0, 0.0], 1))


def test_weighted_random_sampler_checks_its_arguments(torch):
    data = torch.utils.data
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        data.WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="replacement should be a boolean"):
        data.WeightedRandomSampler([1.0], 1, replacement=1)
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        data.WeightedRandomSampler([[1.0]], 1)


@pytest.mark.parametrize("n, replicas, drop_last", [(7, 3, False), (7, 3, True), (2, 5, False),
                                                    (9, 3, False)])  # fmt: skip
def test_distributed_sampler_shares_indices_as_pytorch(torch, n, replicas, drop_last):
    shares = [list(torch.utils.data.DistributedSampler(range(n), replicas, rank, shuffle=False,
                                                       drop_last=drop_last))
              for rank in range(replicas)]  # fmt: skip
    expected = {
        (7, 3, False): [[0, 3, 6], [1, 4, 0], [2, 5, 1]],
        (7, 3, True): [[0, 3], [1, 4], [2, 5]],
        (2, 5, False): [[0], [1], [0], [1], [0]],
        (9, 3, False): [[0, 3, 6], [1, 4, 7], [2, 5, 8]],
    }[(n, replicas, drop_last)]
    assert shares == expected


def test_distributed_sampler_shuffles_by_epoch_and_covers_the_dataset(torch):
    samplers = [torch.utils.data.DistributedSampler(range(10), 2, r, seed=3) for r in (0, 1)]
    first = [list(s) for s in samplers]
    assert sorted(first[0] + first[1]) == list(range(10))
    assert [list(s) for s in samplers] == first  # same epoch, same order
    for s in samplers:
        s.set_epoch(1)
    second = [list(s) for s in samplers]
    assert sorted(second[0] + second[1]) == list(range(10)) and second != first


def test_distributed_sampler_checks_rank(torch):
    with pytest.raises(ValueError, match="Invalid rank 2"):
        torch.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2)


def test_chain_dataset_chains_iterable_datasets(torch):
    chained = torch.utils.data.ChainDataset([_Count.of(torch, 2), _Count.of(torch, 3)])
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(torch.utils.data.ChainDataset([[1, 2]]))


def test_stack_dataset_pairs_samples_as_tuples_or_dicts(torch):
    data = torch.utils.data
    assert data.StackDataset([1, 2], [3, 4])[1] == (2, 4)
    named = data.StackDataset(a=[1, 2], b=[3, 4])
    assert named[0] == {"a": 1, "b": 3} and len(named) == 2
    assert named.__getitems__([0, 1]) == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        data.StackDataset([1, 2], [3])
    with pytest.raises(ValueError, match="both types are given"):
        data.StackDataset([1], b=[2])
    with pytest.raises(ValueError, match="At least one dataset"):
        data.StackDataset()


def test_get_worker_info_is_none_in_the_main_process(torch):
    assert torch.utils.data.get_worker_info() is None
