"""The Distribution protocol of the families beyond the first seven, as PyTorch's: shapes,
expand, validation (ValueError), repr text, supports and flags. Each test runs with leafgrad
and with PyTorch."""

import pytest


def _shapes(d):
    return tuple(d.batch_shape), tuple(d.event_shape)


def test_batch_and_event_shapes(torch):
    D = torch.distributions
    assert _shapes(D.Gamma(1.0, 2.0)) == ((), ())
    assert _shapes(D.Gamma(torch.ones(3, 1), torch.ones(2))) == ((3, 2), ())
    assert _shapes(D.Beta(0.5, 2.0)) == ((), ()) and _shapes(D.Chi2(torch.ones(2))) == ((2,), ())
    assert _shapes(D.Dirichlet(torch.ones(2, 4))) == ((2,), (4,))
    assert _shapes(D.StudentT(torch.ones(3), 0.0, torch.ones(2, 1))) == ((2, 3), ())
    assert _shapes(D.Binomial(torch.tensor([3.0, 4.0]), probs=0.5)) == ((2,), ())
    assert _shapes(D.OneHotCategorical(logits=torch.zeros(2, 5))) == ((2,), (5,))
    assert _shapes(D.Geometric(0.5)) == ((), ()) and _shapes(D.Poisson(torch.ones(2))) == ((2,), ())


def test_expand_keeps_the_type_and_broadcasts_the_parameters(torch):
    D = torch.distributions
    cases = [
        D.Gamma(torch.ones(2), 2.0),
        D.Chi2(torch.ones(2)),
        D.Beta(torch.ones(2), 0.5),
        D.Laplace(torch.zeros(2), 1.0),
        D.Cauchy(torch.zeros(2), 1.0),
        D.StudentT(torch.ones(2)),
        D.Poisson(torch.ones(2)),
        D.Binomial(5, torch.ones(2) / 2),
        D.Geometric(torch.ones(2) / 2),
        D.LogNormal(torch.zeros(2), 1.0),
        D.HalfNormal(torch.ones(2)),
    ]
    for d in cases:
        e = d.expand((3, 2))
        assert type(e) is type(d) and _shapes(e) == ((3, 2), ())
        assert tuple(e.sample().shape) == (3, 2)
    dirichlet = D.Dirichlet(torch.ones(4)).expand((3,))
    assert _shapes(dirichlet) == ((3,), (4,)) and tuple(dirichlet.concentration.shape) == (3, 4)
    one_hot = D.OneHotCategorical(torch.ones(4)).expand((3,))
    assert _shapes(one_hot) == ((3,), (4,)) and tuple(one_hot.sample().shape) == (3, 4)


def test_invalid_parameters_raise_value_error(torch):
    D = torch.distributions
    bad = [
        lambda: D.Gamma(-1.0, 1.0),
        lambda: D.Gamma(1.0, torch.tensor([1.0, 0.0])),
        lambda: D.Chi2(-2.0),
        lambda: D.Beta(0.0, 1.0),
        lambda: D.Dirichlet(torch.tensor([1.0, -1.0])),
        lambda: D.Laplace(0.0, -1.0),
        lambda: D.Cauchy(0.0, 0.0),
        lambda: D.StudentT(-1.0),
        lambda: D.Poisson(-0.5),
        lambda: D.Binomial(2.5, probs=torch.tensor(0.5)),
        lambda: D.Binomial(3, probs=torch.tensor(1.5)),
        lambda: D.Geometric(1.5),
    ]
    for build in bad:
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            build()
    with pytest.raises(ValueError, match="to be positive"):
        D.Geometric(torch.tensor([0.0, 0.5]))
    for build in (
        lambda: D.Dirichlet(torch.tensor(1.0)),
        lambda: D.Binomial(3),
        lambda: D.Geometric(probs=0.5, logits=0.0),
        lambda: D.OneHotCategorical(),
    ):
        with pytest.raises(ValueError):
            build()


def test_values_outside_the_support_raise_value_error(torch):
    D = torch.distributions
    outside = [
        (D.Gamma(1.0, 1.0), torch.tensor(-1.0)),
        (D.Beta(1.0, 1.0), torch.tensor(1.5)),
        (D.Dirichlet(torch.ones(2)), torch.tensor([0.3, 0.3])),
        (D.Poisson(1.0), torch.tensor(1.5)),
        (D.Binomial(3, torch.tensor(0.5)), torch.tensor(4.0)),
        (D.Geometric(0.5), torch.tensor(-1.0)),
        (D.OneHotCategorical(torch.ones(3)), torch.tensor([1.0, 1.0, 0.0])),
    ]
    for d, value in outside:
        with pytest.raises(ValueError, match="within the support"):
            d.log_prob(value)


def test_reprs(torch):
    D = torch.distributions
    assert repr(D.Gamma(1.0, 2.0)) == "Gamma(concentration: 1.0, rate: 2.0)"
    assert [repr(D.Chi2(3.0)), repr(D.Beta(1.0, 2.0))] == ["Chi2()", "Beta()"]
    assert repr(D.Dirichlet(torch.ones(3))) == "Dirichlet(concentration: torch.Size([3]))"
    assert repr(D.Laplace(0.0, 1.0)) == "Laplace(loc: 0.0, scale: 1.0)"
    assert repr(D.StudentT(3.0)) == "StudentT(df: 3.0, loc: 0.0, scale: 1.0)"
    assert repr(D.Poisson(torch.ones(2))) == "Poisson(rate: torch.Size([2]))"
    assert repr(D.Binomial(5, torch.tensor(0.25))) == "Binomial(total_count: 5.0, probs: 0.25)"
    assert repr(D.Geometric(logits=0.5)) == "Geometric(logits: 0.5)"
    assert repr(D.OneHotCategorical(torch.ones(3))) == "OneHotCategorical()"


def test_supports_constraints_and_flags(torch):
    D, C = torch.distributions, torch.distributions.constraints
    assert repr(D.Gamma.support) == "GreaterThanEq(lower_bound=0.0)"
    assert repr(D.Beta.support) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert D.Dirichlet.support is C.simplex and D.OneHotCategorical.support is C.one_hot
    assert D.Poisson.support is C.nonnegative_integer and D.Geometric.support.is_discrete
    assert repr(D.Binomial(torch.tensor([2.0, 3.0]), torch.tensor(0.5)).support).startswith(
        "IntegerInterval(lower_bound=0, upper_bound="
    )
    assert C.is_dependent(D.Binomial.support)
    assert repr(D.Dirichlet.arg_constraints["concentration"]) == (
        "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"
    )
    rsample = [D.Gamma, D.Chi2, D.Beta, D.Dirichlet, D.Laplace, D.Cauchy, D.StudentT]
    assert all(cls.has_rsample for cls in rsample)
    assert not any(cls.has_rsample for cls in (D.Poisson, D.Binomial, D.Geometric))
    assert D.Binomial.has_enumerate_support and D.OneHotCategorical.has_enumerate_support
    assert all(isinstance(d, D.ExponentialFamily) for d in (D.Gamma(1.0, 1.0), D.Poisson(1.0)))
    with pytest.raises(NotImplementedError):
        D.Poisson(1.0).rsample()


def test_enumerate_support_and_the_entropy_of_inhomogeneous_counts(torch):
    D = torch.distributions
    b = D.Binomial(2, torch.tensor([0.2, 0.5]))
    assert b.enumerate_support().tolist() == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    assert tuple(b.enumerate_support(expand=False).shape) == (3, 1)
    o = D.OneHotCategorical(logits=torch.zeros(2, 3))
    assert tuple(o.enumerate_support().shape) == (3, 2, 3)
    assert o.enumerate_support(expand=False)[:, 0].tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    mixed = D.Binomial(torch.tensor([2.0, 3.0]), torch.tensor([0.2, 0.5]))
    for method in (mixed.entropy, mixed.enumerate_support):
        with pytest.raises(NotImplementedError, match="Inhomogeneous"):
            method()


def test_studentt_moments_by_degrees_of_freedom(torch):
    d = torch.distributions.StudentT(torch.tensor([0.5, 1.5, 3.0]), 1.0, 2.0)
    assert str(d.mean.tolist()) == "[nan, 1.0, 1.0]"
    assert str(d.variance.tolist()) == "[nan, inf, 12.0]"
