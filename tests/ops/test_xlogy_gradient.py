"""xlogy's and xlog1py's derivative in ``x`` at ``x = 0``: ``log(y)`` (``log1p(y)``) where
that is finite, 0 only where PyTorch masks it (``y <= 0``, ``y <= -1``)."""

import math

import numpy as np
import pytest

import leafgrad as lg

CASES = {
    "xlogy": (lg.xlogy, [2.0, 0.0, -1.0, 0.5], lambda y: math.log(y) if y > 0 else 0.0),
    "xlog1py": (
        lg.special.xlog1py,
        [2.0, -1.0, -2.0, -0.5],
        lambda y: math.log1p(y) if y > -1 else 0.0,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_derivative_at_zero_is_the_log_where_finite(name):
    fn, ys, expected = CASES[name]
    x = lg.zeros(len(ys), dtype=lg.float64, requires_grad=True)
    y = lg.tensor(ys, dtype=lg.float64, requires_grad=True)
    fn(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [expected(v) for v in ys], rtol=1e-15)
    for v in ys:  # a number as the second operand
        x = lg.zeros(2, dtype=lg.float64, requires_grad=True)
        fn(x, v).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [expected(v)] * 2, rtol=1e-15)


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_match_torch_at_and_away_from_zero(name):
    torch = pytest.importorskip("torch")
    fn, ys, _ = CASES[name]
    torch_fn = torch.xlogy if name == "xlogy" else torch.special.xlog1py
    xs = [0.0] * len(ys) + [1.5] * len(ys)
    grads = []
    for m, f in ((lg, fn), (torch, torch_fn)):
        x = m.tensor(xs, dtype=m.float64, requires_grad=True)
        y = m.tensor(ys + ys, dtype=m.float64, requires_grad=True)
        f(x, y).sum().backward()
        grads.append((x.grad.numpy(), y.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-15, equal_nan=True)
