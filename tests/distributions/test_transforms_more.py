"""The transforms onto simplices and matrices, the rearranging ones, and the constraint
registries ``biject_to`` / ``transform_to``, as PyTorch's. Each behaviour test runs with
leafgrad and with PyTorch; values and derivatives are compared against PyTorch."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

_rng = np.random.default_rng(37)


def _bijections(T, torch):
    return [
        (T.StickBreakingTransform(), (2, 3)),
        (T.CorrCholeskyTransform(), (2, 6)),
        (T.ReshapeTransform((2, 3), (3, 2)), (4, 2, 3)),
        (T.IndependentTransform(T.ExpTransform(), 1), (2, 3)),
        (T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=-1, lengths=[2, 1]), (2, 3)),
        (T.StackTransform([T.ExpTransform(), T.TanhTransform()], dim=-1), (3, 2)),
        (T.CumulativeDistributionTransform(torch.distributions.Normal(0.0, 1.0)), (2, 3)),
    ]


def test_every_bijection_inverts_and_lands_in_its_codomain(torch):
    T = torch.distributions.transforms
    for t, shape in _bijections(T, torch):
        x = torch.tensor(_rng.uniform(-1, 1, shape))
        y = t(x)
        assert t.bijective and bool(t.codomain.check(y).all()), t
        assert torch.allclose(t.inv(y), x), t
        assert tuple(y.shape) == tuple(t.forward_shape(x.shape)), t
        assert tuple(t.inverse_shape(y.shape)) == tuple(x.shape), t


def test_non_bijections_map_into_their_codomain(torch):
    T, C = torch.distributions.transforms, torch.distributions.constraints
    x = torch.tensor(_rng.uniform(-1, 1, (2, 3, 3)))
    for t in (T.SoftmaxTransform(), T.LowerCholeskyTransform(), T.PositiveDefiniteTransform()):
        assert not t.bijective and bool(t.codomain.check(t(x)).all())
    assert torch.allclose(
        T.PositiveDefiniteTransform().inv(T.PositiveDefiniteTransform()(x)),
        x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).diag_embed(),
    )
    assert C.corr_cholesky.check(T.CorrCholeskyTransform()(torch.zeros(3))).item()


def test_domains_codomains_equality_and_reprs(torch):
    T, C = torch.distributions.transforms, torch.distributions.constraints
    assert (
        T.SoftmaxTransform().codomain is C.simplex
        and T.StickBreakingTransform().domain is C.real_vector
    )
    assert T.CorrCholeskyTransform().codomain is C.corr_cholesky
    assert repr(T.LowerCholeskyTransform().domain) == "IndependentConstraint(Real(), 2)"
    assert T.PositiveDefiniteTransform().codomain is C.positive_definite
    assert (
        T.SoftmaxTransform() == T.SoftmaxTransform()
        and T.StickBreakingTransform() == T.StickBreakingTransform()
    )
    assert T.LowerCholeskyTransform() != T.PositiveDefiniteTransform()
    reshape = T.ReshapeTransform((2, 3), (6,))
    assert (
        repr(reshape.domain) == "IndependentConstraint(Real(), 2)"
        and reshape.codomain.event_dim == 1
    )
    independent = T.IndependentTransform(T.ExpTransform(), 1)
    assert repr(independent) == "IndependentTransform(ExpTransform(), 1)"
    assert repr(independent.codomain) == "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"
    cat = T.CatTransform([T.ExpTransform(), independent], dim=0)
    assert repr(cat) == "CatTransform()" and cat.event_dim == 1 and cat.length == 2
    assert cat.domain.event_dim == 1 and type(cat.domain).__name__ == "_Cat"
    stack = T.StackTransform([T.ExpTransform(), T.ExpTransform()], dim=-1)
    assert (
        stack.domain.event_dim == 1
        and repr(T.CumulativeDistributionTransform(torch.distributions.Normal(0.0, 1.0)))
        == "CumulativeDistributionTransform()"
    )
    assert (
        T.CumulativeDistributionTransform(torch.distributions.Exponential(1.0)).domain
        is torch.distributions.Exponential.support
    )
    for t in (reshape, independent, cat, stack):
        assert t.with_cache(1)._cache_size == 1


def test_shape_errors(torch):
    T = torch.distributions.transforms
    with pytest.raises(ValueError):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError):
        T.ReshapeTransform((2, 3), (6,)).forward_shape((3, 2))
    with pytest.raises(ValueError):
        T.CorrCholeskyTransform().forward_shape((4,))
    with pytest.raises(ValueError):
        T.CorrCholeskyTransform().inverse_shape((2, 3))
    with pytest.raises(ValueError):
        T.StickBreakingTransform().forward_shape(())
    assert T.StickBreakingTransform().forward_shape((2, 3)) == (2, 4)
    assert tuple(T.CorrCholeskyTransform().forward_shape((5, 6))) == (5, 4, 4)


def test_biject_to_and_transform_to(torch):
    D = torch.distributions
    C, biject_to, transform_to = D.constraints, D.biject_to, D.transform_to
    names = {
        "real": (biject_to(C.real), "ComposeTransform(\n    \n)"),
        "positive": (
            biject_to(C.positive),
            "ComposeTransform(\n    ExpTransform(),\n    AffineTransform()\n)",
        ),
        "unit": (biject_to(C.unit_interval), "SigmoidTransform()"),
        "interval": (
            biject_to(C.interval(-1.0, 3.0)),
            "ComposeTransform(\n    SigmoidTransform(),\n    AffineTransform()\n)",
        ),
        "simplex": (biject_to(C.simplex), "StickBreakingTransform()"),
        "softmax": (transform_to(C.simplex), "SoftmaxTransform()"),
        "lower_cholesky": (transform_to(C.lower_cholesky), "LowerCholeskyTransform()"),
        "pd": (transform_to(C.positive_definite), "PositiveDefiniteTransform()"),
        "corr": (biject_to(C.corr_cholesky), "CorrCholeskyTransform()"),
        "independent": (biject_to(C.independent(C.positive, 1)), None),
    }
    for name, (t, text) in names.items():
        if text is not None:
            assert repr(t) == text, name
    assert type(names["independent"][0]).__name__ == "IndependentTransform"
    x = torch.tensor([-2.0, 0.0, 3.0])
    for constraint in (
        C.positive,
        C.greater_than(2.0),
        C.less_than(-1.0),
        C.interval(-1.0, 3.0),
        C.half_open_interval(0.0, 2.0),
        C.independent(C.positive, 1),
    ):
        for registry in (biject_to, transform_to):
            assert bool(constraint.check(registry(constraint)(x)).all())
    gamma = D.Gamma(torch.ones(2), 1.0)
    assert biject_to(gamma.support)(torch.tensor([-1.0, 1.0])).min() > 0
    with pytest.raises(NotImplementedError):
        biject_to(C.lower_cholesky)
    with pytest.raises(NotImplementedError):
        biject_to(C.boolean)


def test_register_adds_a_factory_for_a_new_constraint_type(torch):
    D = torch.distributions

    class Odd(D.constraints.Constraint):
        def check(self, value):
            return value > 0

    registry = type(D.biject_to)()
    registry.register(Odd, lambda c: D.transforms.ExpTransform())
    assert repr(registry(Odd())) == "ExpTransform()"

    @registry.register(D.constraints.real)
    def _(constraint):
        return D.transforms.SigmoidTransform()

    assert repr(registry(D.constraints.real)) == "SigmoidTransform()"
    with pytest.raises(TypeError):
        registry.register(3, lambda c: None)


def _stick_breaking(m, x):
    t = m.distributions.transforms.StickBreakingTransform()
    y = t(x)
    return [y, t.log_abs_det_jacobian(x, y), t.inv(y.detach() * 0.9 + 0.1 / 4)]


def _corr_cholesky(m, x):
    t = m.distributions.transforms.CorrCholeskyTransform()
    y = t(x)
    return [y, t.log_abs_det_jacobian(x, y), t.inv(y)]


def _matrices(m, x):
    T = m.distributions.transforms
    return [
        T.SoftmaxTransform()(x[0]),
        T.LowerCholeskyTransform()(x),
        T.PositiveDefiniteTransform()(x),
    ]


def _cat_stack(m, x):
    T = m.distributions.transforms
    cat = T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], dim=-1, lengths=[2, 1])
    stack = T.StackTransform([T.ExpTransform(), T.SoftplusTransform(), T.TanhTransform()], dim=-1)
    cdf = T.CumulativeDistributionTransform(m.distributions.Normal(0.5, 2.0))
    return [
        cat(x),
        cat.log_abs_det_jacobian(x, cat(x)),
        stack(x),
        stack.log_abs_det_jacobian(x, stack(x)),
        cdf.log_abs_det_jacobian(x, cdf(x)),
    ]


@pytest.mark.parametrize(
    "fn, shape",
    [
        (_stick_breaking, (2, 3)),
        (_corr_cholesky, (2, 6)),
        (_matrices, (2, 3, 3)),
        (_cat_stack, (2, 3)),
    ],
)
def test_values_and_derivatives_match_pytorch(fn, shape):
    torch = pytest.importorskip("torch")
    compare(fn, [_rng.uniform(-1, 1, shape)], torch=torch)


def test_logistic_normal_and_stick_breaking_agree_with_pytorch_in_float32():
    torch = pytest.importorskip("torch")
    x = _rng.uniform(-1, 1, (2, 3))
    ours = lg.distributions.transforms.StickBreakingTransform()(lg.tensor(x, dtype=lg.float32))
    theirs = torch.distributions.transforms.StickBreakingTransform()(
        torch.tensor(x, dtype=torch.float32)
    )
    assert ours.dtype == lg.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
