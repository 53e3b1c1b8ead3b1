"""The Distribution protocol of the extreme-value, mixture, low-rank, relaxed and count
families added last, as PyTorch's: how they are built (transforms, base_dist), shapes,
expand, validation (ValueError), reprs, supports and flags. Each test runs with leafgrad and
with PyTorch."""

import pytest


def _shapes(d):
    return tuple(d.batch_shape), tuple(d.event_shape)


def _names(transforms):
    return [repr(t) for t in transforms]


def test_transformed_families_are_built_from_pytorchs_base_and_transforms(torch):
    D = torch.distributions
    gumbel = D.Gumbel(0.0, 1.0)
    assert type(gumbel.base_dist) is D.Uniform and _names(gumbel.transforms) == [
        "_InverseTransform(ExpTransform())",
        "AffineTransform()",
        "_InverseTransform(ExpTransform())",
        "AffineTransform()",
    ]
    assert gumbel.base_dist.low.item() == torch.finfo(torch.float32).tiny
    assert _names(D.Weibull(1.0, 2.0).transforms) == ["PowerTransform()", "AffineTransform()"]
    assert type(D.Weibull(1.0, 2.0).base_dist) is D.Exponential
    assert _names(D.Pareto(1.0, 2.0).transforms) == ["ExpTransform()", "AffineTransform()"]
    assert type(D.HalfCauchy(1.0).base_dist) is D.Cauchy
    inverse_gamma = D.InverseGamma(2.0, 3.0)
    assert type(inverse_gamma.base_dist) is D.Gamma
    assert inverse_gamma.transforms[0].exponent.item() == -1.0
    assert _names(D.Kumaraswamy(1.0, 2.0).transforms) == [
        "PowerTransform()",
        "AffineTransform()",
        "PowerTransform()",
    ]
    relaxed = D.RelaxedBernoulli(torch.tensor(0.5), torch.tensor(0.3))
    assert type(relaxed.base_dist).__name__ == "LogitRelaxedBernoulli"
    assert _names(relaxed.transforms) == ["SigmoidTransform()"]
    one_hot = D.RelaxedOneHotCategorical(torch.tensor(0.5), torch.ones(3))
    assert type(one_hot.base_dist).__name__ == "ExpRelaxedCategorical"
    logistic = D.LogisticNormal(torch.zeros(3), 1.0)
    assert type(logistic.base_dist) is D.Independent
    assert _names(logistic.transforms) == ["StickBreakingTransform()"]
    assert _shapes(logistic) == ((), (4,)) and _shapes(D.LogisticNormal(0.0, 1.0)) == ((), (2,))
    assert isinstance(D.OneHotCategoricalStraightThrough(torch.ones(3)), D.OneHotCategorical)


def test_batch_and_event_shapes(torch):
    D = torch.distributions
    assert _shapes(D.Gumbel(torch.zeros(3, 1), torch.ones(2))) == ((3, 2), ())
    assert _shapes(D.FisherSnedecor(2.0, 3.0)) == ((), ())
    assert _shapes(D.NegativeBinomial(3.0, torch.ones(2) / 2)) == ((2,), ())
    assert _shapes(D.Multinomial(5, torch.ones(2, 4))) == ((2,), (4,))
    low_rank = D.LowRankMultivariateNormal(torch.zeros(2, 3), torch.ones(3, 1), torch.ones(3))
    assert _shapes(low_rank) == ((2,), (3,)) and tuple(low_rank.cov_factor.shape) == (2, 3, 1)
    mixture = D.MixtureSameFamily(D.Categorical(torch.ones(2, 3)), D.Normal(torch.zeros(2, 3), 1.0))
    assert _shapes(mixture) == ((2,), ())
    event = D.MixtureSameFamily(
        D.Categorical(torch.ones(3)), D.Independent(D.Normal(torch.zeros(3, 2), 1.0), 1)
    )
    assert _shapes(event) == ((), (2,))
    assert _shapes(D.ContinuousBernoulli(0.3)) == ((), ())
    assert _shapes(D.RelaxedOneHotCategorical(torch.tensor(1.0), torch.ones(2, 5))) == ((2,), (5,))


def test_expand_keeps_the_type_and_broadcasts_the_parameters(torch):
    D = torch.distributions
    scalar_batch = [
        D.Gumbel(torch.zeros(2), 1.0),
        D.Weibull(torch.ones(2), 2.0),
        D.Pareto(torch.ones(2), 3.0),
        D.HalfCauchy(torch.ones(2)),
        D.InverseGamma(torch.ones(2), 2.0),
        D.Kumaraswamy(torch.ones(2), 2.0),
        D.FisherSnedecor(torch.ones(2), 3.0),
        D.NegativeBinomial(3.0, torch.ones(2) / 2),
        D.ContinuousBernoulli(torch.ones(2) / 3),
        D.RelaxedBernoulli(torch.tensor(0.5), torch.ones(2) / 3),
        D.MixtureSameFamily(D.Categorical(torch.ones(2, 3)), D.Normal(torch.zeros(2, 3), 1.0)),
    ]
    for d in scalar_batch:
        e = d.expand((3, 2))
        assert type(e) is type(d) and _shapes(e) == ((3, 2), ())
        assert tuple(e.sample().shape) == (3, 2)
    vector_batch = [
        D.Multinomial(4, torch.ones(4)),
        D.LowRankMultivariateNormal(torch.zeros(4), torch.ones(4, 2), torch.ones(4)),
        D.RelaxedOneHotCategorical(torch.tensor(0.5), torch.ones(4)),
        D.OneHotCategoricalStraightThrough(torch.ones(4)),
    ]
    for d in vector_batch:
        e = d.expand((3,))
        assert type(e) is type(d) and _shapes(e) == ((3,), (4,))
        assert tuple(e.sample().shape) == (3, 4)
    logistic = D.LogisticNormal(torch.zeros(3), 1.0).expand((2,))
    assert type(logistic) is D.LogisticNormal and _shapes(logistic) == ((2,), (4,))


def test_invalid_parameters_raise_value_error(torch):
    D = torch.distributions
    bad = [
        lambda: D.Gumbel(0.0, -1.0),
        lambda: D.Weibull(1.0, 0.0),
        lambda: D.Pareto(-1.0, 1.0),
        lambda: D.HalfCauchy(torch.tensor([1.0, -1.0])),
        lambda: D.InverseGamma(1.0, -2.0),
        lambda: D.Kumaraswamy(0.0, 1.0),
        lambda: D.FisherSnedecor(-1.0, 2.0),
        lambda: D.NegativeBinomial(-1.0, torch.tensor(0.5)),
        lambda: D.NegativeBinomial(2.0, torch.tensor(1.0)),
        lambda: D.Multinomial(3, torch.tensor([0.5, -0.5])),
        lambda: D.LowRankMultivariateNormal(
            torch.tensor([0.0, float("nan")]), torch.ones(2, 1), torch.ones(2)
        ),
        lambda: D.RelaxedBernoulli(torch.tensor(1.0), torch.tensor(1.5)),
        lambda: D.LogisticNormal(torch.zeros(2), -1.0),
    ]
    for build in bad:
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            build()
    with pytest.raises(ValueError, match="invalid values"):
        D.ContinuousBernoulli(torch.tensor(1.5), validate_args=True)
    with pytest.raises(NotImplementedError):
        D.Multinomial(torch.tensor(3), torch.ones(2))
    with pytest.raises(ValueError):
        D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(torch.zeros(2), 1.0))
    with pytest.raises(ValueError):
        D.MixtureSameFamily(D.Categorical(torch.ones(3)), D.Normal(torch.zeros(2), 1.0))
    with pytest.raises(ValueError):
        D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(3, 1), torch.ones(2))
    with pytest.raises(ValueError):
        D.NegativeBinomial(2.0)


def test_values_outside_the_support_raise_value_error(torch):
    D = torch.distributions
    outside = [
        (D.Weibull(1.0, 2.0), torch.tensor(-1.0)),
        (D.Pareto(2.0, 1.0), torch.tensor(1.5)),
        (D.HalfCauchy(1.0), torch.tensor(-1.0)),
        (D.InverseGamma(1.0, 1.0), torch.tensor(0.0)),
        (D.Kumaraswamy(1.0, 1.0), torch.tensor(1.5)),
        (D.FisherSnedecor(1.0, 1.0), torch.tensor(-1.0)),
        (D.NegativeBinomial(2.0, torch.tensor(0.5)), torch.tensor(1.5)),
        (D.Multinomial(3, torch.ones(2)), torch.tensor([-1.0, 2.0])),
        (D.ContinuousBernoulli(torch.tensor(0.3)), torch.tensor(1.5)),
        (D.RelaxedBernoulli(torch.tensor(1.0), torch.tensor(0.3)), torch.tensor(1.5)),
        (D.LogisticNormal(torch.zeros(2), 1.0), torch.tensor([0.5, 0.6, 0.3])),
    ]
    for d, value in outside:
        with pytest.raises(ValueError, match="within the support"):
            d.log_prob(value)


def test_reprs(torch):
    D = torch.distributions
    assert repr(D.Gumbel(0.0, 1.0)) == "Gumbel(loc: 0.0, scale: 1.0)"
    assert repr(D.Weibull(1.0, 2.0)) == "Weibull(scale: 1.0, concentration: 2.0)"
    assert repr(D.Pareto(1.0, 2.0)) == "Pareto(alpha: 2.0, scale: 1.0)"
    assert repr(D.Kumaraswamy(1.0, 2.0)) == "Kumaraswamy(concentration1: 1.0, concentration0: 2.0)"
    assert repr(D.FisherSnedecor(2.0, 3.0)) == "FisherSnedecor(df1: 2.0, df2: 3.0)"
    assert [repr(D.InverseGamma(2.0, 3.0)), repr(D.HalfCauchy(1.0))] == [
        "InverseGamma()",
        "HalfCauchy()",
    ]
    assert repr(D.NegativeBinomial(3.0, torch.tensor(0.5))) == (
        "NegativeBinomial(total_count: 3.0, probs: 0.5)"
    )
    assert repr(D.Multinomial(3, torch.ones(2))) == "Multinomial()"
    assert repr(D.ContinuousBernoulli(torch.tensor(0.25))) == "ContinuousBernoulli(probs: 0.25)"
    low_rank = D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2))
    assert repr(low_rank) == (
        "LowRankMultivariateNormal(loc: torch.Size([2]), cov_factor: torch.Size([2, 1]), "
        "cov_diag: torch.Size([2]))"
    )
    mixture = D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), 1.0))
    assert repr(mixture) == (
        "MixtureSameFamily(\n  Categorical(probs: torch.Size([2]), logits: torch.Size([2])),\n"
        "  Normal(loc: torch.Size([2]), scale: torch.Size([2])))"
    )


def test_supports_constraints_and_flags(torch):
    D, C = torch.distributions, torch.distributions.constraints
    assert repr(D.Pareto(2.0, 1.0).support) == "GreaterThanEq(lower_bound=2.0)"
    assert C.is_dependent(D.Pareto.support) and C.is_dependent(D.Multinomial.support)
    assert D.Multinomial(3, torch.ones(2)).support.upper_bound == 3
    assert D.LogisticNormal.support is C.simplex and D.RelaxedOneHotCategorical.support is C.simplex
    assert D.NegativeBinomial.support is C.nonnegative_integer
    mixture = D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Gamma(torch.ones(2), 1.0))
    assert repr(mixture.support) == ("MixtureSameFamilyConstraint(GreaterThanEq(lower_bound=0.0))")
    assert mixture.support.check(torch.tensor([1.0, -1.0])).tolist() == [True, False]
    rsample = [
        D.Weibull(1.0, 2.0),
        D.Gumbel(0.0, 1.0),
        D.Pareto(1.0, 2.0),
        D.HalfCauchy(1.0),
        D.InverseGamma(1.0, 1.0),
        D.Kumaraswamy(1.0, 1.0),
        D.FisherSnedecor(1.0, 2.0),
        D.ContinuousBernoulli(0.3),
        D.RelaxedBernoulli(torch.tensor(1.0), torch.tensor(0.3)),
        D.LogisticNormal(torch.zeros(2), 1.0),
        D.OneHotCategoricalStraightThrough(torch.ones(2)),
    ]
    assert all(d.has_rsample for d in rsample)
    assert not D.MixtureSameFamily.has_rsample and not D.NegativeBinomial.has_rsample
    assert isinstance(D.ContinuousBernoulli(0.3), D.ExponentialFamily)
    with pytest.raises(NotImplementedError):
        D.NegativeBinomial(2.0, torch.tensor(0.5)).rsample()
    with pytest.raises(NotImplementedError):
        D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), 1.0)).rsample()


def test_moments_that_do_not_exist_are_nan_or_inf(torch):
    D = torch.distributions
    f = D.FisherSnedecor(torch.tensor([1.0, 3.0, 6.0]), torch.tensor([1.5, 3.0, 6.0]))
    assert str(f.mean.tolist()) == "[nan, 3.0, 1.5]"
    assert str(f.mode.tolist()[0]) == "nan" and str(f.variance.tolist()[:2]) == "[nan, nan]"
    g = D.InverseGamma(torch.tensor([0.5, 1.5, 3.0]), 1.0)
    assert str(g.mean.tolist()[0]) == "inf" and str(g.variance.tolist()[:2]) == "[inf, inf]"
    p = D.Pareto(1.0, torch.tensor([0.5, 1.5, 3.0]))
    assert str(p.mean.tolist()[0]) == "inf" and str(p.variance.tolist()[:2]) == "[inf, inf]"
    assert str(D.HalfCauchy(torch.ones(2)).mean.tolist()) == "[inf, inf]"
    assert str(D.Kumaraswamy(torch.tensor([0.5, 2.0]), 2.0).mode.tolist()) == "[nan, nan]"
    assert D.Multinomial(4, torch.tensor([0.25, 0.75])).mean.tolist() == [1.0, 3.0]


def test_parameters_that_do_not_broadcast_raise_runtime_error(torch):
    D = torch.distributions
    words = r"The size of tensor a \(2\) must match the size of tensor b \(3\)"
    for build in (
        lambda: D.Normal(torch.zeros(2), torch.ones(3)),
        lambda: D.Gamma(torch.ones(2), torch.ones(3)),
        lambda: D.Uniform(torch.zeros(2), torch.ones(3)),
        lambda: D.Categorical(torch.ones(3, 3), validate_args=False).log_prob(torch.tensor([0, 1])),
    ):
        with pytest.raises(RuntimeError, match=words):
            build()


def test_bernoulli_refuses_an_integer_value(torch):
    D = torch.distributions
    for dtype, logits_dtype, words in (
        (
            torch.int64,
            torch.float32,
            "result type Float can't be cast to the desired output type Long",
        ),
        (
            torch.int32,
            torch.float64,
            "result type Double can't be cast to the desired output type Int",
        ),
    ):
        d = D.Bernoulli(logits=torch.tensor([0.3, -0.2], dtype=logits_dtype), validate_args=False)
        with pytest.raises(RuntimeError, match=words):
            d.log_prob(torch.tensor([1, 0], dtype=dtype))
    d = D.Bernoulli(probs=torch.tensor([0.3, 0.7]))
    assert torch.allclose(d.log_prob(torch.tensor([1.0, 0.0])), torch.log(torch.tensor([0.3, 0.3])))


def test_multivariate_normal_log_prob_of_a_float64_value_is_in_the_scale_trils_dtype(torch):
    D = torch.distributions
    d = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
    lp = d.log_prob(torch.tensor([0.0, 1.0], dtype=torch.float64))
    assert lp.dtype == torch.float32
    assert abs(lp.item() + 2.337877) < 1e-5
    f64 = torch.float64
    d64 = D.MultivariateNormal(torch.zeros(2, dtype=f64), torch.eye(2, dtype=f64))
    assert d64.log_prob(torch.tensor([0.0, 1.0])).dtype == torch.float64


def test_mixture_support_check_gives_one_answer_per_sample(torch):
    D = torch.distributions
    components = D.Independent(D.Normal(torch.zeros(3, 2), 1.0), 1)
    d = D.MixtureSameFamily(D.Categorical(torch.ones(3)), components)
    value = torch.tensor([[0.0, 1.0], [float("nan"), 0.0], [2.0, 3.0]])
    assert d.support.check(value).tolist() == [True, False, True]
    assert tuple(d.support.check(torch.zeros(4, 5, 2)).shape) == (4, 5)
    with pytest.raises(IndexError):  # the unsqueeze fails before the dim check
        d.support.check(torch.tensor(0.0))
