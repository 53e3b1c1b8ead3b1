"""masked_select against PyTorch: one node (MaskedSelectBackward0, saving self and mask),
values, and first and second derivatives (float64), the mask broadcast either way."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

X = np.random.default_rng(15).uniform(-1, 1, (3, 4))


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.masked_select(x * x, x > 0),
        lambda m, x: (x * x).masked_select(m.tensor([True, False, True, True])),
        lambda m, x: m.masked_select(x[:, :1] * x[:, :1], m.tensor([[True, False, True]])),
    ],
)
def test_matches_pytorch(fn):
    results = []
    for lib in (lg, torch):
        x = lib.tensor(X, requires_grad=True)
        y = fn(lib, x)
        (first,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad((first * first).sum(), x)
        results.append((y, first, second))
    ours, theirs = results
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == "MaskedSelectBackward0"
    for a, b in zip(ours, theirs):
        assert_close(a, b.detach().numpy(), "direct")


def test_saves_self_and_mask_and_watches_the_mask():
    x, mask = lg.tensor(X, requires_grad=True), lg.tensor(X > 0)
    y = x.masked_select(mask)
    assert y.grad_fn._saved_mask.tolist() == mask.tolist()
    mask[0, 0] = not bool(mask[0, 0])
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_refuses_a_mask_that_is_not_bool_as_pytorch():
    with pytest.raises(RuntimeError):
        torch.masked_select(torch.ones(3), torch.tensor([1, 0, 1], dtype=torch.uint8))
    with pytest.raises(RuntimeError):
        lg.masked_select(lg.ones(3), lg.tensor([1, 0, 1], dtype=lg.uint8))
