"""digamma and trigamma (polygamma(1, .)) are PyTorch's kernels (ops/_digamma.py): its
values in float64 (to the bit on the test machines, an ulp or so of another CPU's log
allowed) away from the reflection's tangent, within a few ulp in float32, special points
included; and so are digamma's gradient and lgamma's second derivative."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _digamma

torch = pytest.importorskip("torch")

SPECIAL = [0.0, -0.0, 1.0, -1.0, -2.0, 10.0, np.inf, -np.inf, np.nan, 1e-8, 0.5, -0.5, 1e17, 2e17]
POSITIVE = np.concatenate([np.linspace(0.01, 30, 3001), np.geomspace(1e-6, 1e20, 300)])


def _values(dtype):
    return np.concatenate([POSITIVE, np.linspace(-5.3, -0.01, 700), SPECIAL]).astype(dtype)


@pytest.mark.parametrize("name", ["digamma", "trigamma"])
def test_float64_values_are_pytorchs_for_positive_inputs(name):
    x = np.concatenate([POSITIVE, SPECIAL])
    ours = getattr(_digamma, name)(x)
    theirs = (torch.digamma if name == "digamma" else lambda t: torch.polygamma(1, t))(
        torch.tensor(x)
    ).numpy()
    # The same operations (PyTorch's bits on the test machines, but for an ulp where its
    # compiler contracts a product); a few ulp of another CPU's log or sin, absolute near
    # digamma's zero (x = 1.46...).
    np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("name", ["digamma", "trigamma"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_match_pytorchs_with_negative_inputs(name, dtype):
    x = _values(dtype)
    ours = getattr(_digamma, name)(x)
    assert ours.dtype == x.dtype
    theirs = (torch.digamma if name == "digamma" else lambda t: torch.polygamma(1, t))(
        torch.tensor(x)
    ).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(theirs))
    finite = np.isfinite(theirs)
    # near digamma's zeros the few-ulp differences of tan/sin grow relative: an absolute floor
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=64 * eps, atol=64 * eps)


def test_digamma_gradient_and_lgamma_second_derivative_are_pytorchs():
    found = []
    for m in (lg, torch):
        x = m.tensor(POSITIVE[:3001], requires_grad=True)
        (d,) = m.autograd.grad(m.digamma(x).sum(), x)
        (g,) = m.autograd.grad(m.lgamma(x).sum(), x, create_graph=True)
        (h,) = m.autograd.grad(g.sum(), x)
        found.append((g.detach().numpy(), d.numpy(), h.numpy()))
    for ours, theirs in zip(*found):
        np.testing.assert_allclose(ours, theirs, rtol=1e-15, atol=1e-15)
