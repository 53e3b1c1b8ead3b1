"""embedding_bag / EmbeddingBag and fractional max pooling against PyTorch (the random
windows fixed through ``_random_samples``)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

from ._compare import copy_weights

RNG = np.random.default_rng(5)
WEIGHT = RNG.standard_normal((6, 3))
INDICES = np.array([1, 2, 4, 5, 4, 3, 2, 0])
OFFSETS = np.array([0, 2, 2, 5])  # the second bag is empty


@pytest.fixture
def pt():
    """PyTorch itself, the oracle for numerical comparisons."""
    return pytest.importorskip("torch")


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_matches_pytorch(pt, mode, padding_idx):
    def bags(m, w):
        return m.nn.functional.embedding_bag(
            m.tensor(INDICES), w, m.tensor(OFFSETS), mode=mode, padding_idx=padding_idx
        )

    def fixed(m, w):
        return m.nn.functional.embedding_bag(
            m.tensor(INDICES.reshape(2, 4)), w, mode=mode, padding_idx=padding_idx)  # fmt: skip

    def last_offset(m, w):
        return m.nn.functional.embedding_bag(
            m.tensor(INDICES), w, m.tensor(np.array([0, 2, 2, 5, 7])), mode=mode,
            padding_idx=padding_idx, include_last_offset=True)  # fmt: skip

    for fn in (bags, fixed, last_offset):
        compare(fn, [WEIGHT], torch=pt)


def test_embedding_bag_per_sample_weights_match_pytorch(pt):
    def fn(m, w, p):
        return m.nn.functional.embedding_bag(
            m.tensor(INDICES), w, m.tensor(OFFSETS), mode="sum", per_sample_weights=p)  # fmt: skip

    # PyTorch's per-sample-weights backward is first order only
    compare(fn, [WEIGHT, RNG.standard_normal(8)], torch=pt, second=False)


def test_embedding_bag_module_matches_pytorch(pt):
    ours = lg.nn.EmbeddingBag(6, 3, mode="max", padding_idx=1).double()
    theirs = pt.nn.EmbeddingBag(6, 3, mode="max", padding_idx=1).double()
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    out = ours(lg.tensor(INDICES), lg.tensor(OFFSETS))
    ref = theirs(pt.tensor(INDICES), pt.tensor(OFFSETS))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-15)


def test_embedding_bag_errors(torch):
    F, w = torch.nn.functional, torch.zeros(6, 3)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(torch.tensor([1, 2]), w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(torch.tensor([[1, 2]]), w, torch.tensor([0]))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]),
                        per_sample_weights=torch.ones(2))  # fmt: skip
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([1]))


POOLS = [(2, (2, 3, 9, 8), 2, (4, 5)), (2, (2, 3, 9, 8), (3, 2), (3, 7)),
         (3, (2, 2, 7, 6, 8), 2, (3, 4, 5)), (2, (3, 9, 8), 3, (6, 1))]  # fmt: skip


@pytest.mark.parametrize("nd, shape, kernel, out", POOLS)
def test_fractional_max_pool_matches_pytorch(pt, nd, shape, kernel, out):
    batch = shape[0] if len(shape) == nd + 2 else 1
    samples = RNG.random((batch, shape[-nd - 1], nd))

    def fn(m, x):
        pool = getattr(m.nn.functional, f"fractional_max_pool{nd}d")
        return pool(x, kernel, output_size=out, _random_samples=m.tensor(samples))

    compare(fn, [RNG.standard_normal(shape)], torch=pt)
    # float32: window positions are computed in the input's precision, indices exactly equal
    x, s = RNG.standard_normal(shape).astype(np.float32), samples.astype(np.float32)
    name = f"fractional_max_pool{nd}d"
    ours, theirs = (
        getattr(m.nn.functional, name)(
            m.tensor(x), kernel, output_size=out, _random_samples=m.tensor(s), return_indices=True
        )
        for m in (lg, pt)
    )
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


def test_fractional_max_pool_module_with_ratio_and_errors(torch):
    lg.manual_seed(0)
    out = torch.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5))(torch.randn(2, 3, 8, 8))
    assert tuple(out.shape) == (2, 3, 4, 4)
    with pytest.raises(ValueError, match="requires specifying either an output size"):
        torch.nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        torch.nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5)
    with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
        torch.nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(RuntimeError, match="equals to input channel size"):
        torch.nn.functional.fractional_max_pool2d(
            torch.randn(1, 1, 4, 4), 2, output_size=2, _random_samples=torch.rand(1, 2, 2)
        )
