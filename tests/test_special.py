"""leafgrad.special (and torch.lgamma, digamma, polygamma, mvlgamma, i0, logit, xlogy,
igamma) against PyTorch: values, first and second derivatives in float64, values at the
awkward points, dtype promotion, and which functions have no derivative.

Some of PyTorch's kernels are less accurate than SciPy's (checked against mpmath):
trigamma (``polygamma(1, x)``, hence the second derivatives of lgamma and the first of
digamma) to about 1e-10, ``bessel_j0``/``j1``/``y0``/``y1`` to about 1e-8 and ``airy_ai`` to
about 1e-6; those compare at PyTorch's accuracy.
"""

import math

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

rng = np.random.default_rng(2)


def _u(lo, hi, *shape):
    return rng.uniform(lo, hi, size=shape or (2, 3))


POSITIVE, ANY, UNIT = _u(0.2, 4.0), _u(-3.0, 3.0), _u(0.05, 0.95)

# The cases whose derivatives involve PyTorch's trigamma
TRIGAMMA = {"gammaln-lgamma", "digamma-psi", "polygamma", "multigammaln"}

CASES = {
    "erf-erfc-erfinv": (
        lambda m, x: m.special.erf(x) + m.special.erfc(x) * m.special.erfinv(x * 0.3),
        [ANY],
    ),
    "erfcx": (lambda m, x: m.special.erfcx(x), [ANY]),
    "expit-logit": (lambda m, x, p: m.special.expit(x) + m.special.logit(p), [ANY, UNIT]),
    "logit-eps": (lambda m, p: m.special.logit(p, eps=0.3) + p.logit(0.1), [UNIT]),
    "logit-top-level": (lambda m, p: m.logit(p), [UNIT]),
    "xlogy": (lambda m, x, y: m.special.xlogy(x, y) + m.xlogy(2.0, y), [ANY, POSITIVE]),
    "xlogy-method-scalar-other": (lambda m, x: x.xlogy(3.0), [ANY]),
    "xlog1py": (lambda m, x, y: m.special.xlog1py(x, y - 0.5), [ANY, POSITIVE]),
    "gammaln-lgamma": (lambda m, x: m.special.gammaln(x) + m.lgamma(-x - 0.5), [POSITIVE]),
    "digamma-psi": (
        lambda m, x: m.special.digamma(x) + m.special.psi(x + 1) + x.digamma(),
        [POSITIVE],
    ),
    "polygamma": (
        lambda m, x: m.special.polygamma(2, x) + m.polygamma(0, x) + x.polygamma(1),
        [POSITIVE],
    ),
    "multigammaln": (
        lambda m, x: m.special.multigammaln(x + 2, 3) + m.mvlgamma(x + 1, 2),
        [POSITIVE],
    ),
    "i0-i0e-i1-i1e": (
        lambda m, x: (
            m.special.i0(x) + m.i0(x) + m.special.i0e(x) + m.special.i1(x) + m.special.i1e(x)
        ),
        [ANY],
    ),
    "entr": (lambda m, x: m.special.entr(x), [POSITIVE]),
    "ndtr-ndtri-log_ndtr": (
        lambda m, x, p: m.special.ndtr(x) + m.special.ndtri(p) + m.special.log_ndtr(x),
        [ANY, UNIT],
    ),
    "sinc-round-exp2-expm1-log1p": (
        lambda m, x: (
            m.special.sinc(x)
            + m.special.round(x)
            + m.special.exp2(x)
            + m.special.expm1(x)
            + m.special.log1p(x + 3.5)
        ),
        [ANY],
    ),
    "softmax-log_softmax-logsumexp": (
        lambda m, x: (
            m.special.softmax(x, 1) + m.special.log_softmax(x, 0) + m.special.logsumexp(x, 1, True)
        ),
        [ANY],
    ),
    "zeta-in-q": (
        lambda m, q: m.special.zeta(3.5, q) + m.special.zeta(m.tensor(2.0, dtype=q.dtype), q),
        [POSITIVE],
    ),
    "gammainc-gammaincc-in-x": (
        lambda m, x: (
            m.special.gammainc(x.detach() * 0 + 2.5, x)
            + m.special.gammaincc(x.detach(), x)
            + m.igamma(m.ones_like(x), x)
        ),
        [POSITIVE],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_in_values_and_first_and_second_derivatives(name):
    fn, arrays = CASES[name]
    compare(fn, arrays, "iterative" if name in TRIGAMMA else "direct", torch=torch)


# PyTorch's trigamma: 6.6e32 for inf at -1, and accurate to 1e-10 (see above)
TRIGAMMA_EDGES = {"digamma-poles"}

EDGES = {
    "logit": (lambda m, x: m.special.logit(x), [-0.5, 0.0, 0.3, 1.0, 1.5]),
    "logit-eps": (lambda m, x: m.special.logit(x, 0.2), [-0.5, 0.0, 0.2, 0.3, 0.8, 1.0, 1.5]),
    "xlogy-zero": (lambda m, x: m.special.xlogy(x * 0, x - 1), [0.0, 1.0, 2.0, math.nan]),
    "xlog1py-zero": (lambda m, x: m.special.xlog1py(x * 0, x - 2), [0.0, 1.0, 2.0, math.nan]),
    "i1-at-zero": (lambda m, x: m.special.i1(x) + m.special.i1e(x), [0.0, 1e-20, -1e-20, 0.5]),
    "digamma-poles": (lambda m, x: m.special.digamma(x) * 1.0, [0.0, -0.0, -1.0, -2.5, 1e-300]),
    "lgamma-poles": (lambda m, x: m.special.gammaln(x), [0.0, -1.0, -1.5, math.inf]),
    "entr": (lambda m, x: m.special.entr(x), [-1.0, 0.0, 0.5, math.inf, math.nan]),
    "ndtri-ends": (lambda m, x: m.special.ndtri(x), [0.0, 1.0, -0.1, 0.5]),
    "log_ndtr-tails": (lambda m, x: m.special.log_ndtr(x), [-40.0, -5.0, 0.0, 10.0]),
    "ndtr-tail": (lambda m, x: m.special.ndtr(x), [-10.0, -3.0, 3.0]),
    "erfcx-large": (lambda m, x: m.special.erfcx(x), [-30.0, 0.0, 30.0, 1e5]),
}


@pytest.mark.parametrize("name", list(EDGES))
def test_values_and_gradients_at_awkward_points_match_torch(name):
    fn, values = EDGES[name]
    x, tx = (
        lg.tensor(values, dtype=lg.float64, requires_grad=True),
        torch.tensor(values, dtype=torch.float64, requires_grad=True),
    )
    out, ref = fn(lg, x), fn(torch, tx)
    assert_close(out, ref.detach().numpy(), "direct")
    if ref.requires_grad and name not in TRIGAMMA_EDGES:
        (g,), (tg,) = lg.autograd.grad(out.sum(), x), torch.autograd.grad(ref.sum(), tx)
        assert_close(g, tg.numpy(), "direct")


NOT_DIFFERENTIABLE = [
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "airy_ai",
]


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE)
def test_bessel_functions_match_torch_and_have_no_gradient_as_in_torch(name):
    values = [-2.5, -1.0, 0.0, 0.3, 1.0, 7.5]
    out = getattr(lg.special, name)(lg.tensor(values, dtype=lg.float64, requires_grad=True))
    ref = getattr(torch.special, name)(
        torch.tensor(values, dtype=torch.float64, requires_grad=True)
    )
    assert out.requires_grad is ref.requires_grad is False
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-12)  # see above


def test_zeta_and_igamma_have_no_derivative_in_their_first_argument_as_in_torch():
    for m in (lg, torch):
        x = m.tensor([2.0, 3.0], dtype=m.float64, requires_grad=True)
        q = m.tensor([1.0, 2.0], dtype=m.float64)
        for out in (m.special.zeta(x, q), m.special.gammainc(x, q), m.igammac(x, q)):
            with pytest.raises(NotImplementedError):
                out.sum().backward()


FLOAT32 = [
    ("lgamma", lambda m, x: m.lgamma(x)),
    ("digamma", lambda m, x: m.special.digamma(x)),
    ("erfcx", lambda m, x: m.special.erfcx(x)),
    ("i0e", lambda m, x: m.special.i0e(x)),
    ("i1", lambda m, x: m.special.i1(x)),
    ("logit", lambda m, x: m.special.logit(x / 4, eps=0.1)),
    ("xlogy", lambda m, x: m.special.xlogy(x, x + 1)),
    ("log_ndtr", lambda m, x: m.special.log_ndtr(x)),
    ("zeta", lambda m, x: m.special.zeta(x + 1.5, 2.0)),
    ("bessel_y1", lambda m, x: m.special.bessel_y1(x + 0.1)),
]


@pytest.mark.parametrize("name, fn", FLOAT32, ids=[n for n, _ in FLOAT32])
def test_integers_promote_to_the_default_float_and_float32_stays_float32(name, fn):
    ints = [1, 2, 3]
    assert fn(lg, lg.tensor(ints)).dtype == lg.float32
    assert fn(torch, torch.tensor(ints)).dtype == torch.float32
    x = rng.uniform(0.1, 3.5, size=8).astype(np.float32)
    out, ref = fn(lg, lg.tensor(x)), fn(torch, torch.tensor(x))
    assert out.dtype == lg.float32
    assert_close(out, ref.numpy(), "direct")


def test_grad_fn_names_and_in_place_variants_match_torch():
    x = np.array([0.2, 0.5, 0.7])
    for name, call in [
        ("lgamma", lambda m, t: m.lgamma(t)),
        ("polygamma", lambda m, t: m.polygamma(2, t)),
        ("erfcx", lambda m, t: m.special.erfcx(t)),
        ("logit", lambda m, t: m.logit(t)),
        ("xlogy", lambda m, t: m.xlogy(t, t)),
        ("xlog1py", lambda m, t: m.special.xlog1py(t, t)),
        ("i0e", lambda m, t: m.special.i0e(t)),
        ("ndtri", lambda m, t: m.special.ndtri(t)),
        ("zeta", lambda m, t: m.special.zeta(t + 1, t)),
        ("zeta-self-scalar", lambda m, t: m.special.zeta(2.0, t)),
        ("xlogy-other-scalar", lambda m, t: t.xlogy(2.0)),
        ("xlog1py-self-scalar", lambda m, t: m.special.xlog1py(2.0, t)),
        ("igamma", lambda m, t: m.special.gammainc(t.detach(), t)),
    ]:
        out = call(lg, lg.tensor(x, requires_grad=True))
        ref = call(torch, torch.tensor(x, requires_grad=True))
        assert out.grad_fn.name() == ref.grad_fn.name(), name
    for method, args in [("lgamma_", ()), ("digamma_", ()), ("polygamma_", (2,)), ("i0_", ())]:
        ours, theirs = lg.tensor(x), torch.tensor(x)
        getattr(ours, method)(*args)
        getattr(theirs, method)(*args)
        assert_close(ours, theirs.numpy(), "direct")
    for method, args in [("logit_", (0.3,)), ("xlogy_", (2.0,)), ("mvlgamma_", (1,))]:
        ours, theirs = lg.tensor(x + 1), torch.tensor(x + 1)
        getattr(ours, method)(*args)
        getattr(theirs, method)(*args)
        assert_close(ours, theirs.numpy(), "direct")
