"""Random computation graphs, run identically in leafgrad and torch, and compared.

A ``Graph`` is plain data: leaves (arrays, dtype, requires_grad) and steps (a pool op applied
to earlier values, its parameters, the grad mode it runs in, a detach after it, a
retain_grad). ``run(T, graph)`` executes one fixed script against a library ``T`` (leafgrad or
torch) and returns every observation it made, keyed by a label: each value's dtype, shape,
values and autograd facts, first derivatives through ``autograd.grad`` and through
``backward``, second derivatives, and which calls raised (and the builtin exception type).
``compare`` lists where the two libraries' observations differ.

The generator draws with NumPy from a fixed seed and uses torch as the oracle while it draws:
a candidate step is kept only when torch accepts it, its inputs are in the op's domain, away
from kinks and ties, and its result is finite and moderate. (Occasionally it keeps a step
that torch rejects, so the error type is compared too.)
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from dataclasses import dataclass, field

import numpy as np

from . import pool as P

SEED = 20261129
MAX_ABS_VALUE = 50.0
MAX_ABS_GRAD = 1e5
# rtol, atol (atol scaled by the array's magnitude). A graph chains up to a dozen ops and is
# differentiated twice, so its values carry more round-off than one "direct" formula: float32
# graphs differ from torch by up to ~4e-7 of the magnitude (a few ulp, more where terms
# cancel), float64 ones by ~1e-15, and NumPy's and torch's SIMD kernels round differently
# on each CPU. These tolerances sit at the "iterative" level of tests/_tolerance.py.
F32_TOL = (2e-4, 2e-5)
F64_TOL = (1e-9, 1e-11)


# ----------------------------------------------------------------------------- description


@dataclass
class Leaf:
    array: np.ndarray
    requires_grad: bool

    def __repr__(self) -> str:
        return (
            f"Leaf({self.array.dtype}{list(self.array.shape)}, requires_grad={self.requires_grad})"
        )


@dataclass
class Step:
    op: str
    args: tuple  # indices of earlier values
    params: dict = field(default_factory=dict)
    mode: str = "grad"  # grad | no_grad | set_grad_enabled | enable_in_no_grad | inference
    post: str = ""  # "" | detach | detach_rg (detach().requires_grad_())
    retain: bool = False
    expect_error: bool = False  # torch raised when the generator ran it

    def __repr__(self) -> str:
        extra = "".join(
            f", {k}={v!r}"
            for k, v in (("mode", self.mode), ("post", self.post), ("retain", self.retain),
                         ("expect_error", self.expect_error))
            if v not in ("grad", "", False)
        )  # fmt: skip
        return f"Step({self.op}{list(self.args)}, {self.params}{extra})"


@dataclass
class Graph:
    index: int
    leaves: list
    steps: list
    outputs: list = field(default_factory=list)
    out_weights: list = field(default_factory=list)
    targets: list = field(default_factory=list)
    hvp_weights: list = field(default_factory=list)
    bad_target: int | None = None
    tol: tuple = F64_TOL
    title: str = ""

    def describe(self) -> str:
        lines = [self.title or f"graph-{self.index:03d}"]
        n = len(self.leaves)
        for i, leaf in enumerate(self.leaves):
            lines.append(f"  v{i} = {leaf!r} {leaf.array.tolist()}")
        for k, s in enumerate(self.steps):
            lines.append(f"  v{n + k} = {s!r}")
        lines.append(
            f"  outputs={self.outputs} targets={self.targets} bad_target={self.bad_target}"
        )
        return "\n".join(lines)

    def ops(self) -> set:
        return {s.op for s in self.steps}


# ----------------------------------------------------------------------------- running a graph


@contextlib.contextmanager
def grad_mode(T, mode: str):
    if mode == "grad":
        yield
    elif mode == "no_grad":
        with T.no_grad():
            yield
    elif mode == "set_grad_enabled":
        with T.set_grad_enabled(False):
            yield
    elif mode == "enable_in_no_grad":
        with T.no_grad(), T.enable_grad():
            yield
    elif mode == "inference":
        with T.inference_mode():
            yield
    else:  # pragma: no cover
        raise ValueError(mode)


def _is_torch(T) -> bool:
    return T.__name__ == "torch"


def apply_step(T, step: Step, vals: list):
    p = P.BY_NAME[step.op]
    fn = p.th if _is_torch(T) else p.lg
    args = [vals[a] for a in step.args]
    with grad_mode(T, step.mode):
        out = fn(*args, **step.params)
    if step.post == "detach":
        out = out.detach()
    elif step.post == "detach_rg":
        out = out.detach().requires_grad_()
    return out


def exc_kind(exc: BaseException) -> str:
    """The most derived builtin class of an exception (torch subclasses RuntimeError etc.)."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(exc).__name__  # pragma: no cover


@dataclass
class Facts:
    """What a tensor looks like from outside."""

    dtype: str
    shape: tuple
    value: np.ndarray = field(repr=False)
    requires_grad: bool
    is_leaf: bool
    has_grad_fn: bool
    name: str | None
    check_name: bool = True


@dataclass(frozen=True)
class Raised:
    kind: str
    message: str = field(default="", compare=False)


def _is_tensor(x) -> bool:
    return hasattr(x, "grad_fn") and hasattr(x, "requires_grad") and hasattr(x, "dtype")


def facts(x, check_name: bool = True):
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return tuple(facts(e, check_name) for e in x)
    if not _is_tensor(x):
        return x
    return Facts(
        str(x.dtype),
        tuple(x.shape),
        np.array(x.detach().numpy(force=True), copy=True),
        bool(x.requires_grad),
        bool(x.is_leaf),
        x.grad_fn is not None,
        x.grad_fn.name() if x.grad_fn is not None else None,
        check_name,
    )


class Recorder:
    def __init__(self) -> None:
        self.obs: dict = {}

    def put(self, label: str, value) -> None:
        assert label not in self.obs, label
        self.obs[label] = value

    def attempt(self, label: str, fn, check_name: bool = False):
        """Run ``fn``; record its result's facts or the exception type. Returns (ok, result)."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = fn()
            except Exception as exc:
                self.put(label, Raised(exc_kind(exc), str(exc)[:300]))
                result, ok = None, False
            else:
                self.put(label, facts(result, check_name))
                ok = True
        kinds = sorted({w.category.__name__ for w in caught})
        if kinds:
            self.put(label + ":warnings", tuple(kinds))
        return ok, result


def build(T, g: Graph, rec: Recorder | None = None):
    """The graph's values in library ``T`` (None where a step raised) and the retained ones."""
    vals, retained = [], []
    for i, leaf in enumerate(g.leaves):
        t = T.tensor(leaf.array, requires_grad=leaf.requires_grad)
        vals.append(t)
        if rec is not None:
            rec.put(f"v{i}:leaf", facts(t))
    n = len(g.leaves)
    for k, step in enumerate(g.steps):
        idx = n + k
        if any(vals[a] is None for a in step.args):
            vals.append(None)
            if rec is not None:
                rec.put(f"v{idx}={step.op}", "skipped: an input failed")
            continue
        p = P.BY_NAME[step.op]
        check = p.check_name
        if callable(check):
            check = bool(check([vals[a] for a in step.args])) if _is_torch(T) else True
        if rec is None:
            try:
                out = apply_step(T, step, vals)
            except Exception:
                out = None
        else:
            _, out = rec.attempt(f"v{idx}={step.op}", lambda s=step: apply_step(T, s, vals), check)
        vals.append(out)
        if out is None:
            continue
        if step.retain:
            ok, _ = (rec.attempt(f"v{idx}.retain_grad()", out.retain_grad) if rec is not None
                     else _quiet(out.retain_grad))  # fmt: skip
            if ok:
                retained.append(idx)
        if rec is not None:
            rec.attempt(
                f"v{idx}.detach().requires_grad_()",
                lambda o=out: o.detach().requires_grad_().requires_grad,
            )
            if out.requires_grad and not out.is_leaf and k % 3 == 0:
                rec.attempt(
                    f"v{idx}.requires_grad_(False)",
                    lambda o=out: o.requires_grad_(False).requires_grad,
                )
    return vals, retained


def _quiet(fn):
    try:
        return True, fn()
    except Exception:
        return False, None


def _grads(rec: Recorder, label: str, g: Graph, vals: list, retained: list) -> None:
    """Record ``.grad`` of the leaves that require grad and of retained values."""
    watch = [i for i, leaf in enumerate(g.leaves)]
    n = len(g.leaves)
    watch += [n + k for k, s in enumerate(g.steps) if s.post == "detach_rg" or s.retain]
    for i in watch:
        v = vals[i]
        if v is None:
            continue
        if v.is_leaf or i in retained:
            rec.put(f"{label}:v{i}.grad", facts(v.grad, False))
        else:
            rec.put(f"{label}:v{i}.grad", "not readable (non-leaf, not retained)")


def _reset_grads(g: Graph, vals: list, retained: list) -> None:
    for i, v in enumerate(vals):
        if v is not None and (v.is_leaf or i in retained):
            v.grad = None


def _weights(T, arrays):
    return [T.tensor(w) for w in arrays]


def _pick(vals, indices):
    return [vals[i] for i in indices]


def run(T, g: Graph) -> dict:
    """Every observation of the fixed script on graph ``g`` in library ``T``."""
    rec = Recorder()
    for i, leaf in enumerate(g.leaves):
        if leaf.array.dtype.kind != "f":
            a = leaf.array
            rec.attempt(
                f"v{i}:tensor(requires_grad=True)",
                lambda a=a: T.tensor(a, requires_grad=True).requires_grad,
            )
            rec.attempt(
                f"v{i}:requires_grad_()", lambda a=a: T.tensor(a).requires_grad_().requires_grad
            )

    # A: the forward facts, first derivatives, .grad through backward.
    vals, retained = build(T, g, rec)
    if any(vals[i] is None for i in g.outputs + g.targets):
        return rec.obs
    outs, targets = _pick(vals, g.outputs), _pick(vals, g.targets)
    ag = T.autograd

    def ws():
        # New grad_outputs for every call: torch's AccumulateGrad may keep the incoming
        # gradient itself as .grad (a view of grad_outputs through e.g. a transpose), and a
        # later in-place accumulation would then change the weights the next calls see.
        return _weights(T, g.out_weights)

    rec.attempt("grad", lambda: ag.grad(outs, targets, ws(), retain_graph=True, allow_unused=True))
    rec.attempt("grad(allow_unused=False)", lambda: ag.grad(outs, targets, ws(), retain_graph=True))
    if g.bad_target is not None and vals[g.bad_target] is not None:
        bad = targets + [vals[g.bad_target]]
        rec.attempt("grad(wrt a tensor not requiring grad)",
                    lambda: ag.grad(outs, bad, ws(), retain_graph=True,
                                    allow_unused=True))  # fmt: skip
    _grads(rec, "after grad", g, vals, retained)  # retain_grad() hooks run in autograd.grad too
    _reset_grads(g, vals, retained)
    rec.attempt("out.backward() without gradient", lambda: outs[0].backward(retain_graph=True))
    _grads(rec, "after out.backward()", g, vals, retained)
    _reset_grads(g, vals, retained)
    rec.attempt("backward", lambda: ag.backward(outs, ws(), retain_graph=True))
    _grads(rec, "backward", g, vals, retained)
    rec.attempt("backward again (accumulates)", lambda: ag.backward(outs, ws(), retain_graph=True))
    _grads(rec, "backward x2", g, vals, retained)
    rec.attempt("out.grad (a non-leaf: warns)", lambda: outs[0].grad)
    _reset_grads(g, vals, retained)
    rec.attempt("backward(inputs=first target)",
                lambda: ag.backward(outs, ws(), retain_graph=True, inputs=targets[:1]))  # fmt: skip
    _grads(rec, "backward(inputs=)", g, vals, retained)
    rec.attempt("grad(materialize_grads=True)",
                lambda: ag.grad(outs, targets, ws(), retain_graph=True,
                                materialize_grads=True))  # fmt: skip

    # C: a second backward through a graph that was not retained.
    vals_c, _ = build(T, g)
    if all(vals_c[i] is not None for i in g.outputs):
        outs_c = _pick(vals_c, g.outputs)
        rec.attempt(
            "backward without retain_graph", lambda: ag.backward(outs_c, _weights(T, g.out_weights))
        )
        rec.attempt("second backward without retain_graph",
                    lambda: ag.backward(outs_c, _weights(T, g.out_weights)))  # fmt: skip

    # B: second derivatives through create_graph=True.
    vals_b, _ = build(T, g)
    if any(vals_b[i] is None for i in g.outputs + g.targets):
        return rec.obs
    targets_b = _pick(vals_b, g.targets)
    ok, firsts = rec.attempt(
        "grad(create_graph=True)",
        lambda: ag.grad(_pick(vals_b, g.outputs), targets_b, _weights(T, g.out_weights),
                        create_graph=True, allow_unused=True),
    )  # fmt: skip
    if not ok:
        return rec.obs
    terms = []
    for gi, v in zip(firsts, g.hvp_weights):
        if gi is not None:
            terms.append((gi * T.tensor(v)).sum() + 0.5 * (gi * gi).sum())
    if not terms:
        return rec.obs
    ok, h = rec.attempt("h = f(first grads)", lambda: functools.reduce(lambda a, b: a + b, terms))
    if ok:
        rec.attempt("grad(h)", lambda: ag.grad(h, targets_b, allow_unused=True))
    return rec.obs


# ----------------------------------------------------------------------------- comparing


@dataclass
class Mismatch:
    label: str
    what: str
    torch: object
    leafgrad: object

    def __str__(self) -> str:
        theirs, ours = _short(self.torch), _short(self.leafgrad)
        return f"{self.label}: {self.what}: torch={theirs} leafgrad={ours}"


def _short(x) -> str:
    if isinstance(x, Raised):
        return f"raises {x.kind} ({x.message[:120]})"
    if isinstance(x, np.ndarray):
        return np.array2string(x, precision=6, threshold=12)
    if isinstance(x, Facts):
        value = np.array2string(x.value, precision=6, threshold=12)
        return f"{x.dtype}{list(x.shape)} rg={x.requires_grad} {value}"
    if isinstance(x, tuple):
        return "(" + ", ".join(_short(e) for e in x) + ")"
    return repr(x)


def _close(a: np.ndarray, b: np.ndarray, tol: tuple) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if not np.array_equal(np.isnan(a64), np.isnan(b64)):
        return False
    rtol, atol = tol
    scale = max(1.0, float(np.nanmax(np.abs(a64), initial=0.0)))
    return bool(np.allclose(a64, b64, rtol=rtol, atol=atol * scale, equal_nan=True))


def _compare_one(label, t, lg, tol, out: list) -> None:
    if isinstance(t, Facts) and isinstance(lg, Facts):
        for attr in ("dtype", "shape", "requires_grad", "is_leaf", "has_grad_fn"):
            if getattr(t, attr) != getattr(lg, attr):
                out.append(Mismatch(label, attr, getattr(t, attr), getattr(lg, attr)))
        if (
            t.check_name
            and lg.check_name
            and t.has_grad_fn
            and lg.has_grad_fn
            and t.name != lg.name
        ):
            out.append(Mismatch(label, "grad_fn.name()", t.name, lg.name))
        if t.shape == lg.shape and not _close(t.value, lg.value, tol):
            out.append(Mismatch(label, "value", t.value, lg.value))
        return
    if isinstance(t, tuple) and isinstance(lg, tuple) and len(t) == len(lg):
        for i, (a, b) in enumerate(zip(t, lg)):
            _compare_one(f"{label}[{i}]", a, b, tol, out)
        return
    if isinstance(t, Raised) or isinstance(lg, Raised):
        if t != lg:
            out.append(Mismatch(label, "raises", t, lg))
        return
    if type(t) is not type(lg) or t != lg:
        what = "None vs tensor" if (t is None) != (lg is None) else "result"
        out.append(Mismatch(label, what, t, lg))


def compare(obs_torch: dict, obs_lg: dict, tol: tuple) -> list:
    out: list = []
    for label in list(obs_torch) + [k for k in obs_lg if k not in obs_torch]:
        if label not in obs_lg:
            out.append(Mismatch(label, "observed only in torch", obs_torch[label], None))
        elif label not in obs_torch:
            out.append(Mismatch(label, "observed only in leafgrad", None, obs_lg[label]))
        else:
            _compare_one(label, obs_torch[label], obs_lg[label], tol, out)
    return out


# ----------------------------------------------------------------------------- generating

BASES = [(3,), (4,), (2, 3), (3, 2), (2, 2), (2, 1, 3), (2, 2, 2)]
MODES = (("grad", 0.82), ("no_grad", 0.07), ("set_grad_enabled", 0.03), ("enable_in_no_grad", 0.05),
         ("inference", 0.015))  # fmt: skip
FIXERS = {
    "pos": (("square", {}), ("add_s", {"s": 0.5})),
    "nonzero": (("sigmoid", {}), ("add_s", {"s": 0.25})),
    "unit": (("tanh", {}), ("mul_s", {"s": 0.8})),
    "gt1": (("square", {}), ("add_s", {"s": 1.5})),
    "small": (("tanh", {}), ("mul_s", {"s": 2})),
    "gtm1": (("sigmoid", {}),),
}
DOMAINS = {
    "any": lambda x: True,
    "pos": lambda x: bool(np.all(x > 0.1)),
    "nonzero": lambda x: bool(np.all(np.abs(x) > 0.2)),
    "unit": lambda x: bool(np.all(np.abs(x) < 0.9)),
    "gt1": lambda x: bool(np.all(x > 1.1)),
    "small": lambda x: bool(np.all(np.abs(x) < 3)),
    "gtm1": lambda x: bool(np.all(x > -0.9)),
}


def _kind(t) -> str:
    if t.dtype.is_floating_point:
        return "f"
    return "b" if str(t.dtype) == "torch.bool" else "i"


def _np64(t):
    return t.detach().double().numpy() if _is_tensor(t) else np.float64(t)


class _Draft:
    """A graph being drawn, with its torch values alongside."""

    def __init__(self, torch, rng, pool) -> None:
        self.torch = torch
        self.rng = rng
        self.pool = pool
        self.weights = np.array([p.weight for p in pool], dtype=np.float64)
        self.weights /= self.weights.sum()
        self.leaves: list = []
        self.steps: list = []
        self.tv: list = []
        self.errors = 0

    def leaf(self, shape, dtype: str, requires_grad: bool) -> None:
        rng = self.rng
        if dtype == "int64":
            arr = rng.integers(-4, 5, size=shape).astype(np.int64)
        else:
            arr = np.round(rng.uniform(-2, 2, size=shape), 3).astype(dtype)
        self.leaves.append(Leaf(np.asarray(arr), requires_grad))
        self.tv.append(self.torch.tensor(arr, requires_grad=requires_grad))

    def try_step(self, step: Step, allow_error: bool = False) -> bool:
        p = P.BY_NAME[step.op]
        args = [self.tv[a] for a in step.args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = apply_step(self.torch, step, self.tv)
            except Exception:
                if not allow_error:
                    return False
                step.expect_error = True
                self.steps.append(step)
                self.tv.append(None)
                self.errors += 1
                return True
        if p.valid is not None and not p.valid([_np64(a) for a in args], step.params):
            return False
        res = out.detach()
        if res.dtype.is_floating_point:
            r = res.double().numpy()
            if not np.all(np.isfinite(r)) or np.abs(r).max(initial=0) > MAX_ABS_VALUE:
                return False
        if res.numel() == 0:
            return False
        self.steps.append(step)
        self.tv.append(out)
        return True

    def fix(self, idx: int, domain: str):
        """A value in ``domain`` derived from value ``idx`` (fixer steps), or None."""
        x = self.tv[idx]
        if DOMAINS[domain](_np64(x)):
            return idx
        if domain not in FIXERS or _kind(x) == "b":
            return None
        cur = idx
        for name, params in FIXERS[domain]:
            if not self.try_step(Step(name, (cur,), dict(params))):
                return None
            cur = len(self.tv) - 1
        return cur if DOMAINS[domain](_np64(self.tv[cur])) else None

    def misuse(self) -> None:
        """A call that torch rejects, kept as an error step (only its exception is compared)."""
        rng = self.rng
        misuses = [p for p in P.POOL if p.misuse]
        p = misuses[rng.integers(len(misuses))]
        live = [i for i, t in enumerate(self.tv) if t is not None and _kind(t) in p.kinds[0]]
        if not live:
            return
        i = int(live[rng.integers(len(live))])
        params = {}
        if p.params is not None:
            t = self.tv[i]
            params = p.params(rng, [P.Info(tuple(t.shape), _kind(t), str(t.dtype))])
            if params is None:
                return
        step = Step(p.name, (i,), params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                apply_step(self.torch, step, self.tv)
            except Exception:
                step.expect_error = True
                self.steps.append(step)
                self.tv.append(None)
                self.errors += 1

    def make_bool(self, live) -> list:
        """A comparison step giving a bool value, for ops that need one (where, logical_*)."""
        i = int(live[self.rng.integers(len(live))])
        x = _np64(self.tv[i])
        s = float(np.round(np.median(x), 1)) + 0.05 if x.size else 0.05
        if self.try_step(Step("gt_s", (i,), {"s": s})):
            return [len(self.tv) - 1]
        return []

    def draw_step(self) -> bool:
        rng = self.rng
        p = self.pool[rng.choice(len(self.pool), p=self.weights)]
        live = [i for i, t in enumerate(self.tv) if t is not None]
        wrong_kind = rng.random() < 0.05
        args = []
        for pos in range(p.arity):
            kinds = p.kinds[pos]
            cands = [i for i in live if wrong_kind or _kind(self.tv[i]) in kinds]
            if not cands and kinds == "b":
                cands = self.make_bool(live)
            if not cands:
                return False
            recency = np.array([1.0 + 3.0 * (i >= len(self.tv) - 2) for i in cands])
            i = int(cands[rng.choice(len(cands), p=recency / recency.sum())])
            i = self.fix(i, p.domain[pos]) if p.domain[pos] != "any" and not wrong_kind else i
            if i is None:
                return False
            args.append(i)
        params = {}
        if p.params is not None:
            infos = [
                P.Info(tuple(self.tv[a].shape), _kind(self.tv[a]), str(self.tv[a].dtype))
                for a in args
            ]
            params = p.params(rng, infos)
            if params is None:
                return False
        modes, probs = zip(*MODES)
        mode = modes[rng.choice(len(modes), p=np.array(probs) / sum(probs))]
        u = rng.random()
        post = "detach" if u < 0.05 else "detach_rg" if u < 0.10 else ""
        step = Step(p.name, tuple(args), params, mode, post, bool(rng.random() < 0.1))
        if post == "detach_rg":
            # Only floating values may require grad; others would make a (valid) error step.
            probe = Step(p.name, tuple(args), params, mode)
            with warnings.catch_warnings(), contextlib.suppress(Exception):
                warnings.simplefilter("ignore")
                if not apply_step(self.torch, probe, self.tv).dtype.is_floating_point:
                    step.post = "detach"
        allow_error = self.errors == 0 and (wrong_kind or rng.random() < 0.3)
        return self.try_step(step, allow_error)


def _leaf_shape(rng, base) -> tuple:
    if rng.random() < 0.1:
        return ()
    shape = list(base[int(rng.integers(0, len(base))) if rng.random() < 0.3 else 0 :])
    shape = [1 if rng.random() < 0.25 else s for s in shape]
    return tuple(shape)


def _try_generate(index: int, attempt: int, torch, pool) -> Graph | None:
    rng = np.random.default_rng([SEED, index, attempt])
    d = _Draft(torch, rng, pool)
    base = BASES[rng.integers(len(BASES))]
    n_leaves = int(rng.integers(1, 4))
    for i in range(n_leaves):
        u = rng.random()
        dtype = "float32" if u < 0.45 else "float64" if u < 0.85 else "int64"
        if i == 0 and rng.random() < 0.93:
            dtype = "float32" if u < 0.5 else "float64"
        rg = dtype != "int64" and (i == 0 or rng.random() < 0.7)
        d.leaf(_leaf_shape(rng, base), dtype, rg)
    n_steps = int(rng.integers(2, 8))
    misuse_at = int(rng.integers(n_steps)) if rng.random() < 0.3 else -1
    tries = 0
    while len(d.steps) < n_steps and tries < 60:
        tries += 1
        if len(d.steps) == misuse_at and d.errors == 0:
            d.misuse()
        d.draw_step()
    if len(d.steps) < 2:
        return None
    return _finish(index, d, rng)


def _finish(index: int, d: _Draft, rng, outputs=None) -> Graph | None:
    """Pick outputs and targets, draw the weights, and check the oracle's run is sane."""
    tv = d.tv
    live = [i for i, t in enumerate(tv) if t is not None]
    n = len(d.leaves)
    requiring = [i for i in live if tv[i].requires_grad]
    if outputs is None:
        out0 = requiring[-1] if requiring and rng.random() < 0.85 else live[-1]
        outputs = [out0]
        others = [i for i in live if i != out0 and i >= n]
        if others and rng.random() < 0.2:
            outputs.append(int(rng.choice(others)))
    targets = [i for i in live if tv[i].requires_grad and tv[i].is_leaf]
    non_leaf = [i for i in requiring if not tv[i].is_leaf]
    if non_leaf and rng.random() < 0.3:
        targets.append(int(rng.choice(non_leaf)))
    not_requiring = [i for i in live if not tv[i].requires_grad]
    bad = int(rng.choice(not_requiring)) if not_requiring and rng.random() < 0.2 else None

    def weight(t):
        dt = str(t.dtype).split(".")[-1] if t.dtype.is_floating_point else "float32"
        return np.round(rng.uniform(-1, 1, size=tuple(t.shape)), 3).astype(dt)

    g = Graph(
        index, d.leaves, d.steps, outputs, [weight(tv[i]) for i in outputs], targets,
        [weight(tv[i]) for i in targets], bad,
    )  # fmt: skip
    g.tol = (
        F32_TOL if any(t is not None and str(t.dtype) == "torch.float32" for t in tv) else F64_TOL
    )
    # The oracle's own run must be finite and moderate, or the graph is redrawn.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs = run(d.torch, g)
    for v in obs.values():
        for f in v if isinstance(v, tuple) else (v,):
            if (
                isinstance(f, Facts)
                and f.value.dtype.kind == "f"
                and (
                    not np.all(np.isfinite(f.value))
                    or np.abs(f.value).max(initial=0) > MAX_ABS_GRAD
                )
            ):
                return None
    return g


def generate(index: int) -> Graph:
    """Graph number ``index``, drawn from the fixed seed over the pool's ops."""
    import torch

    pool = [p for p in P.POOL if not p.misuse]
    for attempt in range(40):
        g = _try_generate(index, attempt, torch, pool)
        if g is not None:
            return g
    raise RuntimeError(f"could not draw graph {index}")  # pragma: no cover


SINGLE_SHAPES = [(2, 3), (3,), (3, 2), (2, 2), (2, 1, 3), (1, 3), (2, 1), (2, 3, 2), (2, 2, 3), ()]
_DOMAIN_RANGES = {
    "any": (-2, 2), "pos": (0.3, 2), "unit": (-0.8, 0.8), "gt1": (1.2, 3), "small": (-2, 2),
    "gtm1": (-0.5, 2), "nonzero": (0.3, 2),
}  # fmt: skip


def generate_single(name: str) -> Graph:
    """A one-step graph applying pool op ``name`` to float64 leaves (ints/bools where it must)."""
    import torch

    p = P.BY_NAME[name]
    for attempt in range(300):
        rng = np.random.default_rng([SEED, 1, attempt, *name.encode()])
        d = _Draft(torch, rng, [p])
        for pos in range(p.arity):
            kinds, domain = p.kinds[pos], p.domain[pos]
            shape = (
                SINGLE_SHAPES[0]
                if attempt < 3 and pos == 0
                else SINGLE_SHAPES[rng.integers(len(SINGLE_SHAPES))]
            )
            if "f" in kinds:
                lo, hi = _DOMAIN_RANGES[domain]
                arr = np.round(rng.uniform(lo, hi, size=shape), 3)
                if domain == "nonzero":
                    arr = arr * rng.choice([-1, 1], size=shape)
                d.leaves.append(Leaf(np.asarray(arr, dtype=np.float64), True))
            elif "i" in kinds:
                arr = rng.integers(1, 4, size=shape) * rng.choice([-1, 1], size=shape)
                d.leaves.append(Leaf(np.asarray(arr, dtype=np.int64), False))
            else:
                d.leaves.append(Leaf(np.asarray(rng.random(shape) < 0.5), False))
            leaf = d.leaves[-1]
            d.tv.append(torch.tensor(leaf.array, requires_grad=leaf.requires_grad))
        params = {}
        if p.params is not None:
            infos = [P.Info(tuple(t.shape), _kind(t), str(t.dtype)) for t in d.tv]
            params = p.params(rng, infos)
            if params is None:
                continue
        if not d.try_step(Step(name, tuple(range(p.arity)), params)):
            continue
        g = _finish(-1, d, rng, outputs=[p.arity])
        if g is not None:
            g.title = f"op-{name}"
            return g
    raise RuntimeError(f"could not draw a single-op graph for {name}")
