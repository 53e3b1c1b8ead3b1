"""kl_divergence against PyTorch: every registered pair among these families in values and
first and second derivatives, infinite divergences, the dispatch, and the unregistered pairs."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws
from tests.distributions._cases import exponential as _exponential
from tests.distributions._cases import kl_of as _kl
from tests.distributions._cases import normal as _normal
from tests.distributions._cases import uniform as _uniform

torch = pytest.importorskip("torch")

_u = draws(11)


def _bernoulli_probs(m, probs):
    return m.distributions.Bernoulli(probs=probs)


def _bernoulli_logits(m, logits):
    return m.distributions.Bernoulli(logits=logits)


def _categorical_probs(m, probs):
    return m.distributions.Categorical(probs=probs)


def _categorical_logits(m, logits):
    return m.distributions.Categorical(logits=logits)


def _independent_normal(m, loc, scale):
    return m.distributions.Independent(m.distributions.Normal(loc, scale), 1)


def _mvn(m, loc, tril):
    return m.distributions.MultivariateNormal(loc, scale_tril=tril)


def _tril(*batch):
    return np.tril(_u(-0.5, 0.5, *batch, 3, 3), -1) + np.eye(3) * _u(0.5, 2.0, *batch, 1, 3)


NORMAL, EXPONENTIAL = [_u(-1, 1, 3), _u(0.5, 2, 3)], [_u(0.5, 3, 3)]
# p's support inside q's in the first two entries, outside in the last (KL = inf)
INSIDE_LOW, INSIDE_HIGH = np.array([-1.0, 0.5, -3.0]), np.array([1.0, 2.0, 0.0])
UNIFORM_Q = [np.array([-2.0, 0.2, -2.5]), np.array([1.5, 2.5, 0.5])]

CASES = {
    "normal_normal": (_normal, _normal, NORMAL + [_u(-1, 1, 3), _u(0.5, 2, 3)]),
    "uniform_uniform": (_uniform, _uniform, [INSIDE_LOW, INSIDE_HIGH] + UNIFORM_Q),
    "exponential_exponential": (_exponential, _exponential, EXPONENTIAL + [_u(0.5, 3, 3)]),
    "bernoulli_probs": (_bernoulli_probs, _bernoulli_probs, [_u(0.1, 0.9, 4), _u(0.1, 0.9, 4)]),
    "bernoulli_logits": (_bernoulli_logits, _bernoulli_probs, [_u(-3, 3, 4), _u(0.1, 0.9, 4)]),
    "categorical_probs": (
        _categorical_probs,
        _categorical_logits,
        [_u(0.1, 1, 2, 4), _u(-2, 2, 2, 4)],
    ),
    "categorical_logits": (
        _categorical_logits,
        _categorical_logits,
        [_u(-2, 2, 2, 4), _u(-2, 2, 4)],
    ),
    "independent_independent": (
        _independent_normal,
        _independent_normal,
        [_u(-1, 1, 2, 3), _u(0.5, 2, 2, 3), _u(-1, 1, 2, 3), _u(0.5, 2, 2, 3)],
    ),
    "exponential_normal": (_exponential, _normal, EXPONENTIAL + NORMAL),
    "uniform_normal": (_uniform, _normal, [INSIDE_LOW, INSIDE_HIGH] + NORMAL),
    "uniform_exponential": (_uniform, _exponential, [INSIDE_LOW, INSIDE_HIGH] + EXPONENTIAL),
    "normal_uniform": (_normal, _uniform, NORMAL + UNIFORM_Q),
    "normal_exponential": (_normal, _exponential, NORMAL + EXPONENTIAL),
    "exponential_uniform": (_exponential, _uniform, EXPONENTIAL + UNIFORM_Q),
    "mvn_mvn": (_mvn, _mvn, [_u(-1, 1, 2, 3), _tril(2), _u(-1, 1, 3), _tril()]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_kl_values_and_derivatives_match_pytorch(name):
    make_p, make_q, arrays = CASES[name]
    compare(_kl(make_p, make_q), arrays, kind="direct", torch=torch)


def test_kl_is_infinite_where_p_puts_mass_outside_q():
    fn = _kl(_uniform, _uniform)
    kl = fn(lg, *(lg.tensor(a) for a in [INSIDE_LOW, INSIDE_HIGH] + UNIFORM_Q))
    assert np.isinf(kl.numpy()).tolist() == [False, False, True]
    p = lg.distributions.Bernoulli(probs=lg.tensor([0.0, 0.5, 1.0]))
    q = lg.distributions.Bernoulli(probs=lg.tensor([0.0, 0.0, 0.5]))
    expected = torch.distributions.kl_divergence(
        torch.distributions.Bernoulli(probs=torch.tensor([0.0, 0.5, 1.0])),
        torch.distributions.Bernoulli(probs=torch.tensor([0.0, 0.0, 0.5])),
    )
    assert_close(lg.distributions.kl_divergence(p, q), expected)


def test_kl_in_float32_stays_float32():
    p = lg.distributions.Normal(lg.tensor([0.0, 1.0]), 1.0)
    q = lg.distributions.Normal(0.5, lg.tensor([2.0, 0.5]))
    kl = lg.distributions.kl_divergence(p, q)
    expected = torch.distributions.kl_divergence(
        torch.distributions.Normal(torch.tensor([0.0, 1.0]), 1.0),
        torch.distributions.Normal(0.5, torch.tensor([2.0, 0.5])),
    )
    assert kl.dtype == lg.float32
    assert_close(kl, expected)


@pytest.mark.parametrize(
    "pair",
    [
        lambda m: (
            m.distributions.Categorical(logits=m.zeros(3)),
            m.distributions.Normal(0.0, 1.0),
        ),
        lambda m: (m.distributions.Normal(0.0, 1.0), m.distributions.Bernoulli(probs=0.5)),
        lambda m: (m.distributions.Bernoulli(0.3), m.distributions.Exponential(1.0)),
        lambda m: (
            m.distributions.Independent(m.distributions.Normal(m.zeros(2, 2), 1.0), 1),
            m.distributions.Independent(m.distributions.Normal(m.zeros(2, 2), 1.0), 2),
        ),
        lambda m: (
            m.distributions.Normal(m.zeros(2), 1.0),
            m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.eye(2)),
        ),
    ],
)
def test_an_unregistered_pair_raises_not_implemented_as_pytorch(pair):
    for m in (lg, torch):
        p, q = pair(m)
        with pytest.raises(NotImplementedError):
            m.distributions.kl_divergence(p, q)


def test_register_kl_adds_a_pair_and_the_most_specific_registration_wins():
    class MyNormal(lg.distributions.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), lg.distributions.Normal(1.0, 1.0)
    assert lg.distributions.kl_divergence(p, q).item() == pytest.approx(0.5)
    lg.distributions.register_kl(MyNormal, lg.distributions.Normal)(lambda p, q: lg.tensor(7.0))
    assert lg.distributions.kl_divergence(p, q).item() == 7.0
    assert lg.distributions.kl_divergence(q, p).item() == pytest.approx(0.5)
    with pytest.raises(TypeError):
        lg.distributions.register_kl(int, lg.distributions.Normal)
