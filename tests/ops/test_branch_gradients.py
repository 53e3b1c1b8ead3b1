"""Gradients at the places PyTorch's backward kernels branch: huber and smooth L1 at their
boundaries, infinities and NaN differences (NaN, in neither tail), and nextafter where its
operands are equal (0: the result is then ``other``)."""

import itertools

import numpy as np
import pytest

import leafgrad as lg

VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.0, np.inf, -np.inf, np.nan]
X, Y = np.array(list(itertools.product(VALUES, VALUES))).T


def _grads(m, name):
    x = m.tensor(X, dtype=m.float64, requires_grad=True)
    y = m.tensor(Y, dtype=m.float64, requires_grad=True)
    if name == "nextafter":
        out = m.nextafter(x, y)
    else:
        out = getattr(m.nn.functional, name)(x, y, reduction="none")
    gx, gy = m.autograd.grad(out.sum(), (x, y))
    return gx.numpy(), gy.numpy()


def test_nan_differences_have_nan_gradients_and_equal_nextafter_operands_none():
    gx, gy = _grads(lg, "huber_loss")
    nan_difference = np.isnan(X - Y)
    assert np.isnan(gx[nan_difference]).all() and np.isnan(gy[nan_difference]).all()
    gx, gy = _grads(lg, "nextafter")
    assert (gx[X == Y] == 0).all() and (gx[(X != Y)] == 1).all() and not gy.any()


@pytest.mark.parametrize("name", ["huber_loss", "smooth_l1_loss", "nextafter"])
def test_gradients_match_torch_everywhere(name):
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(_grads(lg, name), _grads(torch, name)):
        np.testing.assert_array_equal(ours, theirs)
