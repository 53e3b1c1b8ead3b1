"""elu's forward and backward computed in one buffer give the one-expression formulas' bits
(PyTorch's formulas on NumPy's expm1 and exp), signed zeros, infinities and NaN included."""

import numpy as np
import pytest

from leafgrad.ops.activations import _elu_backward_forward, _elu_forward

PARAMS = [
    {"alpha": 1.0, "scale": 1, "input_scale": 1},  # elu
    {"alpha": 1.6732632423543772, "scale": 1.0507009873554805, "input_scale": 1},  # selu
    {"alpha": 0.5, "scale": 1, "input_scale": 2.0},  # celu(alpha=0.5)
]


def _inputs(dtype):
    rng = np.random.default_rng(0)
    edges = [0.0, -0.0, 1e-40, -1e-40, -90.0, -800.0, 90.0, 800.0, np.inf, -np.inf, np.nan]
    return np.concatenate([rng.standard_normal(5000) * 4, edges]).astype(dtype)


def _same_bits(a, b):
    return a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_elu_forward_and_backward_give_the_formulas_bits(dtype, params):
    x = _inputs(dtype)
    grad = np.random.default_rng(1).standard_normal(x.shape).astype(dtype)
    alpha, scale, input_scale = params["alpha"], params["scale"], params["input_scale"]
    with np.errstate(all="ignore"):
        negative = (alpha * scale) * np.expm1(np.where(x > 0, 0, x) * input_scale)
        expected = np.where(x > 0, x * scale, negative).astype(dtype)
        assert _same_bits(_elu_forward(x, **params), expected)
        negative = grad * ((alpha * scale * input_scale) * np.exp(x * input_scale))
        expected = np.where(x <= 0, negative, grad * scale).astype(dtype)
        assert _same_bits(_elu_backward_forward(grad, x, **params), expected)
        # a broadcast gradient (a sum's) takes the one-expression path itself
        ones = np.broadcast_to(np.ones((), dtype), x.shape)
        expected = np.where(
            x <= 0, ones * ((alpha * scale * input_scale) * np.exp(x * input_scale)), ones * scale
        )
        assert _same_bits(_elu_backward_forward(ones, x, **params), expected.astype(dtype))
