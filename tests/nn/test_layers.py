"""Each layer's forward and gradients (input and parameters, and second order where smooth)
agree with PyTorch's for the same weights, in float64."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg

from ._compare import assert_close, assert_same_grads, copy_weights, pair
from ._compare import run_both as _run_both

RNG = np.random.default_rng(1234)


def run_both(ours, theirs, x_array, second_order=True):
    _run_both(ours, theirs, x_array, RNG, second_order)


@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 4, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_pytorch(shape, bias):
    ours = lg.nn.Linear(3, 4, bias=bias, dtype=lg.float64)
    theirs = torch.nn.Linear(3, 4, bias=bias, dtype=torch.float64)
    copy_weights(ours, theirs)
    run_both(ours, theirs, RNG.standard_normal(shape), second_order=False)


def test_linear_double_backward_reaches_the_weight():
    """d/dW of (d out / d x): the mixed second derivative a PINN residual needs."""
    ours = lg.nn.Linear(3, 2, dtype=lg.float64)
    theirs = torch.nn.Linear(3, 2, dtype=torch.float64)
    copy_weights(ours, theirs)
    x_ours, x_theirs = pair(RNG.standard_normal((4, 3)), requires_grad=True)
    (g_ours,) = lg.autograd.grad(lg.tanh(ours(x_ours)).sum(), [x_ours], create_graph=True)
    (g_theirs,) = torch.autograd.grad(
        torch.tanh(theirs(x_theirs)).sum(), [x_theirs], create_graph=True
    )
    assert_close(g_ours, g_theirs)
    (g_ours * g_ours).sum().backward()
    (g_theirs * g_theirs).sum().backward()
    assert_same_grads(ours, theirs)


ACTIVATIONS = [
    ("Tanh", {}, True),
    ("Sigmoid", {}, True),
    ("ReLU", {}, False),
    ("LeakyReLU", {"negative_slope": 0.2}, False),
    ("SiLU", {}, True),
    ("GELU", {}, True),
    ("GELU", {"approximate": "tanh"}, True),
    ("ELU", {"alpha": 0.7}, True),
    ("Softplus", {"beta": 2.0, "threshold": 5.0}, True),
    ("Softmax", {"dim": 1}, True),
    ("Softmax", {"dim": 0}, True),
    ("LogSoftmax", {"dim": 1}, True),
]


@pytest.mark.parametrize(
    ("name", "kwargs", "smooth"), ACTIVATIONS, ids=[f"{a[0]}{a[1]}" for a in ACTIVATIONS]
)
def test_activation_matches_pytorch(name, kwargs, smooth):
    x = RNG.standard_normal((4, 5)) * 3
    run_both(
        getattr(lg.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs), x, second_order=smooth
    )


def test_sin_activation_is_sin_with_its_derivatives():
    x = RNG.standard_normal((3, 4))
    run_both(lg.nn.Sin(), lambda t: torch.sin(t), x)


def test_implicit_softmax_dim_warns_and_follows_pytorch():
    for shape in [(4,), (3, 4), (2, 3, 4), (2, 2, 3, 4)]:
        x_ours, x_theirs = pair(RNG.standard_normal(shape))
        with pytest.warns(UserWarning, match="Implicit dimension"):
            ours = lg.nn.Softmax()(x_ours)
        with pytest.warns(UserWarning):
            theirs = torch.nn.Softmax()(x_theirs)
        assert_close(ours, theirs)


@pytest.mark.parametrize(("start", "end"), [(1, -1), (0, -1), (0, 1), (2, 3)])
def test_flatten_matches_pytorch(start, end):
    run_both(
        lg.nn.Flatten(start, end),
        torch.nn.Flatten(start, end),
        RNG.standard_normal((2, 3, 4, 5)),
        False,
    )


def test_identity_returns_its_input():
    x = lg.ones(3)
    assert lg.nn.Identity(54, unused="x")(x) is x


def test_mlp_matches_pytorch_end_to_end():
    def build(nn, dtype):
        return nn.Sequential(
            nn.Linear(2, 8, dtype=dtype), nn.Tanh(), nn.Linear(8, 8, dtype=dtype), nn.SiLU(),
            nn.Linear(8, 8, dtype=dtype), nn.GELU(), nn.Linear(8, 1, dtype=dtype),
        )  # fmt: skip

    ours, theirs = build(lg.nn, lg.float64), build(torch.nn, torch.float64)
    copy_weights(ours, theirs)
    run_both(ours, theirs, RNG.standard_normal((16, 2)))


def test_float32_layers_stay_float32():
    m = lg.nn.Sequential(lg.nn.Linear(3, 2), lg.nn.Tanh())
    out = m(lg.randn(4, 3))
    assert out.dtype == lg.float32
    out.sum().backward()
    assert m[0].weight.grad.dtype == lg.float32


def test_linear_with_the_wrong_input_width_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"\[5, 2\].*\[4, 3\]"):
        lg.nn.Linear(3, 4)(lg.ones(5, 2))
