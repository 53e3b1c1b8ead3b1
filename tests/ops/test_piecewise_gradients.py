"""Piecewise ops pass a gradient by selection, not by a 0/1 product: an inf or NaN gradient
arriving where the op is flat gives 0 there, as in PyTorch (clamp, maximum, minimum...)."""

from __future__ import annotations

import math

import pytest

import leafgrad as lg

CASES = {
    "clamp(min)": lambda m, x: x.clamp(min=1.0),
    "clamp(min, max)": lambda m, x: x.clamp(1.0, 2.0),
    "clamp_max": lambda m, x: x.clamp_max(0.0),
    "clamp_min": lambda m, x: m.clamp_min(x, 1.0),
    "clamp(tensor min)": lambda m, x: x.clamp(min=m.tensor([1.0, 1.0])),
    "clamp(tensor min, max)": lambda m, x: x.clamp(m.tensor([1.0, 1.0]), m.tensor([2.0, 2.0])),
    "clamp_min(tensor)": lambda m, x: m.clamp_min(x, m.tensor([1.0, 1.0])),
    "clamp_max(tensor)": lambda m, x: m.clamp_max(x, m.tensor([0.0, 0.0])),
    "maximum": lambda m, x: m.maximum(x, m.tensor([1.0, 1.0])),
    "minimum": lambda m, x: m.minimum(x, m.tensor([0.0, 0.0])),
    "relu": lambda m, x: m.relu(x - 1),
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x + 2),
    "where": lambda m, x: m.where(x > 1, x, m.zeros(2)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_non_finite_gradient_where_the_op_is_flat_gives_zero(case):
    x = lg.tensor([0.5, 0.25], requires_grad=True)
    CASES[case](lg, x).backward(lg.tensor([math.inf, math.nan]))
    assert x.grad.tolist() == [0.0, 0.0]


def test_finite_gradients_ties_and_nans_unchanged():
    x = lg.tensor([1.0, 2.0, math.nan, 0.0], requires_grad=True)
    y = lg.tensor([1.0, 1.0, 3.0, math.nan], requires_grad=True)
    lg.maximum(x, y).backward(lg.tensor([2.0, 3.0, 5.0, 7.0]))
    assert x.grad.tolist() == [1.0, 3.0, 5.0, 7.0]  # half at a tie; both sides at a NaN
    assert y.grad.tolist() == [1.0, 0.0, 5.0, 7.0]
    z = lg.tensor([0.5, 1.5, 2.5], requires_grad=True)
    (g,) = lg.autograd.grad(z.clamp(1.0, 2.0).pow(2).sum(), z, create_graph=True)
    (h,) = lg.autograd.grad(g.sum(), z)
    assert g.tolist() == [0.0, 3.0, 0.0] and h.tolist() == [0.0, 2.0, 0.0]


@pytest.mark.parametrize("case", list(CASES))
def test_as_pytorch(case):
    torch = pytest.importorskip("torch")
    grads = []
    for m in (lg, torch):
        x = m.tensor([0.5, 0.25, 1.5, 2.5], requires_grad=True)
        f = CASES[case]
        y = f(m, x[:2])
        y.backward(m.tensor([math.inf, math.nan]))
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]
