"""Tensor.unfold against PyTorch: recorded as its view op (UnfoldBackward0) whose gradient is
unfold_backward (UnfoldBackwardBackward0) and back, to the third derivative; forward mode;
and still a view (base, storage, version counter)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._graphs import assert_matches, third_order


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


CASES = {
    "overlapping": (lambda x: x.unfold(1, 3, 1), (2, 5)),
    "gaps": (lambda x: x.unfold(0, 2, 3), (7, 2)),
    "negative-dim": (lambda x: x.unfold(-1, 2, 2), (2, 3, 4)),
    "of-a-transpose": (lambda x: x.t().unfold(0, 2, 1), (3, 4)),
    "0d": (lambda x: x.sum().unfold(0, 1, 1), (3,)),
    "twice": (lambda x: x.unfold(1, 2, 1).unfold(0, 2, 1), (3, 4)),
}


def _derivatives(m, fn, shape, dtype):
    values = np.random.default_rng(2).uniform(-2, 2, shape)
    return third_order(m, lambda m, x: fn(x), values, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_unfold_matches_pytorch_to_the_third_derivative(torch, name, dtype):
    fn, shape = CASES[name]
    ours, theirs = (_derivatives(m, fn, shape, dtype) for m in (lg, torch))
    assert_matches(ours, theirs, rtol=1e-5 if dtype == "float32" else 1e-13)


def test_unfold_and_its_gradient_alternate(torch):
    for m in (lg, torch):
        x = m.ones(4, 3, dtype=m.float64, requires_grad=True)
        y = x.unfold(0, 2, 1)
        (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
        assert y.grad_fn.name() == "UnfoldBackward0"
        assert g.grad_fn.name() == "UnfoldBackwardBackward0"


def test_unfold_forward_mode_matches_pytorch(torch):
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    found = []
    for m in (lg, torch):
        fwad = m.autograd.forward_ad
        with fwad.dual_level():
            out = fwad.unpack_dual(fwad.make_dual(m.tensor(x), m.tensor(t)).unfold(1, 2, 2))
        found.append(out.tangent.numpy())
    np.testing.assert_array_equal(found[0], found[1])


def test_unfold_is_still_a_view(torch):
    for m in (lg, torch):
        x = m.arange(12.0, dtype=m.float64).reshape(3, 4).requires_grad_() * 1
        y = x.unfold(1, 2, 1)
        assert y._base is x and y.stride() == (4, 1, 1)
        x.mul_(2)  # the base written in place: the view sees it and its history is rebuilt
        assert y._version == x._version == 1
        assert y[0, 1, 0].item() == 2.0
        assert y.grad_fn.name() == "AsStridedBackward0"
