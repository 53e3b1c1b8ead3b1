"""PyTorch's gelu_backward and softplus_backward ops (GeluBackwardBackward0,
SoftplusBackwardBackward0): values of three orders and graphs against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


def _three_orders(lib, fn, x_np, dtype):
    x = lib.tensor(x_np, dtype=getattr(lib, dtype), requires_grad=True)
    y = fn(lib, x)
    (g,) = lib.autograd.grad(y, x, lib.full_like(y, 0.7), create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    x.grad = None
    fn(lib, x).backward(lib.full_like(y, 0.7))  # the plain (unrecorded) backward
    names = (y.grad_fn.name(), g.grad_fn.name())
    return [t.detach().numpy() for t in (y, g, gg, x.grad)], names


ACTIVATIONS = {
    "gelu": lambda lib, x: lib.nn.functional.gelu(x),
    "gelu-tanh": lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"),
    "softplus": lambda lib, x: lib.nn.functional.softplus(x),
    "softplus-beta": lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=3.0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_backward_ops_match_torch(name, dtype):
    # Past BLOCK values (several erf blocks), the softplus threshold hit exactly (x = 1.5).
    x = np.linspace(-30, 30, 100_001)
    (want, want_names), (got, got_names) = (
        _three_orders(lib, ACTIVATIONS[name], x, dtype) for lib in (torch, lg)
    )
    assert got_names == want_names  # GeluBackward0 / GeluBackwardBackward0, Softplus...
    # (float32 second derivatives by other formulas than PyTorch's: tanh-GELU's cancels.)
    rtols = (2e-6, 2e-6, 3e-5, 2e-6) if dtype == "float32" else (1e-13,) * 4
    for a, b, rtol in zip(got, want, rtols):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max())


def test_gelu_backward_saves_what_torch_saves():
    x = lg.randn(4, requires_grad=True)
    (g,) = lg.autograd.grad(lg.nn.functional.gelu(x).sum(), x, create_graph=True)
    node = g.grad_fn
    assert node._saved_approximate == "none"
    assert node._saved_self is x
    np.testing.assert_array_equal(node._saved_grad_output.numpy(), np.ones(4, np.float32))


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_backward_ops_on_zero_dim_tensors(name):
    (want, _), (got, _) = (
        _three_orders(lib, ACTIVATIONS[name], np.float64(0.3), "float32") for lib in (torch, lg)
    )
    for a, b in zip(got, want):
        assert a.shape == b.shape == ()
        np.testing.assert_allclose(a, b, rtol=2e-6)
