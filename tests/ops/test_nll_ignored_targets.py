"""nll_loss's gradient at ignored targets is zero, as PyTorch's kernel skips them: also when
every target is ignored (a mean over no weight: the loss NaN, its gradient still zero) and
when the incoming gradient there is not finite."""

import math

import numpy as np
import pytest

import leafgrad as lg
import leafgrad.nn.functional as F


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_every_target_ignored_gives_a_nan_loss_and_a_zero_gradient():
    for target, shape in (([-100, -100, -100], (3, 4)), ([[-100, -100]], (1, 4, 2))):
        x = lg.zeros(shape, requires_grad=True)
        loss = F.cross_entropy(x, lg.tensor(target))
        assert math.isnan(loss.item())
        loss.backward()
        assert x.grad.abs().sum().item() == 0.0
    x = lg.zeros(3, 4, dtype=lg.float64, requires_grad=True)
    (g,) = lg.autograd.grad(F.nll_loss(x, lg.tensor([-100] * 3)), x, create_graph=True)
    assert g.abs().sum().item() == 0.0


def test_a_non_finite_gradient_at_an_ignored_target_is_not_spread():
    x = lg.zeros(3, 4, requires_grad=True)
    loss = F.cross_entropy(x, lg.tensor([1, 5, 2]), ignore_index=5, reduction="none")
    loss.backward(lg.tensor([1.0, float("nan"), 2.0]))
    assert x.grad[1].tolist() == [0.0] * 4
    assert x.grad[0].tolist() == [0.25, -0.75, 0.25, 0.25]


def test_zero_weights_of_counted_targets_still_give_nan(torch):
    for m in (lg, torch):
        x = m.zeros(3, 4, requires_grad=True)
        m.nn.functional.nll_loss(x, m.tensor([1, 2, 0]), weight=m.zeros(4)).backward()
        assert x.grad.isnan().sum().item() == 3


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_ignored_targets_match_torch(torch, reduction, smoothing):
    grads = []
    for m in (lg, torch):
        x = m.zeros(3, 4, requires_grad=True)
        for target in ([-100] * 3, [1, -100, 3]):
            loss = m.nn.functional.cross_entropy(
                x, m.tensor(target), reduction=reduction, label_smoothing=smoothing
            )
            loss.sum().backward()
        grads.append(x.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
