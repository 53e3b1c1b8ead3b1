"""linear_cross_entropy / LinearCrossEntropyLoss against PyTorch (the reference path; the
chunked options change memory use, not values)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

from ._compare import assert_close, copy_weights

RNG = np.random.default_rng(19)
X, W, B = RNG.standard_normal((5, 4)), RNG.standard_normal((3, 4)), RNG.standard_normal(3)
TARGET = np.array([0, 2, 1, -100, 2])
K_TARGET = RNG.integers(0, 3, (5, 2))


@pytest.fixture
def pt():
    """PyTorch itself, the oracle for numerical comparisons."""
    return pytest.importorskip("torch")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_linear_cross_entropy_matches_pytorch(pt, reduction):
    def with_bias(m, x, w, b):
        return m.nn.functional.linear_cross_entropy(
            x, w, m.tensor(TARGET), linear_bias=b, reduction=reduction)  # fmt: skip

    def smoothed(m, x, w):
        return m.nn.functional.linear_cross_entropy(
            x, w, m.tensor(np.abs(TARGET) % 3), ignore_index=2, reduction=reduction,
            label_smoothing=0.1)  # fmt: skip

    compare(with_bias, [X, W, B], torch=pt)
    compare(smoothed, [X, W], torch=pt)


def test_linear_cross_entropy_k_dimensional_and_probabilities_match_pytorch(pt):
    probs = RNG.random((5, 3))
    probs /= probs.sum(1, keepdims=True)
    compare(lambda m, x, w: m.nn.functional.linear_cross_entropy(x, w, m.tensor(K_TARGET)),
            [X, RNG.standard_normal((3, 2, 4))], torch=pt)  # fmt: skip
    compare(lambda m, x, w, p: m.nn.functional.linear_cross_entropy(x, w, p), [X, W, probs],
            torch=pt)  # fmt: skip


def test_linear_cross_entropy_loss_module_and_options_match_pytorch(pt):
    ours = lg.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True).double()
    theirs = pt.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True).double()
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    assert_close(ours(lg.tensor(X), lg.tensor(K_TARGET)), theirs(pt.tensor(X), pt.tensor(K_TARGET)))
    out = lg.nn.functional.linear_cross_entropy(
        lg.tensor(X), lg.tensor(W), lg.tensor(TARGET), options=lg.nn.LinearCrossEntropyOptions()
    )
    ref = pt.nn.functional.linear_cross_entropy(
        pt.tensor(X), pt.tensor(W), pt.tensor(TARGET), options=pt.nn.LinearCrossEntropyOptions()
    )
    assert_close(out, ref, "iterative")  # PyTorch's chunked kernel sums in another order


def test_linear_cross_entropy_errors(torch):
    F = torch.nn.functional
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2"):
        F.linear_cross_entropy(torch.zeros(1, 2, 3), torch.zeros(2, 3), torch.zeros(1))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified"):
        F.linear_cross_entropy(torch.zeros(2, 3), torch.zeros(4, 3), torch.zeros(2, 4),
                               ignore_index=1)  # fmt: skip
    with pytest.raises(ValueError, match="invalid acc_policy"):
        torch.nn.LinearCrossEntropyOptions(acc_policy="fast")
    with pytest.raises(ValueError, match="batch_chunk_size must be positive"):
        torch.nn.LinearCrossEntropyOptions(batch_chunk_size=0)
