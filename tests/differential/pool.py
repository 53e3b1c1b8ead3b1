"""The op pool for random differential graphs: one row per op (or per interesting variant).

Each ``PoolOp`` names the op, gives its call for leafgrad and for torch (the same code, written
once against a module ``T`` and bound to each), its arity, what each argument may be (kind and
domain), how to draw its non-tensor parameters, and where it is ill-defined (kinks, ties,
discontinuities) so the generator can keep away. Every row is used: an op leafgrad lacks
raises in its leafgrad run only, so its graphs and its single-op test fail.

Argument kinds: ``f`` floating, ``i`` int64, ``b`` bool. Domains (checked on the actual values
and repaired by the generator when possible): ``any``, ``pos`` (> 0.1), ``nonzero``
(|x| > 0.2), ``unit`` (|x| < 0.9), ``gt1`` (> 1.1), ``small`` (|x| < 3), ``gtm1`` (> -0.9).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

MARGIN = 2e-3  # how far from a kink, a tie or a discontinuity every value must stay


@dataclass(frozen=True)
class Const:
    """An array parameter (an index, a mask) made into a tensor of each library at call time."""

    array: np.ndarray

    def __repr__(self) -> str:
        return f"Const({self.array.tolist()!r}, {self.array.dtype})"


@dataclass
class Info:
    """What the generator knows about a value when drawing parameters."""

    shape: tuple
    kind: str  # "f", "i" or "b"
    dtype: str


@dataclass(frozen=True)
class PoolOp:
    name: str
    lg: Callable = field(repr=False)
    th: Callable = field(repr=False)
    arity: int
    kinds: tuple  # per argument: a string of the kinds it accepts
    domain: tuple  # per argument: a domain name
    params: Callable | None = field(default=None, repr=False)  # (rng, infos) -> dict | None
    valid: Callable | None = field(default=None, repr=False)  # (arrays, params) -> bool
    check_name: bool | Callable = True  # compare grad_fn.name(); a callable sees torch args
    weight: float = 1.0
    misuse: bool = False  # a call torch rejects: only the exception type is compared


POOL: list[PoolOp] = []


def _resolve(T, a):
    return T.tensor(a.array) if isinstance(a, Const) else a


def _bind(fn, T):
    def call(*args, **params):
        params = {k: _resolve(T, v) for k, v in params.items()}
        return fn(T, *args, **params)

    return call


def op(
    name,
    fn,
    arity=1,
    *,
    kinds=None,
    domain=None,
    params=None,
    valid=None,
    check_name=True,
    weight=1.0,
    misuse=False,
):
    import torch

    import leafgrad

    POOL.append(
        PoolOp(
            name,
            _bind(fn, leafgrad),
            _bind(fn, torch),
            arity,
            tuple(kinds or ("fi",) * arity),
            tuple(domain or ("any",) * arity),
            params,
            valid,
            check_name,
            weight,
            misuse,
        )
    )


# ----------------------------------------------------------------------------- validity helpers


def _f(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def away(*points, arg=0):
    """Argument ``arg`` stays ``MARGIN`` away from each of ``points``."""

    def check(arrs, params):
        x = _f(arrs[arg])
        return all(np.all(np.abs(x - p) > MARGIN * (1 + abs(p))) for p in points)

    return check


def away_from_param(*keys, arg=0):
    def check(arrs, params):
        x = _f(arrs[arg])
        return all(
            params.get(k) is None or np.all(np.abs(x - params[k]) > MARGIN * (1 + abs(params[k])))
            for k in keys
        )

    return check


def away_from_integers(offset=0.0, arg=0, scale_key=None):
    """``x / scale - offset`` stays away from the integers (floor, round, remainder, ...)."""

    def check(arrs, params):
        x = _f(arrs[arg])
        if scale_key is not None:
            x = x / params[scale_key]
        d = x - offset
        return bool(np.all(np.abs(d - np.round(d)) > MARGIN * (1 + np.abs(d))))

    return check


def apart(i=0, j=1):
    """Arguments ``i`` and ``j`` differ everywhere (after broadcasting) by more than MARGIN."""

    def check(arrs, params):
        a, b = np.broadcast_arrays(_f(arrs[i]), _f(arrs[j]))
        return bool(np.all(np.abs(a - b) > MARGIN * (1 + np.abs(a))))

    return check


def ratio_away_from_integers():
    def check(arrs, params):
        a, b = np.broadcast_arrays(_f(arrs[0]), _f(arrs[1]))
        q = a / b
        return bool(np.all(np.abs(q - np.round(q)) > MARGIN * (1 + np.abs(q))))

    return check


def distinct(dim_key="dim", arg=0):
    """No ties among the values reduced over ``params[dim_key]`` (all values when None)."""

    def check(arrs, params):
        x = _f(arrs[arg])
        dims = params.get(dim_key)
        if x.ndim == 0:
            return True
        if dims is None:
            rows = x.reshape(1, -1)
        else:
            dims = (dims,) if isinstance(dims, int) else tuple(dims)
            dims = tuple(d % x.ndim for d in dims)
            rest = [d for d in range(x.ndim) if d not in dims]
            moved = np.transpose(x, rest + list(dims))
            k = int(np.prod([x.shape[d] for d in dims]))
            rows = moved.reshape(-1, k)
        if rows.shape[1] < 2:
            return True
        s = np.sort(rows, axis=1)
        return bool(np.all(np.diff(s, axis=1) > MARGIN * (1 + np.abs(s[:, 1:]))))

    return check


def all_of(*checks):
    def check(arrs, params):
        return all(c(arrs, params) for c in checks)

    return check


# ----------------------------------------------------------------------------- parameter helpers

SCALARS = (2, 3, -1, 0.5, 1.5, -2.5, 0.25, -0.75)
NONZERO_SCALARS = (2, -3, 0.5, 1.5, -2.5, 4)


def scalar(choices=SCALARS, key="s"):
    def draw(rng, infos):
        return {key: choices[rng.integers(len(choices))]}

    return draw


def a_dim(key="dim", min_ndim=1, keepdim=False, min_size=1):
    def draw(rng, infos):
        shape = infos[0].shape
        if len(shape) < min_ndim:
            return None
        if not shape:
            return {key: int(rng.choice([0, -1]))} | (
                {"keepdim": bool(rng.integers(2))} if keepdim else {}
            )
        dims = [d for d in range(len(shape)) if shape[d] >= min_size]
        if not dims:
            return None
        d = int(rng.choice(dims))
        if rng.random() < 0.3:
            d -= len(shape)
        out = {key: d}
        if keepdim:
            out["keepdim"] = bool(rng.integers(2))
        return out

    return draw


def some_dims(min_size=1):
    """A tuple of distinct dims (possibly all) plus keepdim."""

    def draw(rng, infos):
        shape = infos[0].shape
        if not shape:
            return None
        dims = [d for d in range(len(shape)) if shape[d] >= min_size]
        if not dims:
            return None
        k = int(rng.integers(1, len(dims) + 1))
        chosen = tuple(int(d) for d in rng.choice(dims, size=k, replace=False))
        return {"dim": chosen, "keepdim": bool(rng.integers(2))}

    return draw


def first_ndim(n):
    def draw(rng, infos):
        return {} if len(infos[0].shape) >= n else None

    return draw


def ndims(*ns):
    def draw(rng, infos):
        return {} if all(len(i.shape) == n for i, n in zip(infos, ns)) else None

    return draw


def reshape_params(rng, infos):
    shape = infos[0].shape
    n = int(np.prod(shape)) if shape else 1
    options = [(-1,), (n,), tuple(reversed(shape)), (1, n), (n, 1)]
    for d in (2, 3):
        if n % d == 0:
            options.append((d, -1))
            options.append((-1, d))
    return {"shape": options[rng.integers(len(options))]}


def expand_params(rng, infos):
    shape = infos[0].shape
    new = tuple(2 if s == 1 and rng.random() < 0.7 else s for s in shape)
    if rng.random() < 0.4:
        new = (2,) + new
    if new == shape:
        return None
    return {"shape": new}


def permute_params(rng, infos):
    nd = len(infos[0].shape)
    return {"dims": tuple(int(d) for d in rng.permutation(nd))}


def two_dims(rng, infos):
    nd = len(infos[0].shape)
    if nd < 1:
        return None
    d0, d1 = (int(v) for v in rng.integers(-nd, nd, size=2))
    return {"d0": d0, "d1": d1}


def squeeze_dim(rng, infos):
    shape = infos[0].shape
    if not shape:
        return None
    ones = [d for d, s in enumerate(shape) if s == 1]
    d = int(rng.choice(ones)) if ones and rng.random() < 0.8 else int(rng.integers(len(shape)))
    return {"dim": d}


def unsqueeze_dim(rng, infos):
    nd = len(infos[0].shape)
    return {"dim": int(rng.integers(-nd - 1, nd + 1))}


def flip_dims(rng, infos):
    nd = len(infos[0].shape)
    if nd == 0:
        return None
    k = int(rng.integers(1, nd + 1))
    return {"dims": tuple(int(d) for d in rng.choice(nd, size=k, replace=False))}


def roll_params(rng, infos):
    nd = len(infos[0].shape)
    if nd == 0:
        return None
    if rng.random() < 0.3:
        return {"shifts": int(rng.integers(-3, 4)), "dims": None}
    return {"shifts": int(rng.integers(-3, 4)), "dims": int(rng.integers(nd))}


def cat_params(rng, infos):
    a, b = infos[0].shape, infos[1].shape
    if len(a) != len(b) or not a:
        return None
    dims = [d for d in range(len(a)) if all(a[k] == b[k] for k in range(len(a)) if k != d)]
    if not dims:
        return None
    return {"dim": int(rng.choice(dims))}


def stack_params(rng, infos):
    a, b = infos[0].shape, infos[1].shape
    if a != b:
        return None
    return {"dim": int(rng.integers(-len(a) - 1, len(a) + 1))}


def index_params(rng, infos):
    """A basic or advanced index for ``x[key]``."""
    shape = infos[0].shape
    nd = len(shape)
    options = ["none", "ellipsis"]
    if nd >= 1:
        options += ["int", "negint", "slice", "step", "long", "mask"]
    if nd >= 2:
        options += ["int_slice", "slice_int"]
    kind = options[rng.integers(len(options))]
    if kind == "none":
        key = None
    elif kind == "ellipsis":
        key = (Ellipsis, None) if nd else Ellipsis
    elif kind == "int":
        key = int(rng.integers(shape[0]))
    elif kind == "negint":
        key = -1
    elif kind == "slice":
        key = slice(int(rng.integers(shape[0])), None)
    elif kind == "step":
        key = slice(None, None, 2)
    elif kind == "long":
        key = Const(rng.integers(0, shape[0], size=int(rng.integers(1, 5))).astype(np.int64))
    elif kind == "mask":
        key = Const(rng.random(shape) < 0.6)
    elif kind == "int_slice":
        key = (int(rng.integers(shape[0])), slice(None))
    else:
        key = (slice(None), int(rng.integers(shape[1])))
    return {"key": key}


def gather_params(rng, infos):
    shape = infos[0].shape
    if not shape:
        return None
    dim = int(rng.integers(len(shape)))
    idx_shape = tuple(int(rng.integers(1, s + 1)) for s in shape)
    idx_shape = idx_shape[:dim] + (int(rng.integers(1, 4)),) + idx_shape[dim + 1 :]
    index = rng.integers(0, shape[dim], size=idx_shape).astype(np.int64)
    return {"dim": dim, "index": Const(index)}


def index_select_params(rng, infos):
    shape = infos[0].shape
    if not shape:
        return None
    dim = int(rng.integers(len(shape)))
    index = rng.integers(0, shape[dim], size=int(rng.integers(1, 5))).astype(np.int64)
    return {"dim": dim, "index": Const(index)}


def masked_fill_params(rng, infos):
    shape = infos[0].shape
    mshape = tuple(1 if rng.random() < 0.3 else s for s in shape)
    return {"mask": Const(rng.random(mshape) < 0.5), "value": SCALARS[rng.integers(len(SCALARS))]}


def einsum1_params(rng, infos):
    nd = len(infos[0].shape)
    eqs = {1: ["i->", "i->i"], 2: ["ij->j", "ij->ji", "ij->", "ij->i"], 3: ["bij->bji", "bij->j"]}
    if nd == 2 and infos[0].shape[0] == infos[0].shape[1]:
        eqs[2] = eqs[2] + ["ii->i", "ii->"]
    if nd not in eqs:
        return None
    options = eqs[nd]
    return {"eq": options[rng.integers(len(options))]}


def einsum2_params(rng, infos):
    a, b = infos[0].shape, infos[1].shape
    options = []
    if len(a) == 1 and len(b) == 1:
        options += ["i,j->ij"] + (["i,i->", "i,i->i"] if a == b else [])
    if len(a) == 2 and len(b) == 2:
        if a[1] == b[0]:
            options.append("ij,jk->ik")
        if a == b:
            options += ["ij,ij->i", "ij,ij->"]
        if a[1] == b[1]:
            options.append("ij,kj->ik")
    if len(a) == 2 and len(b) == 1 and a[1] == b[0]:
        options.append("ij,j->i")
    if len(a) == 3 and len(b) == 3 and a[0] == b[0] and a[2] == b[1]:
        options.append("bij,bjk->bik")
    if not options:
        return None
    return {"eq": options[rng.integers(len(options))]}


def norm_params(rng, infos):
    shape = infos[0].shape
    p = [2, 1, 3, float("inf")][rng.integers(4)]
    if shape and rng.random() < 0.5:
        return {"p": p, "dim": int(rng.integers(len(shape))), "keepdim": bool(rng.integers(2))}
    return {"p": p, "dim": None, "keepdim": False}


def std_params(rng, infos):
    shape = infos[0].shape
    if not shape:
        return None
    dims = [d for d, s in enumerate(shape) if s >= 2]
    if not dims:
        return None
    out = {"dim": int(rng.choice(dims)), "keepdim": bool(rng.integers(2))}
    if rng.random() < 0.3:
        out["dim"] = None
        out["keepdim"] = False
    out["correction"] = int(rng.integers(2))
    return out


def _norm_valid(arrs, params):
    x = _f(arrs[0])
    if params["p"] == 2 or params["p"] == 3:
        axis = params["dim"]
        n = np.sqrt((x * x).sum(axis=axis))
        return bool(np.all(n > 0.1))
    if params["p"] == 1:
        return bool(np.all(np.abs(x) > MARGIN))
    return distinct_abs(arrs, params)


def _atan2_valid(arrs, params):
    """Away from the origin and from the branch cut (x < 0, y = 0) where atan2 jumps by 2 pi."""
    y, x = np.broadcast_arrays(_f(arrs[0]), _f(arrs[1]))
    return bool(np.all(np.hypot(y, x) > 0.1) and not np.any((x < 0) & (np.abs(y) < 0.05)))


def distinct_abs(arrs, params):
    return distinct("dim")([np.abs(_f(arrs[0]))], params) and bool(
        np.all(np.abs(_f(arrs[0])) > MARGIN)
    )


def _std_valid(arrs, params):
    x = _f(arrs[0])
    return bool(np.all(x.std(axis=params["dim"]) > 0.05))


# ----------------------------------------------------------------------------- the pool
# fmt: off

F, FI, FIB, B = "f", "fi", "fib", "b"
_contiguous = lambda args: args[0].is_contiguous()

# Binary arithmetic, tensor with tensor (broadcasting).
op("add", lambda T, a, b: a + b, 2, kinds=(FIB, FIB), weight=2)
op("add_alpha", lambda T, a, b, *, alpha: T.add(a, b, alpha=alpha), 2,
   params=scalar((2, -1, 3), "alpha"))
op("sub", lambda T, a, b: a - b, 2, weight=2)
op("sub_alpha", lambda T, a, b, *, alpha: T.sub(a, b, alpha=alpha), 2,
   params=scalar((2, -1), "alpha"))
op("rsub", lambda T, a, b: T.rsub(a, b), 2)
op("mul", lambda T, a, b: a * b, 2, kinds=(FIB, FI), weight=2)
op("div", lambda T, a, b: a / b, 2, domain=("any", "nonzero"), weight=1.5)
op("pow", lambda T, a, b: a**b, 2, kinds=(F, FI), domain=("pos", "small"))
op("atan2", lambda T, a, b: T.atan2(a, b), 2, valid=_atan2_valid)
op("maximum", lambda T, a, b: T.maximum(a, b), 2, valid=apart())
op("minimum", lambda T, a, b: T.minimum(a, b), 2, valid=apart())
op("remainder", lambda T, a, b: T.remainder(a, b), 2, domain=("any", "nonzero"),
   valid=ratio_away_from_integers())
op("fmod", lambda T, a, b: T.fmod(a, b), 2, domain=("any", "nonzero"),
   valid=ratio_away_from_integers())
op("where", lambda T, c, a, b: T.where(c, a, b), 3, kinds=(B, FI, FI), weight=2.5)
op("clamp_t", lambda T, x, lo: T.clamp(x, min=lo), 2, valid=apart())
# torch's own clamp backward fails ("output with shape [1] doesn't match the broadcast shape")
# when x and a bound are both broadcast up, e.g. x: (), min: (4,), max: (1,); keep x full size.
op("clamp_tt", lambda T, x, lo, hi: T.clamp(x, lo, hi), 3, valid=all_of(
    apart(0, 1), apart(0, 2), apart(1, 2),
    lambda arrs, p: np.shape(arrs[0]) == np.broadcast_shapes(*(np.shape(a) for a in arrs))))

# Arithmetic with a Python scalar on either side.
op("add_s", lambda T, x, *, s: x + s, params=scalar(), weight=2)
op("radd_s", lambda T, x, *, s: s + x, params=scalar())
op("sub_s", lambda T, x, *, s: x - s, params=scalar())
op("rsub_s", lambda T, x, *, s: s - x, params=scalar(), weight=1.5)
op("mul_s", lambda T, x, *, s: x * s, params=scalar(), weight=2)
op("rmul_s", lambda T, x, *, s: s * x, params=scalar())
op("div_s", lambda T, x, *, s: x / s, params=scalar(NONZERO_SCALARS))
op("rdiv_s", lambda T, x, *, s: s / x, domain=("nonzero",), params=scalar(NONZERO_SCALARS),
   weight=1.5)
op("pow_s", lambda T, x, *, s: x**s, params=scalar((2, 3, 1, 0)), weight=1.5)
op("pow_s_pos", lambda T, x, *, s: x**s, kinds=(F,), domain=("pos",),
   params=scalar((0.5, 1.5, -0.5, 2.5)))
op("pow_s_neg", lambda T, x, *, s: x**s, kinds=(F,), domain=("nonzero",), params=scalar((-1, -2)))
op("rpow_s", lambda T, x, *, s: s**x, domain=("small",), params=scalar((2, 0.5, 3.0)))
op("clamp_s", lambda T, x, *, lo, hi: T.clamp(x, min=lo, max=hi),
   params=lambda rng, infos: [{"lo": -0.5, "hi": None}, {"lo": None, "hi": 0.75},
                              {"lo": -1.0, "hi": 1.0}, {"lo": 0, "hi": None}][rng.integers(4)],
   valid=away_from_param("lo", "hi"))
op("clamp_min_s", lambda T, x, *, s: x.clamp_min(s), params=scalar((0.0, -0.5)),
   valid=away_from_param("s"))
op("remainder_s", lambda T, x, *, s: T.remainder(x, s), params=scalar((2.0, 1.5, -2.0, 3)),
   valid=away_from_integers(scale_key="s"))
op("mod_s", lambda T, x, *, s: x % s, params=scalar((2.0, 3)),
   valid=away_from_integers(scale_key="s"))
op("fmod_s", lambda T, x, *, s: T.fmod(x, s), params=scalar((2.0, -1.5, 3)),
   valid=away_from_integers(scale_key="s"))
op("div_floor_s", lambda T, x, *, s: T.div(x, s, rounding_mode="floor"),
   params=scalar((2.0, -1.5, 3)), valid=away_from_integers(scale_key="s"))
op("div_trunc", lambda T, a, b: T.div(a, b, rounding_mode="trunc"), 2, domain=("any", "nonzero"),
   valid=ratio_away_from_integers())
op("floordiv_s", lambda T, x, *, s: x // s, params=scalar((2.0, 3)),
   valid=away_from_integers(scale_key="s"), weight=0.5)
op("where_s", lambda T, c, x, *, s: T.where(c, x, s), 2, kinds=(B, FI), params=scalar(), weight=1.5)

# Unary functions.
op("neg", lambda T, x: -x)
op("neg_fn", lambda T, x: T.neg(x))
op("abs", lambda T, x: x.abs(), valid=away(0.0))
op("sign", lambda T, x: T.sign(x), valid=away(0.0))
op("reciprocal", lambda T, x: x.reciprocal(), domain=("nonzero",))
op("sqrt", lambda T, x: T.sqrt(x), domain=("pos",))
op("rsqrt", lambda T, x: x.rsqrt(), domain=("pos",))
op("square", lambda T, x: T.square(x))
op("exp", lambda T, x: T.exp(x), domain=("small",), weight=1.5)
op("expm1", lambda T, x: x.expm1(), domain=("small",))
op("log", lambda T, x: T.log(x), domain=("pos",), weight=1.5)
op("log2", lambda T, x: T.log2(x), domain=("pos",))
op("log10", lambda T, x: x.log10(), domain=("pos",))
op("log1p", lambda T, x: T.log1p(x), domain=("gtm1",))
op("sin", lambda T, x: T.sin(x), weight=1.5)
op("cos", lambda T, x: x.cos())
op("tan", lambda T, x: T.tan(x), domain=("unit",))
op("asin", lambda T, x: T.asin(x), domain=("unit",))
op("acos", lambda T, x: x.acos(), domain=("unit",))
op("atan", lambda T, x: T.atan(x))
op("sinh", lambda T, x: T.sinh(x), domain=("small",))
op("cosh", lambda T, x: x.cosh(), domain=("small",))
op("tanh", lambda T, x: T.tanh(x), weight=1.5)
op("asinh", lambda T, x: T.asinh(x))
op("acosh", lambda T, x: T.acosh(x), domain=("gt1",))
op("atanh", lambda T, x: x.atanh(), domain=("unit",))
op("sigmoid", lambda T, x: T.sigmoid(x), weight=1.5)
op("erf", lambda T, x: T.erf(x))
op("erfc", lambda T, x: x.erfc())
op("relu", lambda T, x: T.relu(x), valid=away(0.0), weight=1.5)
op("floor", lambda T, x: T.floor(x), valid=away_from_integers())
op("ceil", lambda T, x: x.ceil(), valid=away_from_integers())
op("trunc", lambda T, x: T.trunc(x), valid=away_from_integers())
op("round", lambda T, x: T.round(x), valid=away_from_integers(0.5))
op("round_dec", lambda T, x: T.round(x, decimals=1), kinds=(F,),
   valid=lambda arrs, p: away_from_integers(0.5)([_f(arrs[0]) * 10], p))
op("clone", lambda T, x: x.clone(), kinds=(FIB,))
op("to64", lambda T, x: x.to(T.float64), kinds=(FIB,))
op("to32", lambda T, x: x.to(dtype=T.float32), kinds=(FIB,))
op("double", lambda T, x: x.double(), kinds=(FIB,))
op("float", lambda T, x: x.float(), kinds=(FIB,))
op("long", lambda T, x: x.long(), kinds=(FIB,), valid=away_from_integers())
op("leaky_relu", lambda T, x: T.nn.functional.leaky_relu(x, 0.1), kinds=(F,), valid=away(0.0))
op("elu", lambda T, x: T.nn.functional.elu(x), kinds=(F,), valid=away(0.0))
op("gelu", lambda T, x: T.nn.functional.gelu(x), kinds=(F,))
op("gelu_tanh", lambda T, x: T.nn.functional.gelu(x, approximate="tanh"), kinds=(F,))
op("silu", lambda T, x: T.nn.functional.silu(x), kinds=(F,))
op("softplus", lambda T, x: T.nn.functional.softplus(x), kinds=(F,))

# Comparisons and logic (bool results: no grad, but they feed where/mul/sum).
op("gt_s", lambda T, x, *, s: x > s, params=scalar(), valid=away_from_param("s"))
op("le_s", lambda T, x, *, s: x <= s, params=scalar(), valid=away_from_param("s"))
op("lt", lambda T, a, b: a < b, 2, valid=apart())
op("ge_fn", lambda T, a, b: T.ge(a, b), 2, valid=apart())
op("eq_int", lambda T, a, b: a == b, 2, kinds=("i", "i"))
op("ne_s", lambda T, x, *, s: x != s, kinds=("i",), params=scalar((0, 1, -1)))
op("logical_and", lambda T, a, b: T.logical_and(a, b), 2, kinds=(B, B))
op("logical_not", lambda T, x: T.logical_not(x), kinds=(B,))
op("isfinite", lambda T, x: T.isfinite(x), weight=0.3)

# Reductions.
op("sum", lambda T, x: x.sum(), kinds=(FIB,), weight=1.5)
op("sum_dim", lambda T, x, *, dim, keepdim: x.sum(dim, keepdim=keepdim), kinds=(FIB,),
   params=a_dim(keepdim=True))
op("sum_dims", lambda T, x, *, dim, keepdim: T.sum(x, dim=dim, keepdim=keepdim), params=some_dims())
op("mean", lambda T, x: x.mean(), kinds=(F,))
op("mean_dim", lambda T, x, *, dim, keepdim: T.mean(x, dim, keepdim), kinds=(F,),
   params=a_dim(keepdim=True))
op("prod", lambda T, x: x.prod(), valid=away(0.0))
op("prod_dim", lambda T, x, *, dim, keepdim: T.prod(x, dim, keepdim=keepdim),
   params=a_dim(keepdim=True), valid=away(0.0))
op("amax", lambda T, x, *, dim, keepdim: T.amax(x, dim, keepdim), params=some_dims(),
   valid=distinct())
op("amin", lambda T, x, *, dim, keepdim: x.amin(dim=dim, keepdim=keepdim), params=some_dims(),
   valid=distinct())
op("max_all", lambda T, x: x.max(), valid=distinct())
op("min_all", lambda T, x: T.min(x), valid=distinct())
op("max_dim", lambda T, x, *, dim, keepdim: T.max(x, dim, keepdim).values,
   params=a_dim(keepdim=True), valid=distinct())
op("max_dim_indices", lambda T, x, *, dim: x.max(dim=dim)[1], params=a_dim(), valid=distinct())
op("min_dim", lambda T, x, *, dim: T.min(x, dim=dim)[0], params=a_dim(), valid=distinct())
op("argmax", lambda T, x, *, dim: T.argmax(x, dim=dim), params=a_dim(), valid=distinct())
op("std",
   lambda T, x, *, dim, keepdim, correction: x.std(dim=dim, keepdim=keepdim, correction=correction),
   kinds=(F,), params=std_params, valid=_std_valid)
op("var",
   lambda T, x, *, dim, keepdim, correction: T.var(x, dim, keepdim=keepdim, correction=correction),
   kinds=(F,), params=std_params, valid=_std_valid)
op("var_unbiased", lambda T, x: x.var(unbiased=False), kinds=(F,),
   params=lambda rng, infos: {} if (infos[0].shape and int(np.prod(infos[0].shape)) > 1) else None,
   valid=lambda a, p: _f(a[0]).std() > 0.05)
op("norm", lambda T, x, *, p, dim, keepdim: x.norm(p=p, dim=dim, keepdim=keepdim), kinds=(F,),
   params=norm_params, valid=_norm_valid)
op("logsumexp", lambda T, x, *, dim, keepdim: T.logsumexp(x, dim, keepdim=keepdim), kinds=(F,),
   params=a_dim(keepdim=True))
op("softmax", lambda T, x, *, dim: T.softmax(x, dim), kinds=(F,), params=a_dim())
op("log_softmax", lambda T, x, *, dim: x.log_softmax(dim=dim), kinds=(F,), params=a_dim())
op("cumsum", lambda T, x, *, dim: T.cumsum(x, dim), kinds=(F,), params=a_dim())
op("cumprod", lambda T, x, *, dim: x.cumprod(dim), kinds=(F,), params=a_dim(), valid=away(0.0))

# Shape.
op("reshape", lambda T, x, *, shape: x.reshape(shape), kinds=(FIB,), params=reshape_params,
   check_name=_contiguous, weight=1.5)
op("view", lambda T, x, *, shape: x.view(*shape), kinds=(FIB,), params=reshape_params)
op("flatten", lambda T, x: T.flatten(x), kinds=(FIB,), check_name=_contiguous)
op("expand", lambda T, x, *, shape: x.expand(*shape), kinds=(FIB,), params=expand_params)
op("permute", lambda T, x, *, dims: x.permute(*dims), kinds=(FIB,), params=permute_params)
op("permute_fn", lambda T, x, *, dims: T.permute(x, dims), params=permute_params)
op("transpose", lambda T, x, *, d0, d1: x.transpose(d0, d1), kinds=(FIB,), params=two_dims)
op("t", lambda T, x: x.t(), params=lambda rng, infos: {} if len(infos[0].shape) <= 2 else None)
op("mT", lambda T, x: x.mT, params=first_ndim(2))
# Only 2-D: torch warns once per process (TORCH_WARN_ONCE) for x.T on other ranks, which would
# make the warnings observed depend on test order.
op("T2", lambda T, x: x.T, params=lambda rng, infos: {} if len(infos[0].shape) == 2 else None)
op("squeeze", lambda T, x: x.squeeze(), kinds=(FIB,))
op("squeeze_dim", lambda T, x, *, dim: T.squeeze(x, dim), params=squeeze_dim)
op("unsqueeze", lambda T, x, *, dim: x.unsqueeze(dim), kinds=(FIB,), params=unsqueeze_dim)
op("unsqueeze_fn", lambda T, x, *, dim: T.unsqueeze(x, dim), params=unsqueeze_dim)
op("cat", lambda T, a, b, *, dim: T.cat([a, b], dim), 2, kinds=(FIB, FIB), params=cat_params,
   weight=1.5)
op("stack", lambda T, a, b, *, dim: T.stack((a, b), dim=dim), 2, params=stack_params)
op("flip", lambda T, x, *, dims: T.flip(x, dims), kinds=(FIB,), params=flip_dims)
op("roll", lambda T, x, *, shifts, dims: T.roll(x, shifts, dims), params=roll_params)
op("repeat", lambda T, x: x.repeat(2, *([1] * x.dim())))
op("chunk0", lambda T, x: x.chunk(2, dim=-1)[0], params=first_ndim(1))
op("unbind1", lambda T, x: T.unbind(x, 0)[-1], params=first_ndim(1))

# Indexing.
op("getitem", lambda T, x, *, key: x[key], kinds=(FIB,), params=index_params, weight=2)
op("gather", lambda T, x, *, dim, index: T.gather(x, dim, index), params=gather_params)
op("index_select", lambda T, x, *, dim, index: x.index_select(dim, index),
   params=index_select_params)
op("masked_fill", lambda T, x, *, mask, value: x.masked_fill(mask, value),
   params=masked_fill_params)

# Linear algebra.
op("matmul", lambda T, a, b: a @ b, 2, kinds=(F, F), weight=2)
op("matmul_fn", lambda T, a, b: T.matmul(a, b), 2, kinds=(F, F))
op("mm", lambda T, a, b: T.mm(a, b), 2, kinds=(F, F), params=ndims(2, 2))
op("mv", lambda T, a, b: T.mv(a, b), 2, kinds=(F, F), params=ndims(2, 1))
op("dot", lambda T, a, b: T.dot(a, b), 2, kinds=(F, F), params=ndims(1, 1))
op("outer", lambda T, a, b: T.outer(a, b), 2, kinds=(F, F), params=ndims(1, 1))
op("bmm", lambda T, a, b: T.bmm(a, b), 2, kinds=(F, F), params=ndims(3, 3))
op("einsum1", lambda T, x, *, eq: T.einsum(eq, x), kinds=(F,), params=einsum1_params)
op("einsum2", lambda T, a, b, *, eq: T.einsum(eq, a, b), 2, kinds=(F, F), params=einsum2_params)


# Misuse: calls torch rejects, each with the exception type leafgrad must raise too.
def _oob_dim(rng, infos):
    return {"dim": len(infos[0].shape) + 1}


def _bad_shape(rng, infos):
    n = int(np.prod(infos[0].shape)) if infos[0].shape else 1
    return {"shape": (n + 1,)}


def _oob_index(rng, infos):
    shape = infos[0].shape
    return {"key": shape[0] + 1} if shape else None


def misuse(name, fn, arity=1, **kw):
    op(name, fn, arity, misuse=True, **kw)


misuse("bad_sum_dim", lambda T, x, *, dim: x.sum(dim), params=_oob_dim)
misuse("bad_softmax_dim", lambda T, x, *, dim: T.softmax(x, dim), kinds=(F,), params=_oob_dim)
misuse("bad_transpose_dim", lambda T, x, *, dim: x.transpose(0, dim), params=_oob_dim)
misuse("bad_reshape", lambda T, x, *, shape: x.reshape(shape), params=_bad_shape)
misuse("bad_expand", lambda T, x: x.expand(5, 7))
misuse("bad_index", lambda T, x, *, key: x[key], params=_oob_index)
misuse("bool_sub", lambda T, x: (x > 0) - (x > 0))
misuse("bool_neg", lambda T, x: -(x > 0))
misuse("bool_rsub", lambda T, x: 1 - (x > 0))
misuse("int_mean", lambda T, x: x.long().mean())
misuse("int_pow_negative", lambda T, x: x.long() ** -1)
misuse("float_condition", lambda T, x: T.where(x, x, x), kinds=(F,))
misuse("float_bitwise", lambda T, x: x & x, kinds=(F,))
misuse("broadcast_mismatch", lambda T, x: x + T.ones(tuple(s + 1 for s in x.shape) or (2,)),
       params=lambda rng, infos: {} if infos[0].shape else None)
misuse("cat_mismatch", lambda T, x: T.cat([x, T.ones(5, 7, 1)], 0))
misuse("matmul_mismatch", lambda T, x: x @ T.ones(5, 7), kinds=(F,))
misuse("clamp_no_bounds", lambda T, x: T.clamp(x))
misuse("div_bad_rounding", lambda T, x: T.div(x, 2, rounding_mode="round"))
# fmt: on

BY_NAME = {p.name: p for p in POOL}
assert len(BY_NAME) == len(POOL), "duplicate pool names"
