"""Transforms and TransformedDistribution as PyTorch's: inverses, caching, domains, signs,
log-determinants, equality, reprs and the shapes a TransformedDistribution takes. Each test
runs with leafgrad and with PyTorch."""

import math

import numpy as np
import pytest


def _all_transforms(T, torch):
    return [
        T.ExpTransform(),
        T.AffineTransform(0.5, -2.0),
        T.AffineTransform(
            torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64),
            torch.tensor([0.5, 1.5, -1.0], dtype=torch.float64),
        ),
        T.SigmoidTransform(),
        T.TanhTransform(),
        T.SoftplusTransform(),
        T.PowerTransform(torch.tensor(3.0, dtype=torch.float64)),
        T.ComposeTransform([T.SoftplusTransform(), T.PowerTransform(0.5)]),
    ]


def test_every_bijection_inverts_and_its_log_det_is_the_log_derivative(torch):
    T = torch.distributions.transforms
    x = torch.tensor([-1.5, 0.25, 2.0], dtype=torch.float64)
    for t in _all_transforms(T, torch):
        if isinstance(t.domain, type(torch.distributions.constraints.positive)):
            x = x.abs()
        y = t(x)
        assert t.bijective and torch.allclose(t.inv(y), x)
        assert torch.allclose(t.inv.log_abs_det_jacobian(y, x), -t.log_abs_det_jacobian(x, y))
        xg = x.clone().requires_grad_()
        (dy,) = torch.autograd.grad(t(xg).sum(), xg)  # elementwise maps: dy/dx per element
        assert torch.allclose(t.log_abs_det_jacobian(x, y), dy.abs().log())


def test_domains_codomains_signs_and_event_dims(torch):
    T, C = torch.distributions.transforms, torch.distributions.constraints
    assert repr(T.ExpTransform().codomain) == "GreaterThan(lower_bound=0.0)"
    assert repr(T.SigmoidTransform().codomain) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert repr(T.TanhTransform().codomain) == "Interval(lower_bound=-1.0, upper_bound=1.0)"
    assert T.ExpTransform().inv.domain is C.positive and T.ExpTransform().inv.codomain is C.real
    assert not T.AbsTransform().bijective and T.AbsTransform().inv(torch.tensor(2.0)) == 2.0
    assert [T.AffineTransform(0.0, s).sign for s in (2.0, -1.0, 0.0)] == [1, -1, 0]
    assert T.AffineTransform(0.0, torch.tensor([-2.0, 3.0])).sign.tolist() == [-1.0, 1.0]
    assert T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -1.0)]).sign == -1
    affine = T.AffineTransform(1.0, 2.0, event_dim=1)
    assert affine.event_dim == 1 and repr(affine.domain) == "IndependentConstraint(Real(), 1)"
    compose = T.ComposeTransform([T.ExpTransform(), affine])
    assert repr(compose.domain) == "IndependentConstraint(Real(), 1)"
    assert repr(compose.codomain) == "IndependentConstraint(Real(), 1)"
    assert C.is_dependent(T.AffineTransform.domain) and C.is_dependent(T.ComposeTransform.domain)
    assert T.identity_transform.domain is C.real and T.identity_transform.sign == 1
    x = torch.tensor([[0.0, 1.0, 2.0]])
    ladj = affine.log_abs_det_jacobian(x, affine(x))
    assert tuple(ladj.shape) == (1,) and ladj.item() == pytest.approx(3 * math.log(2.0))


def test_cache_size_one_returns_the_very_input_on_inversion(torch):
    T = torch.distributions.transforms
    x = torch.tensor([0.5, 1.0])
    cached = T.ExpTransform(cache_size=1)
    y = cached(x)
    assert cached.inv(y) is x and cached(x) is y
    assert T.ExpTransform().inv(T.ExpTransform()(x)) is not x
    assert cached.with_cache(1) is cached and cached.with_cache(0)._cache_size == 0
    assert T.AffineTransform(1.0, 2.0).with_cache(1)._cache_size == 1
    assert T.ComposeTransform([T.ExpTransform()], cache_size=1).parts[0]._cache_size == 1
    assert T.ExpTransform().inv.with_cache(1).inv._cache_size == 1
    with pytest.raises(ValueError, match="cache_size"):
        T.ExpTransform(cache_size=2)


def test_inverse_equality_and_repr(torch):
    T = torch.distributions.transforms
    t = T.ExpTransform()
    assert t.inv.inv is t and t.inv is t.inv
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
    assert T.ExpTransform().inv == T.ExpTransform().inv
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.PowerTransform(torch.tensor(2.0)) == T.PowerTransform(2.0)
    assert T.ComposeTransform([t, T.TanhTransform()]) == T.ComposeTransform([t, T.TanhTransform()])
    compose = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)])
    assert compose.inv.inv is compose
    assert repr(compose) == "ComposeTransform(\n    ExpTransform(),\n    AffineTransform()\n)"
    assert repr(compose.inv) == (
        "ComposeTransform(\n    _InverseTransform(AffineTransform()),\n"
        "    _InverseTransform(ExpTransform())\n)"
    )
    assert repr(t.inv) == "_InverseTransform(ExpTransform())"
    assert T.PowerTransform(torch.tensor([1.0, 2.0])).forward_shape((3, 1)) == (3, 2)


def test_transformed_distribution_shapes_support_and_expand(torch):
    D, T = torch.distributions, torch.distributions.transforms
    base = D.Normal(torch.zeros(3), 1.0)
    d = D.TransformedDistribution(base, [T.AffineTransform(torch.ones(2, 1), 2.0)])
    assert (tuple(d.batch_shape), tuple(d.event_shape)) == ((2, 3), ())
    assert tuple(d.base_dist.batch_shape) == (2, 3)
    e = D.TransformedDistribution(base, T.AffineTransform(0.0, -2.0, event_dim=1))
    assert (tuple(e.batch_shape), tuple(e.event_shape)) == ((), (3,))
    assert type(e.base_dist) is D.Independent
    assert repr(e.support) == "IndependentConstraint(Real(), 1)" and repr(d) == (
        "TransformedDistribution()"
    )
    assert D.TransformedDistribution(base, []).support is base.support
    assert tuple(d.sample((4,)).shape) == (4, 2, 3) and d.has_rsample
    x = d.expand((5, 2, 3))
    assert tuple(x.batch_shape) == (5, 2, 3) and tuple(x.log_prob(torch.zeros(5, 2, 3)).shape) == (
        5,
        2,
        3,
    )
    lognormal = D.LogNormal(torch.zeros(2), 1.0).expand((3, 2))
    assert type(lognormal) is D.LogNormal and tuple(lognormal.loc.shape) == (3, 2)
    assert type(D.HalfNormal(1.0).expand((2,))) is D.HalfNormal
    for bad in ("exp", [T.ExpTransform(), "exp"]):
        with pytest.raises(ValueError):
            D.TransformedDistribution(base, bad)
    with pytest.raises(ValueError, match="at least"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), T.AffineTransform(0.0, 1.0, event_dim=1))


def test_a_decreasing_transform_flips_the_cdf(torch):
    D, T = torch.distributions, torch.distributions.transforms
    base = D.Normal(0.0, 1.0)
    flipped = D.TransformedDistribution(base, T.AffineTransform(0.0, -1.0))
    x = torch.tensor([-1.0, 0.3])
    assert torch.allclose(flipped.cdf(x), 1 - base.cdf(-x))
    assert torch.allclose(flipped.icdf(flipped.cdf(x)), x, atol=1e-6)


def test_lognormal_and_halfnormal_reprs_constraints_and_validation(torch):
    D = torch.distributions
    assert repr(D.LogNormal(0.0, 1.0)) == "LogNormal()" and repr(D.HalfNormal(1.0)) == (
        "HalfNormal()"
    )
    assert repr(D.LogNormal.support) == "GreaterThan(lower_bound=0.0)"
    assert repr(D.HalfNormal.support) == "GreaterThanEq(lower_bound=0.0)"
    assert D.LogNormal.has_rsample and D.HalfNormal(1.0).has_rsample
    for build in (lambda: D.LogNormal(0.0, -1.0), lambda: D.HalfNormal(torch.tensor([1.0, 0.0]))):
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            build()
    with pytest.raises(ValueError, match="within the support"):
        D.LogNormal(0.0, 1.0).log_prob(torch.tensor(-1.0))
    with pytest.raises(ValueError, match="within the support"):
        D.HalfNormal(1.0).log_prob(torch.tensor(-1.0))
    draws = D.LogNormal(torch.zeros(3, dtype=torch.float64), 1.0).sample((2,))
    assert draws.dtype == torch.float64 and bool((draws > 0).all())
    assert np.all(D.HalfNormal(2.0).sample((50,)).numpy() >= 0)
