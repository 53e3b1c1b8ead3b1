"""nn.functional agrees with torch.nn.functional (values and gradients, float64)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, pair

RNG = np.random.default_rng(7)


def check(fn_ours, fn_theirs, *arrays):
    ours = [pair(a, requires_grad=True)[0] for a in arrays]
    theirs = [pair(a, requires_grad=True)[1] for a in arrays]
    out_ours, out_theirs = fn_ours(*ours), fn_theirs(*theirs)
    assert_close(out_ours, out_theirs)
    seed = RNG.standard_normal(tuple(out_theirs.shape))
    g_ours = lg.autograd.grad((out_ours * lg.tensor(seed)).sum(), ours)
    g_theirs = torch.autograd.grad((out_theirs * torch.tensor(seed)).sum(), theirs)
    for a, b in zip(g_ours, g_theirs):
        assert_close(a, b)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "b_shape"),
    [
        ((4, 3), (2, 3), (2,)),
        ((4, 3), (2, 3), None),
        ((2, 5, 3), (2, 3), (2,)),
        ((3,), (2, 3), (2,)),
        ((4, 3), (3,), None),
    ],
)
def test_linear(x_shape, w_shape, b_shape):
    arrays = [RNG.standard_normal(x_shape), RNG.standard_normal(w_shape)]
    if b_shape is not None:
        arrays.append(RNG.standard_normal(b_shape))
    check(F.linear, TF.linear, *arrays)


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("relu", {}), ("relu", {"inplace": False}), ("leaky_relu", {"negative_slope": 0.3}),
        ("elu", {"alpha": 2.0}), ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
        ("softplus", {"beta": 0.5, "threshold": 3.0}), ("sigmoid", {}), ("tanh", {}),
        ("softmax", {"dim": -1}), ("log_softmax", {"dim": 0}),
    ],
)  # fmt: skip
def test_activation_functions(name, kwargs):
    x = RNG.standard_normal((3, 4)) * 4
    check(lambda t: getattr(F, name)(t, **kwargs), lambda t: getattr(TF, name)(t, **kwargs), x)


def test_softmax_dtype_argument():
    x_ours, x_theirs = pair(RNG.standard_normal((2, 3)))
    assert_close(
        F.softmax(x_ours.float(), 1, dtype=lg.float64),
        TF.softmax(x_theirs.float(), 1, dtype=torch.float64),
    )


def test_dropout_not_training_returns_the_input():
    x = lg.randn(3)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x


def test_inplace_flag_writes_the_input_and_returns_it():
    x = lg.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x
    assert x.tolist() == [0.0, 2.0]
