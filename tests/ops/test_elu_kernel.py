"""elu's forward and backward computed in one buffer give the one-expression formulas' bits
(PyTorch's formulas on NumPy's expm1 and exp), signed zeros, infinities and NaN included."""

import numpy as np
import pytest

import leafgrad as lg
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
        assert _same_bits(_elu_backward_forward(grad, x, **params), _backward(grad, x, params))
        # a broadcast gradient (a sum's)
        ones = np.broadcast_to(np.ones((), dtype), x.shape)
        assert _same_bits(_elu_backward_forward(ones, x, **params), _backward(ones, x, params))


def _backward(grad, x, params):
    """PyTorch's elu_backward kernel as one expression: ``grad * input_scale * (alpha *
    scale) * exp(x * input_scale)``, its coefficients in the dtype."""
    c = x.dtype.type
    alpha, scale, input_scale = (c(params[k]) for k in ("alpha", "scale", "input_scale"))
    negative = grad * input_scale * (alpha * scale) * np.exp(x * input_scale)
    return np.where(x <= 0, negative, grad * scale).astype(x.dtype)


@pytest.mark.parametrize("name", ["elu", "selu", "celu"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_elu_family_gradients_are_pytorchs(name, dtype):
    """The same products in the same order as PyTorch's kernel (celu's input scale from
    alpha rounded to float32, as PyTorch's derivative takes it): equal up to the last-place
    differences of the two libraries' exp."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    values, weights = rng.uniform(-3, 2, 67).astype(dtype), rng.uniform(-2, 2, 67).astype(dtype)
    args = {"elu": (0.7,), "selu": (), "celu": (0.7,)}[name]
    grads = []
    for m in (lg, torch):
        x = m.tensor(values, requires_grad=True)
        y = getattr(m.nn.functional, name)(x, *args)
        (g,) = m.autograd.grad((y * m.tensor(weights)).sum(), x)
        grads.append(g.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=4 * np.finfo(dtype).eps, atol=0)
