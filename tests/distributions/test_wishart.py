"""Wishart against PyTorch's: log_prob, entropy, moments, the three matrix parameterizations
and the same-family KL (values in float64 and float32, first and second derivatives,
gradcheck); the Distribution protocol with both libraries (validation, warnings, shapes,
expand, lazy matrices, repr, rsample's correction loop); the statistics of leafgrad's
Bartlett draws and the gradients they carry."""

import math
import warnings

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.distributions import constraints
from leafgrad.distributions.exp_family import ExponentialFamily
from leafgrad.distributions.kl import kl_divergence
from leafgrad.distributions.wishart import Wishart
from tests._against_torch import compare
from tests._tolerance import assert_close
from tests.distributions._cases import draws

torch = pytest.importorskip("torch")

_u = draws(43)


def _wishart(m):
    """The class under test in library ``m``."""
    return Wishart if m is lg else m.distributions.Wishart


def _spd(*shape) -> np.ndarray:
    """Random symmetric positive definite matrices (``shape`` ends in ``p, p``)."""
    a = _u(-1, 1, *shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _outputs(d, x):
    return [d.log_prob(x), d.entropy(), d.mean, d.variance]


def _covariance(m, df, cov, x):
    d = _wishart(m)(df, covariance_matrix=cov)
    return [*_outputs(d, x), d.mode, d.precision_matrix, d.scale_tril]


def _precision(m, df, prec, x):
    d = _wishart(m)(df, precision_matrix=prec)
    return [*_outputs(d, x), d.covariance_matrix, d.scale_tril]


def _scale_tril(m, df, tril, x):
    d = _wishart(m)(df, scale_tril=m.tril(tril))
    return [*_outputs(d, x), d.covariance_matrix, d.precision_matrix]


def _number_df(m, cov, x):
    d = _wishart(m)(5.5, covariance_matrix=cov)
    return [*_outputs(d, x), d.mode]


def _kl(m, df_p, cov_p, df_q, cov_q):
    W = _wishart(m)
    p, q = W(df_p, covariance_matrix=cov_p), W(df_q, covariance_matrix=cov_q)
    return [(kl_divergence if m is lg else m.distributions.kl_divergence)(p, q)]


def _bregman_entropy(m, df, cov):
    d = _wishart(m)(df, covariance_matrix=cov)
    family = ExponentialFamily if m is lg else m.distributions.ExponentialFamily
    return [family.entropy(d)]


_L = np.linalg.cholesky(_spd(3, 3))

CASES = {
    "covariance": (_covariance, [np.array([4.5, 7.0]), _spd(2, 3, 3), _spd(4, 2, 3, 3)]),
    "covariance_broadcast_df": (
        _covariance,
        [np.array([[3.5], [6.0]]), _spd(3, 3, 3), _spd(4, 1, 1, 3, 3)],
    ),
    "precision": (_precision, [np.array([1.5, 4.0]), _spd(2, 2, 2), _spd(3, 2, 2, 2)]),
    "scale_tril": (_scale_tril, [np.array(5.0), _L + np.triu(_u(-1, 1, 3, 3), 1), _spd(4, 3, 3)]),
    "number_df": (_number_df, [_spd(4, 4), _spd(2, 4, 4)]),
    "kl": (_kl, [np.array(5.0), _spd(3, 3), np.array(4.0), _spd(3, 3)]),
    "bregman_entropy": (_bregman_entropy, [np.array([5.0, 3.5]), _spd(2, 3, 3)]),
}


def _values(fn, arrays, m, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # low df (1.5 < 2) warns in both
        return fn(m, *[m.tensor(a, dtype=dtype) for a in arrays])


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_pytorch_in_float64(name):
    fn, arrays = CASES[name]
    ours, theirs = _values(fn, arrays, lg, lg.float64), _values(fn, arrays, torch, torch.float64)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype) == "torch.float64"
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_derivatives_match_pytorch_in_float64(name):
    # derivatives in df pass through mvlgamma's derivatives: digamma, and trigamma, which
    # ATen computes to about 1e-9 in float64 (leafgrad's agrees with SciPy's): hence the
    # "iterative" tolerance (1e-8); derivatives in the matrices agree far closer
    fn, arrays = CASES[name]
    compare(fn, arrays, kind="iterative", torch=torch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_parameters_give_float32_results_with_pytorchs_values(name):
    fn, arrays = CASES[name]
    ours, theirs = _values(fn, arrays, lg, lg.float32), _values(fn, arrays, torch, torch.float32)
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype) == "torch.float32"
        assert_close(o, t.detach(), kind="iterative")


def test_gradcheck_and_gradgradcheck_of_log_prob_and_entropy():
    df = lg.tensor([3.5, 6.0], dtype=lg.float64, requires_grad=True)
    a = lg.tensor(_u(-1, 1, 2, 3, 3), dtype=lg.float64, requires_grad=True)
    b = lg.tensor(_u(-1, 1, 3, 1, 3, 3), dtype=lg.float64, requires_grad=True)
    eye = lg.eye(3, dtype=lg.float64)

    def log_prob(df, a, b):
        d = Wishart(df, covariance_matrix=a @ a.mT + eye)
        return d.log_prob(b @ b.mT + eye)

    def log_prob_precision(df, a, b):
        d = Wishart(df, precision_matrix=a @ a.mT + eye)
        return d.log_prob(b @ b.mT + eye)

    def entropy(df, a):
        scale_tril = a.tril(-1) + lg.diag_embed(a.diagonal(0, -2, -1).exp())
        return Wishart(df, scale_tril=scale_tril).entropy()

    for fn, inputs in ((log_prob, (df, a, b)), (log_prob_precision, (df, a, b))):
        assert lg.autograd.gradcheck(fn, inputs)
        assert lg.autograd.gradgradcheck(fn, inputs)
    assert lg.autograd.gradcheck(entropy, (df, a))
    assert lg.autograd.gradgradcheck(entropy, (df, a))


@pytest.fixture(params=["leafgrad", "pytorch"])
def lib(request):
    """(library, Wishart): leafgrad, then PyTorch as the oracle."""
    m = lg if request.param == "leafgrad" else torch
    return m, _wishart(m)


def test_exactly_one_matrix_parameter(lib):
    m, W = lib
    eye = m.eye(2)
    for kwargs in ({}, {"covariance_matrix": eye, "scale_tril": eye}):
        with pytest.raises(AssertionError, match="Exactly one of covariance_matrix"):
            W(3.0, **kwargs)
    with pytest.raises(AssertionError):
        W(3.0, covariance_matrix=eye, precision_matrix=eye, scale_tril=eye)
    with pytest.raises(ValueError, match="must be at least two-dimensional"):
        W(3.0, precision_matrix=m.ones(2))


def test_df_must_exceed_the_dimension_minus_one(lib):
    m, W = lib
    eye = m.eye(3)
    for df in (2.0, 0.5, m.tensor([4.0, 1.5]), m.tensor(2.0)):
        with pytest.raises(ValueError) as info:
            W(df, covariance_matrix=eye)
        assert str(info.value) == f"Value of df={df} expected to be greater than ndim - 1 = 2."
    with pytest.raises(ValueError, match="Expected parameter df"):
        W(m.tensor(float("nan")), covariance_matrix=eye)


def test_df_between_the_dimension_minus_one_and_the_dimension_warns(lib):
    m, W = lib
    with pytest.warns(UserWarning, match="Low df values detected. Singular samples"):
        W(m.tensor([2.5, 4.0]), covariance_matrix=m.eye(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        W(3.0, covariance_matrix=m.eye(3))


def test_invalid_matrices_raise_value_error(lib):
    m, W = lib
    not_pd = m.tensor([[1.0, 2.0], [2.0, 1.0]])
    not_symmetric = m.tensor([[2.0, 1.0], [0.0, 2.0]])
    for kwargs in (
        {"covariance_matrix": not_pd},
        {"covariance_matrix": not_symmetric},
        {"precision_matrix": -m.eye(2)},
        {"scale_tril": m.tensor([[1.0, 0.5], [0.0, 1.0]])},
        {"scale_tril": m.tensor([[1.0, 0.0], [0.5, -1.0]])},
    ):
        with pytest.raises(ValueError, match="to satisfy the constraint"):
            W(3.0, **kwargs)
    # unchecked, the Cholesky factorization fails (LinAlgError, a RuntimeError)
    with pytest.raises(RuntimeError, match=r"linalg\.cholesky"):
        W(3.0, covariance_matrix=not_pd, validate_args=False)


def test_log_prob_validates_the_value(lib):
    m, W = lib
    d = W(m.tensor([3.0, 4.0]), covariance_matrix=m.eye(2))
    for value in (m.tensor([[1.0, 2.0], [2.0, 1.0]]), m.tensor([[2.0, 1.0], [0.0, 2.0]])):
        with pytest.raises(ValueError, match="to be within the support"):
            d.log_prob(value)
    with pytest.raises(ValueError, match="must match event_shape"):
        d.log_prob(m.eye(3))
    with pytest.raises(ValueError, match="not broadcastable"):
        d.log_prob(m.eye(2).expand(3, 2, 2))
    with pytest.raises(ValueError, match="must be a Tensor"):
        d.log_prob([[1.0, 0.0], [0.0, 1.0]])


@pytest.mark.filterwarnings("ignore:Singular sample detected")
def test_shapes_flags_and_constraints(lib):
    m, W = lib
    d = W(m.tensor([[3.5], [6.0]]), precision_matrix=m.eye(3).expand(4, 3, 3))
    assert tuple(d.batch_shape) == (2, 4) and tuple(d.event_shape) == (3, 3)
    assert tuple(d.df.shape) == (2, 4) and d._batch_dims == [-1, -2]
    assert tuple(d.sample((5,)).shape) == (5, 2, 4, 3, 3)
    assert tuple(d.log_prob(m.eye(3)).shape) == (2, 4) and tuple(d.entropy().shape) == (2, 4)
    for name in ("mean", "mode", "variance", "covariance_matrix", "scale_tril"):
        assert tuple(getattr(d, name).shape) == (2, 4, 3, 3), name
    assert d.has_rsample is True and d.has_enumerate_support is False
    assert type(d.support).__name__ == "_PositiveDefinite"
    assert d._mean_carrier_measure == 0
    arg = d.arg_constraints
    assert list(arg) == ["covariance_matrix", "precision_matrix", "scale_tril", "df"]
    assert type(arg["df"]).__name__ == "_GreaterThan" and arg["df"].lower_bound == 2
    assert type(arg["scale_tril"]).__name__ == "_LowerCholesky"
    number = W(3.0, scale_tril=m.eye(2, dtype=m.float64).expand(4, 2, 2))
    assert tuple(number.batch_shape) == (4,) and tuple(number.df.shape) == ()
    assert number.df.dtype == m.float64 and number.df.item() == 3.0
    # PyTorch keeps a Python-number df unexpanded, so the moments' df.view(batch + (1, 1))
    # fails for batched matrices while log_prob, entropy and draws broadcast
    for name in ("mean", "mode", "variance"):
        with pytest.raises(RuntimeError):
            getattr(number, name)
    assert tuple(number.entropy().shape) == (4,) and tuple(number.sample().shape) == (4, 2, 2)


def test_support_is_the_positive_definite_constraint():
    assert Wishart(3.0, covariance_matrix=lg.eye(2)).support is constraints.positive_definite


def test_lazy_matrices_and_repr(lib):
    m, W = lib
    d = W(3.0, covariance_matrix=m.eye(2) * 4)
    assert sorted(k for k in vars(d) if not k.startswith("_")) == ["covariance_matrix", "df"]
    assert repr(d) == "Wishart(covariance_matrix: torch.Size([2, 2]), df: 3.0)"
    np.testing.assert_allclose(d.scale_tril.numpy(), 2 * np.eye(2))
    np.testing.assert_allclose(d.precision_matrix.numpy(), np.eye(2) / 4)
    assert repr(d) == (
        "Wishart(covariance_matrix: torch.Size([2, 2]), precision_matrix: torch.Size([2, 2]), "
        "scale_tril: torch.Size([2, 2]), df: 3.0)"
    )
    batched = W(m.tensor([3.0, 4.0]), scale_tril=m.eye(2))
    assert repr(batched) == "Wishart(scale_tril: torch.Size([2, 2, 2]), df: torch.Size([2]))"


@pytest.mark.filterwarnings("ignore:Singular sample detected")
def test_expand(lib):
    m, W = lib
    d = W(m.tensor([3.0, 4.0]), covariance_matrix=m.tensor([[2.0, 0.5], [0.5, 1.0]]))
    e = d.expand((3, 2))
    assert type(e) is W and tuple(e.batch_shape) == (3, 2) and tuple(e.event_shape) == (2, 2)
    assert tuple(e.df.shape) == (3, 2) and e._batch_dims == [-1, -2]
    assert tuple(e._unbroadcasted_scale_tril.shape) == (3, 2, 2, 2)
    assert tuple(e._dist_chi2.batch_shape) == (3, 2, 2)
    assert sorted(k for k in vars(e) if not k.startswith("_")) == ["covariance_matrix", "df"]
    d.precision_matrix  # noqa: B018 (computed now, so expand carries it)
    e = d.expand((3, 2))
    assert "precision_matrix" in vars(e) and tuple(e.precision_matrix.shape) == (3, 2, 2, 2)
    assert tuple(e.sample((5,)).shape) == (5, 3, 2, 2, 2)
    value = m.tensor([[1.0, 0.2], [0.2, 3.0]])
    np.testing.assert_allclose(
        e.log_prob(value).numpy(), d.log_prob(value).expand(3, 2).numpy(), rtol=1e-6
    )
    np.testing.assert_allclose(e.mean.numpy(), d.mean.expand(3, 2, 2, 2).numpy())
    assert e._validate_args == d._validate_args


def test_mode_is_nan_where_df_is_at_most_the_dimension_plus_one(lib):
    m, W = lib
    cov = m.tensor([[2.0, 0.5], [0.5, 1.0]])
    with pytest.warns(UserWarning, match="Low df values detected"):
        d = W(m.tensor([1.5, 3.0, 3.5]), covariance_matrix=cov)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mode = d.mode.numpy()
    assert np.isnan(mode[:2]).all()
    np.testing.assert_allclose(mode[2], 0.5 * cov.numpy())
    assert np.isnan(W(3.0, covariance_matrix=cov).mode.numpy()).all()


def _run_correction(m, W, scales, tries, batch=(), sample_shape=()):
    """rsample with ``_bartlett_sampling`` replaced: call k returns ``scales[k] * I`` (0 is
    singular); gives the shapes asked for, the result and the warnings."""
    p = 2
    df = m.tensor(3.0).expand(batch) if batch else 3.0
    d = W(df, covariance_matrix=m.eye(p))
    calls = []

    def fake(shape):
        scale = scales[len(calls)]
        calls.append(tuple(shape))
        return (m.eye(p) * scale).expand(tuple(shape) + batch + (p, p)).clone()

    d._bartlett_sampling = fake
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draw = d.rsample(sample_shape, max_try_correction=tries)
    return calls, draw.reshape(-1).tolist(), [str(w.message) for w in caught]


def test_rsample_correction_loop_follows_pytorchs(lib):
    # PyTorch 2.13 first flags the draws that pass the positive-definite check, warns and
    # redraws them; the redraws are then checked the right way round, up to
    # max_try_correction (default 10) times
    m, W = lib
    warned = ["Singular sample detected."]
    assert _run_correction(m, W, [1.0, 0.0, 0.0, 2.0], None) == (
        [(), (1,), (1,), (1,)],
        [2.0, 0.0, 0.0, 2.0],
        warned,
    )
    assert _run_correction(m, W, [1.0, 0.0, 0.0, 2.0], 2) == (
        [(), (1,), (1,)],
        [0.0, 0.0, 0.0, 0.0],
        warned,
    )
    assert _run_correction(m, W, [0.0], None) == ([()], [0.0] * 4, [])
    assert _run_correction(m, W, [1.0, 5.0], 0) == ([()], [1.0, 0.0, 0.0, 1.0], warned)
    calls, draw, caught = _run_correction(m, W, [1.0, 0.0, 3.0], None, (2,), (3,))
    assert calls == [(3,), (3,), (3,)] and draw == [3.0, 0.0, 0.0, 3.0] * 6
    assert caught == warned


def test_rsample_warns_and_redraws_valid_draws_as_pytorch(lib):
    m, W = lib
    d = W(m.tensor([4.0, 6.0], dtype=m.float64), covariance_matrix=m.eye(3, dtype=m.float64))
    m.manual_seed(5)
    first = d._bartlett_sampling(m.Size((4,)))
    m.manual_seed(5)
    with pytest.warns(UserWarning, match="Singular sample detected."):
        unchecked = d.rsample((4,), max_try_correction=0)
    np.testing.assert_array_equal(unchecked.numpy(), first.numpy())
    m.manual_seed(5)
    with pytest.warns(UserWarning, match="Singular sample detected."):
        corrected = d.rsample((4,))
    assert not np.array_equal(corrected.numpy(), first.numpy())
    assert bool(d.support.check(corrected).all())


# leafgrad's draws (its own generator): statistics, not PyTorch's values

N = 20_000


def _quiet_draws(d, shape, method="sample"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Singular sample detected.", as PyTorch
        return getattr(d, method)(shape)


@pytest.mark.parametrize("dtype", [lg.float32, lg.float64])
@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_draws_are_symmetric_positive_definite(dtype, method):
    lg.manual_seed(0)
    df = lg.tensor([3.5, 6.0, 40.0], dtype=dtype, requires_grad=True)
    cov = lg.tensor(_spd(3, 3), dtype=dtype)
    d = Wishart(df, covariance_matrix=cov, validate_args=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        draw = getattr(d, method)((200,))
    assert tuple(draw.shape) == (200, 3, 3, 3) and draw.dtype == dtype
    assert draw.requires_grad is (method == "rsample")
    x = draw.detach().numpy()
    np.testing.assert_array_equal(x, np.swapaxes(x, -1, -2))
    assert (np.linalg.eigvalsh(x.astype(np.float64)) > 0).all()
    assert bool(d.support.check(draw).all())
    assert np.isfinite(d.log_prob(draw).detach().numpy()).all()


def test_draws_have_the_mean_variance_and_log_determinant_of_a_wishart():
    lg.manual_seed(1)
    df = np.array([3.5, 9.0])
    cov = _spd(2, 3, 3)
    d = Wishart(lg.tensor(df), covariance_matrix=lg.tensor(cov))
    x = _quiet_draws(d, (N,)).numpy()
    mean, var = d.mean.numpy(), d.variance.numpy()
    assert (np.abs(x.mean(0) - mean) < 5 * np.sqrt(var / N)).all()
    np.testing.assert_allclose(x.var(0), var, rtol=0.1)
    # E[log det W] = sum_i digamma((df - i) / 2) + p log 2 + log det Sigma, with variance
    # sum_i trigamma((df - i) / 2)
    half = lg.tensor(df[:, None] - np.arange(3)) / 2
    expected = lg.digamma(half).sum(-1).numpy() + 3 * math.log(2) + np.linalg.slogdet(cov)[1]
    sd = np.sqrt(lg.polygamma(1, half).sum(-1).numpy())
    logdet = np.linalg.slogdet(x)[1]
    assert (np.abs(logdet.mean(0) - expected) < 5 * sd / math.sqrt(N)).all()
    np.testing.assert_allclose(logdet.std(0), sd, rtol=0.05)


def test_draws_are_reproducible_under_a_seed():
    d = Wishart(lg.tensor([3.0, 5.0]), scale_tril=lg.eye(2))
    lg.manual_seed(7)
    first = _quiet_draws(d, (3,)).numpy()
    lg.manual_seed(7)
    np.testing.assert_array_equal(_quiet_draws(d, (3,)).numpy(), first)


def test_rsample_carries_pathwise_gradients_to_df_and_scale_tril():
    # E[L A A^T L^T] = df L L^T for the Bartlett factor A, so the average of sum(W) over
    # draws has gradient sum(L L^T) in df and 2 df 1 1^T L in L (any square L)
    lg.manual_seed(2)
    df = lg.tensor(4.5, dtype=lg.float64, requires_grad=True)
    tril = np.linalg.cholesky(_spd(3, 3))
    L = lg.tensor(tril, requires_grad=True)
    draws_ = _quiet_draws(Wishart(df, scale_tril=L), (N,), "rsample")
    draws_.sum((-2, -1)).mean().backward()
    ones = np.ones((3, 3))
    assert df.grad.item() == pytest.approx((tril @ tril.T).sum(), rel=0.03)
    np.testing.assert_allclose(L.grad.numpy(), 2 * 4.5 * ones @ tril, rtol=0.05)


def test_backward_through_batched_draws_works_where_pytorch_raises():
    # PyTorch 2.13's rsample keeps its correction mask as an index and then changes it in
    # place, so backward through draws of a nonempty sample_shape fails there; leafgrad
    # indexes with a copy and carries the gradient (unbatched draws work in both)
    df = torch.tensor(4.5, dtype=torch.float64, requires_grad=True)
    d = torch.distributions.Wishart(df, scale_tril=torch.eye(3, dtype=torch.float64))
    with pytest.warns(UserWarning, match="Singular sample detected."):
        draws_ = d.rsample((5,))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        draws_.sum().backward()
    ours = lg.tensor(4.5, dtype=lg.float64, requires_grad=True)
    lg.manual_seed(3)
    draws_ = _quiet_draws(Wishart(ours, scale_tril=lg.eye(3, dtype=lg.float64)), (5,), "rsample")
    draws_.sum().backward()
    assert math.isfinite(ours.grad.item()) and ours.grad.item() != 0
