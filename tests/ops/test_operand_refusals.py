"""Operands PyTorch refuses, refused alike: numbers where a tensor is required, and mixed
dtypes where a kernel does not promote (exception types as PyTorch's)."""

from __future__ import annotations

import importlib.util

import pytest

import leafgrad

LIBS = [leafgrad]
if importlib.util.find_spec("torch") is not None:
    import torch

    LIBS.append(torch)

REFUSED = {
    "eq(number, tensor)": (lambda m, t: m.eq(1.0, t), TypeError),
    "lt(number, tensor)": (lambda m, t: m.lt(1.0, t), TypeError),
    "ge(number, tensor)": (lambda m, t: m.ge(1, t), TypeError),
    "logical_and(tensor, number)": (lambda m, t: m.logical_and(t, 1), TypeError),
    "logical_or(tensor, bool)": (lambda m, t: m.logical_or(t, True), TypeError),
    "logical_xor(number, tensor)": (lambda m, t: m.logical_xor(1, t), TypeError),
    "Tensor.logical_and(number)": (lambda m, t: t.logical_and(1), TypeError),
    "hypot(tensor, number)": (lambda m, t: m.hypot(t, 2.0), TypeError),
    "hypot(number, tensor)": (lambda m, t: m.hypot(2.0, t), TypeError),
    "fmax(tensor, number)": (lambda m, t: m.fmax(t, 1.0), TypeError),
    "fmin(number, tensor)": (lambda m, t: m.fmin(1.0, t), TypeError),
    "fmod(number, tensor)": (lambda m, t: m.fmod(1.0, t), TypeError),
    "dist(tensor, number)": (lambda m, t: m.dist(t, 1.0), TypeError),
    "xlogy(number, number)": (lambda m, t: m.xlogy(1.0, 2.0), TypeError),
    "special.xlog1py(number, number)": (lambda m, t: m.special.xlog1py(1.0, 2.0), TypeError),
    "polygamma(float, tensor)": (lambda m, t: m.polygamma(1.5, t), TypeError),
    "polygamma(bool, tensor)": (lambda m, t: m.polygamma(True, t), TypeError),
    "polygamma(-1, tensor)": (lambda m, t: m.polygamma(-1, t), RuntimeError),
    "mvlgamma(tensor, float)": (lambda m, t: m.mvlgamma(t + 3, 1.5), TypeError),
    "mvlgamma(tensor, 0)": (lambda m, t: m.mvlgamma(t + 3, 0), RuntimeError),
    "isclose(float32, float64)": (lambda m, t: m.isclose(t, t.double()), RuntimeError),
    "isclose(float32, int64)": (lambda m, t: m.isclose(t, m.tensor([1, 2])), RuntimeError),
    "prelu(float32, float64 weight)": (
        lambda m, t: m.nn.functional.prelu(t, m.tensor([0.1], dtype=m.float64)),
        RuntimeError,
    ),
    "cross(float32, float64)": (
        lambda m, t: m.cross(m.ones(3), m.ones(3, dtype=m.float64), dim=0),
        RuntimeError,
    ),
    "linalg.cross(float32, float64)": (
        lambda m, t: m.linalg.cross(m.ones(3), m.ones(3, dtype=m.float64)),
        RuntimeError,
    ),
    "cdist(float32, float64)": (
        lambda m, t: m.cdist(t[None, None], t.double()[None, None]),
        RuntimeError,
    ),
    "binary_cross_entropy(float32, float64 target)": (
        lambda m, t: m.nn.functional.binary_cross_entropy(t / 3, t.double() / 3),
        RuntimeError,
    ),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_as_pytorch_refuses(lib, case):
    call, error = REFUSED[case]
    with pytest.raises(error):
        call(lib, lib.tensor([1.0, 2.0]))


def test_the_accepted_forms_still_work():
    t = leafgrad.tensor([1.0, 2.0])
    assert (t.eq(1.0)).tolist() == [True, False]
    assert (1.0 < t).tolist() == [False, True]  # reflected: t.__gt__(1.0)
    assert (t == 2).tolist() == [False, True]
    assert leafgrad.remainder(5.0, t).tolist() == [0.0, 1.0]  # a Scalar-first overload
    assert leafgrad.xlogy(2.0, t).dtype == leafgrad.float32
    assert leafgrad.polygamma(leafgrad.tensor(1), t).tolist() == pytest.approx(
        [1.6449341, 0.6449341], rel=1e-6
    )
    assert leafgrad.mvlgamma(t + 3, leafgrad.tensor(2)).shape == (2,)
    weighted = leafgrad.nn.functional.binary_cross_entropy(t / 3, t / 3, weight=t.double())
    assert weighted.dtype == leafgrad.float32  # the input's dtype, as in PyTorch


@pytest.mark.parametrize("input_", ["float32", "float64"])
@pytest.mark.parametrize("target", ["float32", "float64"])
@pytest.mark.parametrize("weight", [None, "float32", "float64"])
def test_bce_with_logits_takes_the_targets_dtype(input_, target, weight):
    m = leafgrad
    x = m.tensor([0.3, -1.2], dtype=getattr(m, input_), requires_grad=True)
    y = m.tensor([0.25, 1.0], dtype=getattr(m, target))
    w = None if weight is None else m.tensor([2.0, 0.5], dtype=getattr(m, weight))
    loss = m.nn.functional.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=w)
    assert loss.dtype == y.dtype  # PyTorch 2.13's rule, checked over all 12 combinations
    loss.backward()
    assert x.grad.dtype == x.dtype
    xs, ys = x.detach().double(), y.double()
    ws = 1.0 if w is None else w.double()
    expected = ((1 - ys) * xs + (1 + (ws - 1) * ys) * m.nn.functional.softplus(-xs)) * ws
    tol = 1e-6 if "float32" in (input_, target, weight) else 1e-12
    assert abs(loss.item() - expected.mean().item()) < tol


def test_mixed_dtype_messages_name_both_dtypes():
    t = leafgrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        leafgrad.isclose(t, t.double())
    with pytest.raises(RuntimeError, match="Got Float and Double"):
        leafgrad.nn.functional.prelu(t, leafgrad.tensor([0.1], dtype=leafgrad.float64))
