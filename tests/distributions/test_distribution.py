"""The Distribution protocol as PyTorch's: shapes, expand, validation (ValueError, on by
default), repr text, supports and flags. Each test runs with leafgrad and with PyTorch."""

import pytest

import leafgrad


def _shapes(d):
    return tuple(d.batch_shape), tuple(d.event_shape)


def test_import_paths():
    import leafgrad.distributions as distributions
    from leafgrad.distributions import Normal, constraints, kl_divergence
    from leafgrad.distributions.kl import register_kl

    assert leafgrad.distributions is distributions
    assert Normal is distributions.normal.Normal and callable(kl_divergence)
    assert register_kl is distributions.register_kl
    assert constraints.positive is leafgrad.distributions.constraints.positive


def test_batch_and_event_shapes(torch):
    D = torch.distributions
    assert _shapes(D.Normal(0.0, 1.0)) == ((), ())
    assert _shapes(D.Normal(torch.zeros(3, 1), torch.ones(2))) == ((3, 2), ())
    assert _shapes(D.Normal(torch.tensor(0.0), 1.0)) == ((), ())
    assert _shapes(D.Bernoulli(0.5)) == ((), ())
    assert _shapes(D.Categorical(logits=torch.zeros(4))) == ((), ())
    assert _shapes(D.Categorical(probs=torch.ones(2, 5))) == ((2,), ())
    assert _shapes(D.MultivariateNormal(torch.zeros(2, 3), torch.eye(3))) == ((2,), (3,))
    base = D.Normal(torch.zeros(2, 3, 4), 1.0)
    assert _shapes(D.Independent(base, 2)) == ((2,), (3, 4))
    assert _shapes(D.Independent(base, 0)) == ((2, 3, 4), ())
    assert isinstance(D.Normal(0.0, 1.0).batch_shape, torch.Size)


def test_independent_sums_log_prob_over_the_reinterpreted_dims(torch):
    D = torch.distributions
    base = D.Normal(torch.tensor([[0.0, 1.0], [2.0, 3.0]]), 2.0)
    d = D.Independent(base, 1)
    x = torch.tensor([[0.5, 0.5], [0.5, 0.5]])
    assert torch.allclose(d.log_prob(x), base.log_prob(x).sum(-1))
    assert torch.allclose(d.entropy(), base.entropy().sum(-1))
    assert d.has_rsample and not d.has_enumerate_support
    assert repr(d.support) == "IndependentConstraint(Real(), 1)"
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(base, 3)
    with pytest.raises(ValueError):
        d.log_prob(torch.zeros(3))  # the event shape is (2,)


def test_expand_broadcasts_the_parameters_without_copying(torch):
    D = torch.distributions
    d = D.Normal(torch.tensor([0.0, 1.0]), 2.0).expand((3, 2))
    assert type(d) is D.Normal and _shapes(d) == ((3, 2), ())
    assert tuple(d.loc.shape) == (3, 2) and d.loc.stride() == (0, 1)
    assert tuple(d.log_prob(torch.zeros(3, 2)).shape) == (3, 2)
    assert _shapes(D.Bernoulli(logits=torch.zeros(2)).expand((4, 2))) == ((4, 2), ())
    c = D.Categorical(probs=torch.tensor([0.2, 0.8])).expand((5,))
    assert tuple(c.probs.shape) == (5, 2) and tuple(c.sample().shape) == (5,)
    i = D.Independent(D.Normal(torch.zeros(3), 1.0), 1).expand((2,))
    assert _shapes(i) == ((2,), (3,)) and _shapes(i.base_dist) == ((2, 3), ())
    m = D.MultivariateNormal(torch.zeros(2), scale_tril=torch.eye(2)).expand((4,))
    assert _shapes(m) == ((4,), (2,)) and tuple(m.scale_tril.shape) == (4, 2, 2)
    for e in (D.Uniform(0.0, 1.0).expand((2,)), D.Exponential(1.0).expand([2])):
        assert _shapes(e) == ((2,), ())
    assert d._validate_args is True


def test_invalid_parameters_raise_value_error(torch):
    D = torch.distributions
    bad = [
        lambda: D.Normal(0.0, -1.0),
        lambda: D.Normal(torch.tensor([0.0, float("nan")]), 1.0),
        lambda: D.Uniform(2.0, 1.0),
        lambda: D.Exponential(torch.tensor([1.0, 0.0])),
        lambda: D.Bernoulli(probs=1.5),
        lambda: D.Categorical(probs=torch.tensor([0.5, -0.5, 1.0])),
        lambda: D.MultivariateNormal(
            torch.zeros(2), scale_tril=torch.tensor([[1.0, 1.0], [0.0, 1.0]])
        ),
        lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
    ]
    for build in bad:
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            build()
    D.Normal(0.0, -1.0, validate_args=False)  # accepted without validation
    for build in (
        lambda: D.Bernoulli(),
        lambda: D.Bernoulli(probs=0.5, logits=0.0),
        lambda: D.Categorical(torch.tensor(0.5)),
        lambda: D.MultivariateNormal(torch.zeros(2)),
        lambda: D.Normal("a", 1.0),
    ):
        with pytest.raises(ValueError):
            build()


def test_the_error_text_names_the_parameter_the_distribution_and_the_values(torch):
    with pytest.raises(ValueError) as caught:
        torch.distributions.Normal(0.0, -1.0)
    assert str(caught.value) == (
        "Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, scale: "
        "-1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid "
        "values:\n-1.0"
    )


def test_values_outside_the_support_or_of_the_wrong_shape_raise_value_error(torch):
    D = torch.distributions
    with pytest.raises(ValueError, match="within the support"):
        D.Exponential(1.0).log_prob(torch.tensor([-1.0, 2.0]))
    with pytest.raises(ValueError, match="within the support"):
        D.Uniform(0.0, 1.0).log_prob(torch.tensor(1.5))
    with pytest.raises(ValueError, match="within the support"):
        D.Bernoulli(0.5).log_prob(torch.tensor(0.5))
    with pytest.raises(ValueError, match="within the support"):
        D.Categorical(logits=torch.zeros(3)).log_prob(torch.tensor(3))
    with pytest.raises(ValueError, match="within the support"):
        D.Normal(0.0, 1.0).cdf(torch.tensor(float("nan")))
    with pytest.raises(ValueError, match="broadcastable"):
        D.Normal(torch.zeros(3), 1.0).log_prob(torch.zeros(2))
    with pytest.raises(ValueError, match="must be a Tensor"):
        D.Normal(0.0, 1.0).log_prob(0.5)
    with pytest.raises(ValueError, match="event_shape"):
        D.MultivariateNormal(torch.zeros(3), torch.eye(3)).log_prob(torch.zeros(2))
    lp = D.Exponential(1.0, validate_args=False).log_prob(torch.tensor(-1.0))
    assert lp.item() == pytest.approx(1.0)


def test_set_default_validate_args_turns_validation_off_and_on(torch):
    D = torch.distributions
    assert D.Distribution._validate_args is True
    D.Distribution.set_default_validate_args(False)
    try:
        assert D.Normal(0.0, -1.0).scale.item() == -1.0
        D.Uniform(0.0, 1.0).log_prob(torch.tensor(2.0))
        with pytest.raises(ValueError):
            D.Normal(0.0, -1.0, validate_args=True)
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


def test_repr_prints_one_element_parameters_by_value_and_others_by_size(torch):
    D = torch.distributions
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Normal(torch.tensor([0.0]), 1.0)) == (
        "Normal(loc: tensor([0.]), scale: tensor([1.]))"
    )
    assert repr(D.Uniform(torch.zeros(2), 3.0)) == (
        "Uniform(low: torch.Size([2]), high: torch.Size([2]))"
    )
    assert repr(D.Exponential(torch.tensor(2.5, dtype=torch.float64))) == "Exponential(rate: 2.5)"
    assert repr(D.Bernoulli(logits=0.0)) == "Bernoulli(logits: 0.0)"
    assert repr(D.Bernoulli(probs=0.25)) == "Bernoulli(probs: 0.25)"
    assert repr(D.Categorical(logits=torch.zeros(3))) == "Categorical(logits: torch.Size([3]))"
    assert repr(D.Independent(D.Normal(torch.zeros(2), 1.0), 1)) == (
        "Independent(Normal(loc: torch.Size([2]), scale: torch.Size([2])), 1)"
    )
    assert repr(D.MultivariateNormal(torch.zeros(2), scale_tril=torch.eye(2))) == (
        "MultivariateNormal(loc: torch.Size([2]), scale_tril: torch.Size([2, 2]))"
    )


def test_supports_constraints_and_flags(torch):
    D, C = torch.distributions, torch.distributions.constraints
    assert repr(D.Normal.support) == "Real()" and repr(D.Exponential.support) == (
        "GreaterThanEq(lower_bound=0.0)"
    )
    assert repr(D.Uniform(0.0, 2.0).support) == "Interval(lower_bound=0.0, upper_bound=2.0)"
    assert repr(D.Categorical(logits=torch.zeros(4)).support) == (
        "IntegerInterval(lower_bound=0, upper_bound=3)"
    )
    assert D.Bernoulli.support is C.boolean and D.Normal.arg_constraints["scale"] is C.positive
    assert C.is_dependent(D.Uniform.support) and C.is_dependent(D.Categorical.support)
    assert D.Categorical.arg_constraints["logits"] is C.real_vector
    assert [D.Normal.has_rsample, D.Bernoulli.has_rsample, D.Categorical.has_rsample] == [
        True,
        False,
        False,
    ]
    assert D.Bernoulli.has_enumerate_support and not D.Normal.has_enumerate_support
    assert isinstance(D.Normal(0.0, 1.0), D.ExponentialFamily)
    with pytest.raises(NotImplementedError):
        D.Bernoulli(0.5).rsample()


def test_constraint_checks(torch):
    C = torch.distributions.constraints
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0])
    checks = {
        C.real: [1, 1, 1, 1, 1],
        C.positive: [0, 0, 1, 1, 1],
        C.nonnegative: [0, 1, 1, 1, 1],
        C.unit_interval: [0, 1, 1, 1, 0],
        C.interval(0.0, 2.0): [0, 1, 1, 1, 1],
        C.half_open_interval(0.0, 2.0): [0, 1, 1, 1, 0],
        C.greater_than(0.5): [0, 0, 0, 1, 1],
        C.greater_than_eq(0.5): [0, 0, 1, 1, 1],
        C.less_than(0.5): [1, 1, 0, 0, 0],
        C.boolean: [0, 1, 0, 1, 0],
        C.integer_interval(0, 1): [0, 1, 0, 1, 0],
        C.nonnegative_integer: [0, 1, 0, 1, 1],
        C.positive_integer: [0, 0, 0, 1, 1],
    }
    for constraint, expected in checks.items():
        result = constraint.check(x)
        assert result.dtype == torch.bool and result.tolist() == [bool(e) for e in expected]
    assert C.simplex.check(torch.tensor([[0.2, 0.8], [0.5, 0.6]])).tolist() == [True, False]
    assert C.real_vector.check(torch.tensor([[0.0, 1.0], [float("nan"), 1.0]])).tolist() == [
        True,
        False,
    ]
    assert C.independent(C.positive, 2).check(torch.ones(3, 2, 2)).shape == (3,)
    assert C.lower_cholesky.check(torch.tensor([[1.0, 0.0], [3.0, 2.0]])).item() is True
    assert C.positive_definite.check(torch.tensor([[2.0, 1.0], [1.0, 2.0]])).item() is True
    assert C.positive_definite.check(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).item() is False
    assert C.one_hot.check(torch.tensor([[0.0, 1.0], [1.0, 1.0]])).tolist() == [True, False]
    assert (C.simplex.event_dim, C.real_vector.event_dim, C.boolean.is_discrete) == (1, 1, True)
    assert repr(C.unit_interval) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert repr(C.positive_integer) == "IntegerGreaterThan(lower_bound=1)"
    with pytest.raises(ValueError):
        C.dependent.check(x)


def test_enumerate_support_and_discrete_moments(torch):
    D = torch.distributions
    b = D.Bernoulli(probs=torch.tensor([0.2, 0.5]))
    assert b.enumerate_support().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert tuple(b.enumerate_support(expand=False).shape) == (2, 1)
    c = D.Categorical(logits=torch.zeros(2, 3))
    assert c.enumerate_support().tolist() == [[0, 0], [1, 1], [2, 2]]
    assert c.mean.isnan().all() and tuple(c.variance.shape) == (2,)
    assert c.param_shape == (2, 3) and b.param_shape == (2,)
