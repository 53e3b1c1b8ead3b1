"""ctc_loss / CTCLoss against PyTorch: values, and gradients both with respect to the logits
that feed ``log_softmax`` and with respect to ``log_probs`` itself (where PyTorch's kernel
returns the logits' gradient, and leafgrad follows it)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

RNG = np.random.default_rng(9)
STEPS, BATCH, CLASSES = 7, 3, 5
LOGITS = RNG.standard_normal((STEPS, BATCH, CLASSES))
PADDED = np.array([[1, 2, 2], [3, 0, 0], [4, 1, 0]])
TARGET_LENGTHS = np.array([3, 1, 2])
INPUT_LENGTHS = np.array([7, 5, 6])
CONCATENATED = np.concatenate([PADDED[i, : TARGET_LENGTHS[i]] for i in range(BATCH)])


@pytest.fixture
def pt():
    """PyTorch itself, the oracle for numerical comparisons."""
    return pytest.importorskip("torch")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("targets", [PADDED, CONCATENATED], ids=["padded", "concatenated"])
def test_ctc_loss_matches_pytorch(pt, reduction, targets):
    def fn(m, x):
        return m.nn.functional.ctc_loss(
            m.log_softmax(x, 2), m.tensor(targets), m.tensor(INPUT_LENGTHS),
            m.tensor(TARGET_LENGTHS), reduction=reduction,
        )  # fmt: skip

    # PyTorch's CTC backward has no derivative of its own: first order only
    compare(fn, [LOGITS], torch=pt, second=False)


def test_ctc_loss_unbatched_with_another_blank_matches_pytorch(pt):
    def fn(m, x):
        return m.nn.CTCLoss(blank=4)(m.log_softmax(x, 1), m.tensor(PADDED[0]), m.tensor(7),
                                     m.tensor(3))  # fmt: skip

    compare(fn, [LOGITS[:, 0]], torch=pt, second=False)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_without_an_alignment_is_infinite_or_zero(pt, zero_infinity):
    short = np.array([2, 5, 6])  # 2 frames cannot hold the 3 labels "1 2 2"

    def fn(m, x):
        return m.nn.functional.ctc_loss(
            m.log_softmax(x, 2), m.tensor(PADDED), m.tensor(short), m.tensor(TARGET_LENGTHS),
            reduction="none", zero_infinity=zero_infinity,
        )  # fmt: skip

    compare(fn, [LOGITS], torch=pt, grads=zero_infinity, second=False)
    assert float(fn(lg, lg.tensor(LOGITS))[0]) == (0.0 if zero_infinity else float("inf"))


def test_ctc_loss_checks_input_lengths(torch):
    lp = torch.zeros(3, 1, 4)
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 3"):
        torch.nn.functional.ctc_loss(lp, torch.tensor([[1]]), torch.tensor([5]), torch.tensor([1]))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_gradient_wrt_log_probs_is_pytorchs(pt, reduction):
    log_probs = pt.log_softmax(pt.tensor(LOGITS), 2).numpy()

    def fn(m, lp):
        return m.nn.functional.ctc_loss(
            lp, m.tensor(PADDED), m.tensor(INPUT_LENGTHS), m.tensor(TARGET_LENGTHS),
            reduction=reduction,
        )  # fmt: skip

    compare(fn, [log_probs], torch=pt, second=False)
