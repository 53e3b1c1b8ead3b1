"""nn.init: PyTorch's distributions (checked by statistics over large tensors), seeded by
manual_seed. Each test runs with leafgrad and with PyTorch (see conftest.py)."""

import math

import numpy as np
import pytest

import leafgrad
from leafgrad import nn

from .._tolerance import assert_close


def stats(t):
    a = np.asarray(t.detach().numpy(), dtype=np.float64)
    return a.min(), a.max(), a.mean(), a.std()


@pytest.mark.parametrize(
    ("nonlinearity", "param", "expected"),
    [
        ("linear", None, 1.0), ("conv2d", None, 1.0), ("sigmoid", None, 1.0), ("tanh", None, 5 / 3),
        ("relu", None, math.sqrt(2)), ("leaky_relu", None, math.sqrt(2 / (1 + 0.01**2))),
        ("leaky_relu", 0.2, math.sqrt(2 / 1.04)), ("leaky_relu", math.sqrt(5), math.sqrt(2 / 6)),
        ("selu", None, 0.75),
    ],
)  # fmt: skip
def test_calculate_gain(torch, nonlinearity, param, expected):
    gain = torch.nn.init.calculate_gain(nonlinearity, param)
    assert_close(gain, expected, "direct")


def test_calculate_gain_rejects_unknown_nonlinearity(torch):
    with pytest.raises(ValueError):
        torch.nn.init.calculate_gain("swish")
    with pytest.raises(ValueError):
        torch.nn.init.calculate_gain("leaky_relu", "steep")


def test_uniform_(torch):
    t = torch.nn.init.uniform_(torch.empty(1000, 1000), -2.0, 3.0)
    lo, hi, mean, std = stats(t)
    assert -2.0 <= lo < -1.99 and 2.99 < hi <= 3.0
    assert mean == pytest.approx(0.5, abs=0.01) and std == pytest.approx(
        5 / math.sqrt(12), rel=0.01
    )


def test_normal_(torch):
    _, _, mean, std = stats(torch.nn.init.normal_(torch.empty(1000, 1000), 1.5, 0.5))
    assert mean == pytest.approx(1.5, abs=0.005) and std == pytest.approx(0.5, rel=0.01)


def test_constant_zeros_ones(torch):
    t = torch.empty(2, 3)
    assert torch.nn.init.constant_(t, 0.3) is t and t.tolist() == [[pytest.approx(0.3)] * 3] * 2
    assert torch.nn.init.zeros_(t).tolist() == [[0.0] * 3] * 2
    assert torch.nn.init.ones_(t).tolist() == [[1.0] * 3] * 2


def test_eye_(torch):
    assert torch.nn.init.eye_(torch.empty(2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize("shape", [(600, 400), (64, 32, 3, 3)])
@pytest.mark.parametrize("gain", [1.0, 5 / 3])
def test_xavier_uniform_(torch, shape, gain):
    receptive = int(np.prod(shape[2:]))
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    bound = gain * math.sqrt(6 / (fan_in + fan_out))
    lo, hi, _, std = stats(torch.nn.init.xavier_uniform_(torch.empty(*shape), gain=gain))
    assert -bound <= lo < -0.99 * bound and 0.99 * bound < hi <= bound
    assert std == pytest.approx(bound / math.sqrt(3), rel=0.01)


def test_xavier_normal_(torch):
    _, _, mean, std = stats(torch.nn.init.xavier_normal_(torch.empty(600, 400), gain=2.0))
    assert mean == pytest.approx(0.0, abs=0.005) and std == pytest.approx(
        2.0 * math.sqrt(2 / 1000), rel=0.01
    )


@pytest.mark.parametrize(
    ("a", "mode", "nonlinearity", "fan"),
    [(0, "fan_in", "leaky_relu", 400), (math.sqrt(5), "fan_in", "leaky_relu", 400),
     (0, "fan_out", "relu", 600), (0.1, "fan_in", "tanh", 400)],
)  # fmt: skip
def test_kaiming_uniform_(torch, a, mode, nonlinearity, fan):
    gain = torch.nn.init.calculate_gain(nonlinearity, a)
    bound = gain * math.sqrt(3 / fan)
    lo, hi, _, std = stats(
        torch.nn.init.kaiming_uniform_(
            torch.empty(600, 400), a=a, mode=mode, nonlinearity=nonlinearity
        )
    )
    assert -bound <= lo < -0.99 * bound and 0.99 * bound < hi <= bound
    assert std == pytest.approx(gain / math.sqrt(fan), rel=0.01)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_kaiming_normal_(torch, mode):
    fan = 400 if mode == "fan_in" else 600
    _, _, mean, std = stats(
        torch.nn.init.kaiming_normal_(torch.empty(600, 400), mode=mode, nonlinearity="relu")
    )
    assert mean == pytest.approx(0.0, abs=0.005) and std == pytest.approx(
        math.sqrt(2 / fan), rel=0.01
    )


def test_kaiming_rejects_unknown_mode(torch):
    with pytest.raises(ValueError):
        torch.nn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan_avg")


def test_kaiming_on_zero_elements_warns_and_does_nothing(torch):
    with pytest.warns(UserWarning, match="zero-element"):
        torch.nn.init.kaiming_uniform_(torch.empty(0, 3))


def test_fan_needs_two_dimensions(torch):
    with pytest.raises(ValueError):
        torch.nn.init.xavier_uniform_(torch.empty(5))
    with pytest.raises(ValueError):
        torch.nn.init.orthogonal_(torch.empty(5))


@pytest.mark.parametrize("shape", [(30, 10), (10, 30), (20, 20), (6, 4, 2)])
def test_orthogonal_(torch, shape):
    t = torch.nn.init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=2.0)
    q = np.asarray(t.detach().numpy()).reshape(shape[0], -1) / 2.0
    rows, cols = q.shape
    gram = q.T @ q if rows >= cols else q @ q.T
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-12)


def test_init_keeps_a_parameter_a_leaf_without_history(torch):
    p = torch.nn.Parameter(torch.empty(3, 4))
    for fill in (
        torch.nn.init.xavier_uniform_,
        torch.nn.init.kaiming_normal_,
        torch.nn.init.orthogonal_,
    ):
        assert fill(p) is p
        assert p.is_leaf and p.requires_grad and p.grad_fn is None


def test_manual_seed_makes_init_reproducible(torch):
    torch.manual_seed(3)
    a = torch.nn.init.kaiming_uniform_(torch.empty(4, 5)).tolist()
    b = torch.nn.init.kaiming_uniform_(torch.empty(4, 5)).tolist()
    torch.manual_seed(3)
    assert torch.nn.init.kaiming_uniform_(torch.empty(4, 5)).tolist() == a
    assert a != b


def test_manual_seed_makes_linear_reproducible(torch):
    torch.manual_seed(0)
    a = torch.nn.Linear(3, 2)
    torch.manual_seed(0)
    b = torch.nn.Linear(3, 2)
    assert a.weight.tolist() == b.weight.tolist() and a.bias.tolist() == b.bias.tolist()


def test_linear_default_init_distribution(torch):
    """kaiming_uniform_(a=sqrt(5)) for the weight and U(+-1/sqrt(fan_in)) for the bias:
    both uniform on +-1/sqrt(in_features)."""
    m = torch.nn.Linear(900, 1000)
    bound = 1 / math.sqrt(900)
    lo, hi, _, std = stats(m.weight)
    assert -bound <= lo < -0.99 * bound and 0.99 * bound < hi <= bound
    assert std == pytest.approx(bound / math.sqrt(3), rel=0.01)
    lo, hi, _, _ = stats(m.bias)
    assert -bound <= lo and hi <= bound and hi - lo > 1.8 * bound


def test_generator_argument_draws_from_that_generator():
    a = nn.init.normal_(leafgrad.empty(5), generator=np.random.default_rng(1)).tolist()
    b = nn.init.normal_(leafgrad.empty(5), generator=np.random.default_rng(1)).tolist()
    assert a == b


def test_trunc_normal_stays_in_bounds():
    leafgrad.manual_seed(0)
    lo, hi, mean, _ = stats(
        nn.init.trunc_normal_(leafgrad.empty(100_000), mean=0.5, std=1.0, a=-1.0, b=1.0)
    )
    assert -1.0 <= lo and hi <= 1.0 and 0.0 < mean < 0.5
