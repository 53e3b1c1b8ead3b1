"""Forward mode (JVP) for every op-table sample, in float64, plus a guard that every
differentiable primitive has a forward rule.

For each sample the tangent of every output (``make_dual`` with a random tangent per input,
``unpack_dual`` per output) must equal (a) central finite differences along the tangent and
(b) ``J @ t`` from reverse mode (``autograd.grad`` with one-hot seeds). Forward rules are
written in leafgrad ops, so reverse-over-forward and forward-over-reverse are checked on a
small tanh MLP, and a few compositions are compared with ``torch.func.jvp``.

Primitives of the shape/indexing families (shape.py, slicing.py, joining.py, indexing.py)
are getting their forward rules in parallel: a sample whose tangents pass through one of
them that still has no rule is a non-strict xfail, so it turns green (XPASS) on its own.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import types

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._engine import forward as _forward_engine
from leafgrad._tensor import Tensor
from leafgrad.autograd import forward_ad as fwAD
from leafgrad.ops import _primitive
from leafgrad.ops._optable import REGISTRY, Generic, NoDerivative, Primitive, Unary
from tests._tolerance import assert_close, tolerance

from . import __path__ as _ops_tests_path

# Differentiable primitives (by ``name.overload``) with no forward rule, each with why.
# (PyTorch has a forward rule for every op in the reduction, extrema, softmax, statistics and
# linalg families.)
NO_JVP: dict = {}

# Samples that fail for a reason outside the families this table's author owns: strict, so
# the marker must go once the cause is fixed. sample id -> reason.
# sample id -> reason, for a known limitation of a rule (strict: must fail until fixed)
KNOWN_FAILURES: dict = {}

# Samples of ops whose forward rule raises as PyTorch's does (no forward-AD formula in
# PyTorch): sample id -> reason. Their JVP checks are skipped.
REFUSES_FORWARD_AD: dict = {
    f"sdpa-flash-causal{c}": "PyTorch's _scaled_dot_product_flash_attention_for_cpu has no "
    "forward-AD formula (NotImplementedError), nor has leafgrad's"
    for c in (False, True)
}


def _skip_refused(sample) -> None:
    if sample.test_id in REFUSES_FORWARD_AD:
        pytest.skip(REFUSES_FORWARD_AD[sample.test_id])


# ----- the op table and the declared primitives -----


def _all_samples():
    samples = []
    for mod in sorted(m.name for m in pkgutil.iter_modules(_ops_tests_path)):
        if mod.startswith("samples_"):
            samples.extend(importlib.import_module(f"tests.ops.{mod}").SAMPLES)
    return samples


def _declaring_module(prim: Primitive) -> str:
    """The ops module a primitive is declared in: where its rules' code lives."""
    d1 = prim.kind.d1 if type(prim.kind) is Unary else None
    for f in (prim.forward, *(prim.vjp or ()), prim.vjp_all, prim.jvp, d1):
        mod = getattr(f, "__module__", None) or ""
        if (
            isinstance(f, types.FunctionType)
            and mod.startswith("leafgrad.ops.")
            and not mod.startswith("leafgrad.ops._")
        ):
            return mod
    return "unknown"


def _has_forward_rule(prim: Primitive) -> bool:
    return prim.jvp is not None


def _needs_forward_rule(prim: Primitive) -> bool:
    return prim.differentiable and type(prim.kind) is not NoDerivative


PRIMITIVES = sorted(
    (p for p in REGISTRY.values() if _needs_forward_rule(p)),
    key=lambda p: (_declaring_module(p), p.key),
)


# ----- forward mode, finite differences and reverse mode along one tangent -----


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _float_outputs(out) -> list:
    return [o for o in _as_tuple(out) if isinstance(o, Tensor) and o._data.dtype.kind == "f"]


def _primals(sample) -> tuple:
    return tuple(lg.tensor(x._data.copy()) for x in sample.inputs())


def _tangents(primals, seed: int = 1) -> tuple:
    rng = np.random.default_rng(seed)
    return tuple(lg.tensor(rng.standard_normal(p._data.shape)) for p in primals)


def _forward_jvp(fn, primals, tangents) -> list:
    """The tangent of every floating output (zeros where the output has none)."""
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, t) for p, t in zip(primals, tangents)]
        outs = _float_outputs(fn(*duals))
        jvps = []
        for o in outs:
            t = fwAD.unpack_dual(o).tangent
            jvps.append(np.zeros(o._data.shape) if t is None else t._data.astype(np.float64))
    return jvps


def _finite_difference_jvp(fn, primals, tangents, eps: float) -> list:
    """``(f(x + eps t) - f(x - eps t)) / (2 eps)`` for every floating output."""

    def at(sign):
        shifted = [lg.tensor(p._data + sign * eps * t._data) for p, t in zip(primals, tangents)]
        with lg.no_grad():
            return [o._data.astype(np.float64) for o in _float_outputs(fn(*shifted))]

    return [(p - m) / (2 * eps) for p, m in zip(at(1.0), at(-1.0))]


def _reverse_jvp(fn, primals, tangents) -> list:
    """``J @ t`` for every floating output, one reverse pass per output element."""
    inputs = [lg.tensor(p._data.copy(), requires_grad=True) for p in primals]
    outs = _float_outputs(fn(*inputs))
    result = []
    for o in outs:
        jt = np.zeros(o._data.size)
        if o.requires_grad:
            for k in range(o._data.size):
                seed = np.zeros(o._data.size)
                seed[k] = 1.0
                seed_t = lg.tensor(seed.reshape(o._data.shape).astype(o._data.dtype))
                grads = lg.autograd.grad(o, inputs, seed_t, retain_graph=True, allow_unused=True)
                jt[k] = sum(
                    float(np.sum(g._data * t._data))
                    for g, t in zip(grads, tangents)
                    if g is not None
                )
        result.append(jt.reshape(o._data.shape))
    return result


def _param(sample):
    return pytest.param(sample, id=sample.test_id)


SAMPLES = _all_samples()
PARAMS = [_param(s) for s in SAMPLES]


def _assert_same_derivative(actual, expected, sample, err_msg: str) -> None:
    """Two float64 computations of one derivative (forward and reverse mode) agree to the
    ``"direct"`` tolerance of the sample's ``round_off`` dtype."""
    rtol, atol = tolerance(sample.round_off, "direct")
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=err_msg)


@pytest.mark.parametrize("sample", PARAMS)
def test_jvp_matches_finite_differences(sample):
    _skip_refused(sample)
    primals = _primals(sample)
    tangents = _tangents(primals)
    forward = _forward_jvp(sample.fn, primals, tangents)
    numeric = _finite_difference_jvp(sample.fn, primals, tangents, sample.eps)
    assert len(forward) == len(numeric)
    for i, (f, n) in enumerate(zip(forward, numeric)):
        np.testing.assert_allclose(
            f, n, rtol=sample.rtol, atol=sample.atol, err_msg=f"{sample.test_id}: output {i}"
        )


@pytest.mark.parametrize("sample", PARAMS)
def test_jvp_matches_reverse_mode_jacobian(sample):
    _skip_refused(sample)
    primals = _primals(sample)
    tangents = _tangents(primals)
    forward = _forward_jvp(sample.fn, primals, tangents)
    reverse = _reverse_jvp(sample.fn, primals, tangents)
    assert len(forward) == len(reverse)
    for i, (f, r) in enumerate(zip(forward, reverse)):
        _assert_same_derivative(f, r, sample, f"{sample.test_id}: output {i}")


def _grads_or_zeros(outputs, inputs, grad_outputs=None, create_graph=False) -> list:
    grads = lg.autograd.grad(
        outputs, inputs, grad_outputs, create_graph=create_graph, allow_unused=True
    )
    return [lg.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


@pytest.mark.parametrize("sample", PARAMS)
def test_jvp_rules_are_differentiable_in_primal_and_tangent(sample, request):
    """Reverse over forward, per sample: for ``s = <w, J(x) t>``, ``ds/dt = J^T w`` and
    ``ds/dx = d<J^T w, t>/dx`` (nested reverse mode)."""
    _skip_refused(sample)
    if sample.test_id in KNOWN_FAILURES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[sample.test_id]))
    primals = [lg.tensor(p._data.copy(), requires_grad=True) for p in _primals(sample)]
    tangents = [lg.tensor(t._data, requires_grad=True) for t in _tangents(primals)]
    with fwAD.dual_level() as level:
        duals = [fwAD.make_dual(p, t) for p, t in zip(primals, tangents)]
        outs = _float_outputs(sample.fn(*duals))
        jvps = [_forward_engine.tangent_of(o, level) for o in outs]
    rng = np.random.default_rng(5)
    weights = [lg.tensor(rng.standard_normal(o._data.shape).astype(o._data.dtype)) for o in outs]
    terms = [(j * w).sum() for j, w in zip(jvps, weights) if j is not None and j.requires_grad]
    if not terms:
        pytest.skip("no output tangent depends on the inputs")
    got = _grads_or_zeros(sum(terms[1:], terms[0]), primals + tangents)

    xs = [lg.tensor(p._data.copy(), requires_grad=True) for p in primals]
    outs = _float_outputs(sample.fn(*xs))
    used = [(o, w) for o, w in zip(outs, weights) if o.requires_grad]
    vjps = _grads_or_zeros(
        [o for o, _ in used], xs, [w for _, w in used], create_graph=sample.gradgrad
    )
    for i, (g, v) in enumerate(zip(got[len(xs) :], vjps)):
        _assert_same_derivative(g._data, v._data, sample, f"d/dt, input {i}")
    if not sample.gradgrad:
        return
    pairing = [(v * t).sum() for v, t in zip(vjps, tangents) if v.requires_grad]
    if not pairing:
        return
    mixed = _grads_or_zeros(sum(pairing[1:], pairing[0]), xs)
    for i, (g, m) in enumerate(zip(got[: len(xs)], mixed)):
        _assert_same_derivative(g._data, m._data, sample, f"d/dx, input {i}")


# ----- the guard -----


def _guard_param(prim):
    module = _declaring_module(prim)
    pid = f"{module.rsplit('.', 1)[-1]}:{prim.key}:{prim.node_name}"
    return pytest.param(prim, id=pid)


@pytest.mark.parametrize("prim", [_guard_param(p) for p in PRIMITIVES])
def test_every_differentiable_primitive_has_a_forward_rule(prim):
    if prim.key in NO_JVP and not _has_forward_rule(prim):
        pytest.skip(NO_JVP[prim.key])
    assert _has_forward_rule(prim), (
        f"{prim.key} ({prim.node_name}, in {_declaring_module(prim)}) has no forward rule: "
        "give it a kind with a forward rule (e.g. Generic(jvp)), or list it in NO_JVP with a reason"
    )


def test_the_guard_sees_primitives_the_registry_shadows():
    names = [(p.name, p.node_name) for p in PRIMITIVES]
    for expected in [("sum", "SumBackward0"), ("sum", "SumBackward1"), ("max", "MaxBackward0")]:
        assert expected in names
    assert sum(1 for name, _ in names if name == "einsum") == 4


def test_an_op_without_a_forward_rule_raises_under_forward_ad():
    opaque = _primitive.primitive(
        "opaque_for_jvp_test",
        lambda x: x * 2.0,
        (lambda grad, x, result: grad * 2.0,),
        kind=Generic(),
    )
    REGISTRY.pop("opaque_for_jvp_test")
    x = lg.tensor([1.0, 2.0], dtype=lg.float64)
    assert opaque(x).tolist() == [2.0, 4.0]  # fine without a dual level
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, lg.ones_like(x))
        with pytest.raises(RuntimeError, match="opaque_for_jvp_test"):
            opaque(dual)


# ----- edge cases of the reduction rules, against PyTorch's forward AD -----


def _torch():
    return pytest.importorskip("torch")


def _jvp_both(fn, x, t):
    """``fn``'s output tangent with leafgrad and with PyTorch (float64)."""
    torch = _torch()
    with fwAD.dual_level():
        ours = fwAD.unpack_dual(fn(fwAD.make_dual(lg.tensor(x), lg.tensor(t)))).tangent
    tfw = torch.autograd.forward_ad
    with tfw.dual_level():
        dual = tfw.make_dual(torch.tensor(x, dtype=torch.float64), torch.tensor(t))
        theirs = tfw.unpack_dual(fn(dual)).tangent
    return np.asarray(ours.tolist(), dtype=float), np.asarray(theirs.tolist(), dtype=float)


EDGE_CASES = [
    ("max-ties-share", lambda x: x.max(), [1.0, 3.0, 3.0, 2.0]),
    ("amax-ties-share", lambda x: x.amax(0), [[1.0, 3.0], [3.0, 2.0]]),
    ("min-ties-share", lambda x: x.min(), [2.0, -1.0, -1.0, 0.5]),
    ("max-nan-is-nan", lambda x: x.max(), [1.0, math.nan, 3.0, 2.0]),
    ("amax-nan-is-nan", lambda x: x.amax(), [1.0, math.nan, 3.0, 2.0]),
    ("max-dim-first-of-ties", lambda x: x.max(0).values, [1.0, 3.0, 3.0, 2.0]),
    ("max-dim-nan-wins", lambda x: x.max(0).values, [1.0, math.nan, 3.0, 2.0]),
    ("min-dim-keepdim", lambda x: x.min(1, keepdim=True).values, [[2.0, 1.0], [0.0, 0.0]]),
    ("prod-one-zero", lambda x: x.prod(), [1.0, 0.0, 2.0, 3.0]),
    ("prod-two-zeros", lambda x: x.prod(1), [[0.0, 0.0, 2.0], [1.0, 0.0, 2.0]]),
    ("std-of-constant-is-0", lambda x: x.std(), [2.0, 2.0, 2.0, 2.0]),
    ("var-zero-dof-is-inf", lambda x: x.var(correction=4), [1.0, 2.0, 4.0, 0.5]),
    ("std-zero-dof-is-nan", lambda x: x.std(correction=4), [1.0, 2.0, 4.0, 0.5]),
    ("var-one-element-is-nan", lambda x: x.var(), [1.5]),
    ("norm-2-at-zero", lambda x: x.norm(), [0.0, 0.0, 0.0, 0.0]),
    ("norm-3-at-zero", lambda x: x.norm(3), [0.0, 0.0, 0.0, 0.0]),
    ("norm-1.5-at-zero", lambda x: x.norm(1.5), [0.0, 0.0, 0.0, 0.0]),
    ("norm-0.5-with-a-zero", lambda x: x.norm(0.5), [1.0, 0.0, -2.0, 0.5]),
    ("norm-0-is-zero", lambda x: x.norm(0), [1.0, 0.0, -2.0, 0.5]),
    ("norm-inf-ties", lambda x: x.norm(math.inf), [1.0, -2.0, 2.0, 0.5]),
    ("norm-neg-inf-ties", lambda x: x.norm(-math.inf, dim=1), [[1.0, -1.0], [3.0, 2.0]]),
    ("logsumexp-all-minus-inf", lambda x: x.logsumexp(0), [-math.inf, -math.inf]),
    ("logsumexp-plus-inf", lambda x: x.logsumexp(0), [math.inf, 1.0]),
    ("logsumexp-large", lambda x: x.logsumexp(0), [1000.0, 999.0, -5.0]),
    ("softmax-minus-inf", lambda x: x.softmax(0), [-math.inf, 0.0, 1.0]),
    ("log_softmax-large", lambda x: x.log_softmax(0), [1000.0, 999.0, -5.0]),
    ("cumsum-0d", lambda x: x.cumsum(0), 1.5),
    ("prod-0d", lambda x: x.prod(), 1.5),
    ("max-0d", lambda x: x.max(0).values, 1.5),
]
_X = [1.0, 2.0, 5.0, 3.0]
_T_INF = [math.inf, 1.0, 2.0, 3.0]  # an infinite tangent away from the maximum
INFINITE_TANGENTS = [
    ("amax-masks-by-where", lambda x: x.amax(), _X, _T_INF),
    ("max-masks-by-product", lambda x: x.max(), _X, _T_INF),
    ("min-masks-by-product", lambda x: (-x).min(), _X, _T_INF),
    ("max-dim-reads-the-index", lambda x: x.max(0).values, _X, _T_INF),
    ("norm-inf-masks-by-product", lambda x: x.norm(math.inf), _X, _T_INF),
    ("norm-2", lambda x: x.norm(), _X, _T_INF),
    ("prod", lambda x: x.prod(), _X, _T_INF),
    ("logsumexp", lambda x: x.logsumexp(0), _X, _T_INF),
    ("softmax", lambda x: x.softmax(0), _X, _T_INF),
    ("std", lambda x: x.std(), _X, _T_INF),
    ("var-dim", lambda x: x.reshape(2, 2).var(1), _X, _T_INF),
    ("cumsum", lambda x: x.cumsum(0), _X, _T_INF),
    ("var-zero-dof-positive-tangent", lambda x: x.var(correction=4), _X, [1.0, 2.0, 5.0, 1.0]),
    ("var-zero-dof-zero-sum", lambda x: x.var(correction=4), _X, [1.0, 1.0, 1.0, 1.0]),
    ("var-negative-dof", lambda x: x.var(correction=5), _X, [-1.0, -2.0, -5.0, -1.0]),
    ("var-dim-zero-dof", lambda x: x.reshape(2, 2).var(1, correction=2), _X, [1.0, 2.0, 5.0, 1.0]),
]
_EDGE_PARAMS = [pytest.param(f, x, None, id=n) for n, f, x in EDGE_CASES] + [
    pytest.param(f, x, t, id=f"infinite-tangent-{n}") for n, f, x, t in INFINITE_TANGENTS
]


@pytest.mark.filterwarnings("ignore:.*degrees of freedom")
@pytest.mark.parametrize("fn, x, t", _EDGE_PARAMS)
def test_edge_case_tangent_matches_pytorch(fn, x, t):
    x = np.asarray(x, dtype=np.float64)
    if t is None:
        t = np.random.default_rng(2).standard_normal(x.shape)
    ours, theirs = _jvp_both(fn, x, np.asarray(t, dtype=np.float64))
    assert_close(ours, theirs, "direct")


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
def test_empty_reductions_tangents_match_pytorch():
    for fn in (
        lambda x: x.sum(),
        lambda x: x.prod(),
        lambda x: x.norm(),
        lambda x: x.logsumexp(0),
        lambda x: x.mean(),
    ):
        ours, theirs = _jvp_both(fn, np.zeros(0), np.zeros(0))
        assert_close(ours, theirs, "direct")


# ----- compositions against torch.func.jvp -----


def _compositions(m):
    """Functions written once for leafgrad and PyTorch (``m`` is the library)."""
    return {
        "softmax-times-logsumexp": (
            lambda x: x.softmax(-1) * x.logsumexp(1, keepdim=True),
            [(3, 4)],
        ),
        "einsum-tanh-norm": (
            lambda x, y: m.einsum("ij,jk->ik", x, y).tanh().norm(dim=1),
            [(3, 2), (2, 4)],
        ),
        "var-times-std": (
            lambda x: x.var(0, keepdim=True) * x.std(1, keepdim=True, correction=0),
            [(3, 4)],
        ),
        "prod-cumsum-amax-max": (
            lambda x: x.prod(1) + x.cumsum(1).amax(1) + x.max(1).values - x.min(),
            [(3, 4)],
        ),
        "matmul-log_softmax-mean": (lambda x, w: (x @ w).log_softmax(-1).mean(0), [(5, 3), (3, 4)]),
        "addmm-norms": (
            lambda c, a, b: (
                m.addmm(c, a, b, beta=0.5, alpha=2.0).norm(3, dim=0)
                + m.addmm(c, a, b).norm(math.inf, dim=0)
            ),
            [(4,), (2, 3), (3, 4)],
        ),
        "bmm-mv-dot": (
            lambda a, b, v: m.dot(m.mv(m.bmm(a, b).sum(0), v), v),
            [(2, 3, 3), (2, 3, 3), (3,)],
        ),
    }


@pytest.mark.parametrize("name", list(_compositions(lg)))
def test_composition_matches_torch_func_jvp(name):
    torch = _torch()
    ours_fn, shapes = _compositions(lg)[name]
    theirs_fn, _ = _compositions(torch)[name]
    rng = np.random.default_rng(3)
    primals = [rng.uniform(0.2, 1.5, size=s) * rng.choice([-1.0, 1.0], size=s) for s in shapes]
    tangents = [rng.standard_normal(s) for s in shapes]
    ours = _forward_jvp(ours_fn, [lg.tensor(p) for p in primals], [lg.tensor(t) for t in tangents])
    _, theirs = torch.func.jvp(
        theirs_fn,
        tuple(torch.tensor(p) for p in primals),
        tuple(torch.tensor(t) for t in tangents),
    )
    assert_close(ours[0], theirs.numpy(), "direct")


# ----- reverse-over-forward and forward-over-reverse on a tanh MLP -----


def _mlp(x, w1, w2):
    """A two-layer tanh MLP in matmul + tanh + sum only: ``x: (5, 3)`` -> a scalar."""
    return (x @ w1).tanh().matmul(w2).tanh().sum()


def _mlp_data(m, requires_grad=True):
    rng = np.random.default_rng(4)
    arrays = {
        "x": rng.standard_normal((5, 3)),
        "w1": rng.standard_normal((3, 4)) * 0.7,
        "w2": rng.standard_normal((4, 2)) * 0.7,
        "v": rng.standard_normal((5, 3)),
        "u1": rng.standard_normal((3, 4)),
        "u2": rng.standard_normal((4, 2)),
    }
    out = {k: m.tensor(a, dtype=m.float64) for k, a in arrays.items()}
    for k in ("w1", "w2"):
        out[k].requires_grad_(requires_grad)
    return out


def _tangent_via_api(out, level):
    return fwAD.unpack_dual(out).tangent


def _tangent_via_engine(out, level):
    return _forward_engine.tangent_of(out, level)


_READ_TANGENT = [
    pytest.param(_tangent_via_api, id="unpack_dual"),
    pytest.param(_tangent_via_engine, id="engine-tangent"),
]


@pytest.mark.parametrize("read_tangent", _READ_TANGENT)
def test_reverse_over_forward_gives_the_mixed_second_derivative(read_tangent):
    d = _mlp_data(lg)
    with fwAD.dual_level() as level:
        out = _mlp(fwAD.make_dual(d["x"], d["v"]), d["w1"], d["w2"])
        jvp = read_tangent(out, level)
        assert jvp.requires_grad  # the forward rules recorded a graph in the weights
    g1, g2 = lg.autograd.grad(jvp, (d["w1"], d["w2"]))

    x = d["x"].clone().requires_grad_(True)
    (gx,) = lg.autograd.grad(_mlp(x, d["w1"], d["w2"]), x, create_graph=True)
    e1, e2 = lg.autograd.grad((gx * d["v"]).sum(), (d["w1"], d["w2"]))
    assert_close(g1, e1, "direct")
    assert_close(g2, e2, "direct")

    torch = _torch()
    t = _mlp_data(torch)
    tx = t["x"].clone().requires_grad_(True)
    (tgx,) = torch.autograd.grad(_mlp(tx, t["w1"], t["w2"]), tx, create_graph=True)
    r1, r2 = torch.autograd.grad((tgx * t["v"]).sum(), (t["w1"], t["w2"]))
    assert_close(g1, r1.numpy(), "direct")
    assert_close(g2, r2.numpy(), "direct")


@pytest.mark.parametrize("create_graph", [False, True])
def test_forward_over_reverse_gives_the_hessian_vector_product(create_graph):
    d = _mlp_data(lg)
    with fwAD.dual_level():
        w1 = fwAD.make_dual(d["w1"], d["u1"])
        w2 = fwAD.make_dual(d["w2"], d["u2"])
        g1, g2 = lg.autograd.grad(_mlp(d["x"], w1, w2), (w1, w2), create_graph=create_graph)
        hv1 = _forward_engine.tangent_of(g1, _forward_engine.current_level())
        hv2 = _forward_engine.tangent_of(g2, _forward_engine.current_level())
        if not create_graph:  # the gradients do not require grad: unpack_dual needs no view
            assert fwAD.unpack_dual(g1).tangent is hv1

    e1, e2 = lg.autograd.grad(_mlp(d["x"], d["w1"], d["w2"]), (d["w1"], d["w2"]), create_graph=True)
    h1, h2 = lg.autograd.grad((e1 * d["u1"]).sum() + (e2 * d["u2"]).sum(), (d["w1"], d["w2"]))
    assert_close(hv1, h1, "direct")
    assert_close(hv2, h2, "direct")

    torch = _torch()
    t = _mlp_data(torch, requires_grad=False)
    _, (r1, r2) = torch.func.jvp(
        torch.func.grad(lambda w1, w2: _mlp(t["x"], w1, w2), argnums=(0, 1)),
        (t["w1"], t["w2"]),
        (t["u1"], t["u2"]),
    )
    assert_close(hv1, r1.numpy(), "direct")
    assert_close(hv2, r2.numpy(), "direct")
