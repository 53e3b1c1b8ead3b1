"""leaky_relu's backward at NaN, as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import _fused


def _run(module, fn, x, grad, **params):
    """``fn(x)`` and the gradient of ``(fn(x) * grad).sum()`` (``grad`` None: of the sum)."""
    t = module.tensor(x, requires_grad=True)
    y = fn(module)(t, **params)
    (y.sum() if grad is None else (y * module.tensor(grad)).sum()).backward()
    return y.detach().numpy(), t.grad.numpy()


def test_leaky_relu_backward_scales_a_nan_by_a_zero_slope_as_torch():
    """PyTorch's ``x > 0 ? grad : grad * slope``: 0 at NaN for a slope of 0, where relu's
    threshold_backward passes the gradient."""
    torch = pytest.importorskip("torch")
    for size in (6, 2 * _fused.MIN_SIZE):
        x = np.resize(np.array([np.nan, -np.nan, 0.0, -0.0, 1.0, -1.0], np.float32), size)

        def fn(module):
            return lambda t: module.nn.functional.leaky_relu(t, 0.0)

        ours, theirs = _run(lg, fn, x, None), _run(torch, fn, x, None)
        np.testing.assert_array_equal(ours[1].view(np.uint32), theirs[1].view(np.uint32))
