"""Fold/Unfold, LocalResponseNorm, CrossMapLRN2d, ChannelShuffle and the multilabel-margin and
triplet-with-distance losses against PyTorch."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

RNG = np.random.default_rng(11)
LABELS = np.array([[3, 0, -1, 1], [1, 2, 3, -1], [2, 2, -1, 0]])


@pytest.fixture
def pt():
    """PyTorch itself, the oracle for numerical comparisons."""
    return pytest.importorskip("torch")


MODULES = [
    ("Fold", ((5, 5), 2), (2, 12, 16)),
    ("Unfold", ((2, 3),), (2, 3, 5, 6)),
    ("LocalResponseNorm", (3, 0.2, 0.6, 1.5), (2, 5, 3, 3)),
    ("ChannelShuffle", (3,), (2, 6, 2, 2)),
]


@pytest.mark.parametrize("name, args, shape", MODULES)
def test_module_matches_pytorch_to_second_order(pt, name, args, shape):
    compare(lambda m, x: getattr(m.nn, name)(*args)(x), [RNG.standard_normal(shape)], torch=pt)


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8])
def test_cross_map_lrn2d_values_match_pytorch_and_gradients_are_exact(pt, size):
    # PyTorch's hand-written legacy backward assumes a centred window its forward does not
    # use (and fails for even sizes), so only values are compared; ours is the true gradient.
    compare(lambda m, x: m.nn.CrossMapLRN2d(size, 0.5, 0.75, 2.0)(x),
            [RNG.standard_normal((2, 7, 3, 3))], torch=pt, grads=False)  # fmt: skip
    x = lg.tensor(RNG.standard_normal((1, 5, 2, 2)), requires_grad=True)
    layer = lg.nn.CrossMapLRN2d(size, 0.5, 0.75, 2.0)
    assert lg.autograd.gradcheck(layer, (x,)) and lg.autograd.gradgradcheck(layer, (x,))


def test_cross_map_lrn2d_wants_4d_input(torch):
    with pytest.raises(ValueError, match="Expected input to be 4D"):
        torch.nn.CrossMapLRN2d(3)(torch.zeros(2, 3, 4))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_matches_pytorch(pt, reduction):
    # PyTorch's backward is first order only
    def batched(m, x):
        return m.nn.MultiLabelMarginLoss(reduction=reduction)(x, m.tensor(LABELS))

    def single(m, x):
        return m.nn.functional.multilabel_margin_loss(x, m.tensor(LABELS[1]), reduction=reduction)

    compare(batched, [RNG.standard_normal((3, 4))], torch=pt, second=False)
    compare(single, [RNG.standard_normal(4)], torch=pt, second=False)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss_matches_pytorch(pt, reduction, swap):
    def default(m, a, p, n):
        return m.nn.TripletMarginWithDistanceLoss(swap=swap, reduction=reduction)(a, p, n)

    def cosine(m, a, p, n):
        return m.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, reduction=reduction, swap=swap, margin=0.5,
            distance_function=lambda u, v: 1 - m.nn.functional.cosine_similarity(u, v),
        )  # fmt: skip

    arrays = [RNG.standard_normal((3, 4)) for _ in range(3)]
    compare(default, arrays, torch=pt)
    compare(cosine, arrays, torch=pt)


def test_triplet_margin_with_distance_loss_wants_a_positive_margin(torch):
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        torch.nn.TripletMarginWithDistanceLoss(margin=0.0)


def test_reprs_match_pytorch(torch, pt):
    ours = [torch.nn.Fold((4, 5), 2), torch.nn.Unfold(2, padding=1), torch.nn.LocalResponseNorm(2),
            torch.nn.CrossMapLRN2d(3), torch.nn.ChannelShuffle(2),
            torch.nn.TripletMarginWithDistanceLoss()]  # fmt: skip
    theirs = [pt.nn.Fold((4, 5), 2), pt.nn.Unfold(2, padding=1), pt.nn.LocalResponseNorm(2),
              pt.nn.CrossMapLRN2d(3), pt.nn.ChannelShuffle(2),
              pt.nn.TripletMarginWithDistanceLoss()]  # fmt: skip
    assert [repr(m) for m in ours] == [repr(m) for m in theirs]
