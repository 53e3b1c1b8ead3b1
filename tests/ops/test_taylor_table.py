"""Taylor mode for every op-table sample: coefficients up to order 4 along a random
direction (every input moving) against nested reverse-mode derivatives, in float64."""

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.autograd import taylor
from tests._tolerance import tolerance

from .test_op_table import IDS, SAMPLES

ORDER = 4

# Samples whose function is piecewise constant or otherwise has no Taylor series worth
# checking, each with why.
SKIP = {
    "div-rounding-mode": "piecewise constant: every derivative is zero, nothing to check",
    # PyTorch's stable logcumsumexp backward takes log|grad|; from the third order the
    # nested reverse differentiates log at a zero gradient (0 / 0), NaN in PyTorch too.
    "logcumsumexp-(2, 4)": "nested reverse is NaN from order 3, as PyTorch's",
    "logcumsumexp-times-input": "nested reverse is NaN from order 3, as PyTorch's",
    "hardsigmoid-(8,)": "nested reverse raises from order 2: PyTorch defines no derivative of "
    "hardsigmoid_backward",
    **{
        f"multi_margin-p{p}-{reduction}-{weighted}": "nested reverse raises from order 2: "
        "PyTorch defines no derivative of multi_margin_loss_backward"
        for p in (1, 2)
        for reduction in ("none", "mean", "sum")
        for weighted in (False, True)
    },
    **{
        f"sdpa-flash-causal{c}": "nested reverse raises from order 2: PyTorch defines no "
        "derivative of _scaled_dot_product_flash_attention_for_cpu_backward"
        for c in (False, True)
    },
}


def _outputs(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, lg.Tensor) and o.dtype.is_floating_point]


def _weights(outs, rng):
    return [lg.tensor(rng.standard_normal(o.shape)) for o in outs]


def _scalar(outs, weights):
    total = None
    for o, w in zip(outs, weights):
        term = (o * w).sum()
        total = term if total is None else total + term
    return total


def _nested(sample, inputs, directions, weights):
    """s_k = d^k/dt^k <w, f(x + t v)> at 0, by nested autograd.grad."""
    xs = [x.detach().requires_grad_(True) for x in inputs]
    s = _scalar(_outputs(sample.fn(*xs)), weights)
    values = [s.item()]
    for _ in range(ORDER):
        if not s.requires_grad:
            values.extend([0.0] * (ORDER + 1 - len(values)))
            break
        grads = lg.autograd.grad(s, xs, create_graph=True, allow_unused=True)
        s = sum(
            ((g * v).sum() for g, v in zip(grads, directions) if g is not None),
            lg.tensor(0.0, dtype=lg.float64),
        )
        values.append(s.item())
    return values


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_taylor_coefficients_to_order_4_match_nested_reverse(sample):
    if sample.test_id in SKIP:
        pytest.skip(SKIP[sample.test_id])
    rng = np.random.default_rng(7)
    inputs = [x.detach() for x in sample.inputs()]
    directions = [lg.tensor(rng.standard_normal(x.shape)) for x in inputs]

    def multi(*xs):
        outs = _outputs(sample.fn(*xs))
        return outs[0] if len(outs) == 1 else lg.cat([o.reshape(-1) for o in outs])

    coeffs = taylor.coefficients(multi, tuple(inputs), tuple(directions), ORDER)
    out0 = multi(*inputs)
    w = lg.tensor(rng.standard_normal(out0.shape))
    ours = [(c * w).sum().item() * math.factorial(k) for k, c in enumerate(coeffs)]
    expected = _nested(
        sample,
        inputs,
        directions,
        [w] if len(_outputs(sample.fn(*inputs))) == 1 else _split(w, sample, inputs),
    )
    # Two short chains of recurrences for the same derivatives: the "direct" tolerance of the
    # sample's round-off dtype, relative to the largest of them (some cancel to near zero).
    scale = max(1.0, max(abs(e) for e in expected))
    rtol, atol = tolerance(sample.round_off, "direct")
    np.testing.assert_allclose(ours, expected, rtol=rtol, atol=max(atol, rtol) * scale)


def _split(w, sample, inputs):
    outs = _outputs(sample.fn(*inputs))
    pieces, start = [], 0
    flat = w.reshape(-1)
    for o in outs:
        n = o.numel()
        pieces.append(flat[start : start + n].reshape(o.shape))
        start += n
    return pieces
