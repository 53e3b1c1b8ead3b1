"""Propagating jets (Taylor coefficients) through primitives, from their declarations.

Two modes (see ``leafgrad.autograd.taylor``):

- ``("taylor", K)``: a tensor's ``_jet`` is ``(x1, ..., xK)``, the normalised Taylor
  coefficients of ``x(t)`` along one direction (``x(t) = x + x1 t + x2 t^2 + ...``).
- ``("collapsed", w)``: ``_jet`` is ``(J, L)`` with ``J`` a tuple of first derivatives along
  directions ``q_k`` and ``L = sum_k w[k] * (second derivative along q_k)``: with unit
  directions and unit weights, the gradient and the Laplacian.

No op needs code of its own here: each primitive's ``kind`` (``_optable``) says how.
``Linear`` ops map every coefficient; ``PiecewiseLinear`` ops (relu, clamp, where ...) apply
their VJP rules to coefficients; ``Bilinear`` ops (mul, matmul ...) combine coefficients by
the product rule; ``Unary`` ops with a first derivative ``d1`` (and ``d2``) follow
``y' = d1(x) x'``; ``Composite`` ops are evaluated as their ``taylor_as`` (division as
``x * (1/y)``). Any other op with a JVP rule (softmax, norm, prod ...) is evaluated on nested
dual numbers (``_hyperduals``), about 2^K JVPs for order K: exact, but the slow path.
All of it runs in leafgrad ops, so ``backward()`` through a jet pass gives parameter grads.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from .._engine.forward import jet_mode, jet_state
from .._tensor import Tensor, _wrap, _zeros_like
from ._hyperduals import (
    collapsed_by_nested_duals,
    is_jet_input,
    nested_duals,
    push_multi_collapsed,
    taylor_by_nested_duals,
)
from ._optable import Bilinear, Composite, Linear, PiecewiseLinear, Unary
from ._tangents import sum_present, tangent_sum, through_diagonal


class _Carriers(threading.local):
    def __init__(self) -> None:
        self.refs: list | None = None  # weak references to the tensors given a jet in a pass


_carriers = _Carriers()


class jet_pass:
    """One Taylor pass: ``mode`` while the block runs; afterwards no tensor keeps its jet.

    A tensor's jet is computed from the tensor itself (``f'(y)`` from ``y = tanh(x)``), so a
    jet left on it after the pass is a reference cycle that keeps the whole pass alive until
    the garbage collector runs.
    """

    __slots__ = ("mode", "outer", "refs")

    def __init__(self, mode) -> None:
        self.mode = jet_mode(mode)

    def __enter__(self) -> None:
        self.outer = _carriers.refs
        self.refs = _carriers.refs = []
        self.mode.__enter__()

    def __exit__(self, *exc) -> None:
        self.mode.__exit__(*exc)
        _carriers.refs = self.outer
        for ref in self.refs:
            t = ref()
            if t is not None:
                t._jet = None

    @staticmethod
    def carry(t: Tensor, jet) -> Tensor:
        """Give ``t`` its jet for the pass being run."""
        t._jet = jet
        if _carriers.refs is not None:
            _carriers.refs.append(weakref.ref(t))
        return t


def _carried(result) -> None:
    refs = _carriers.refs
    if refs is None:
        return
    for r in result if type(result) is tuple else (result,):
        if r._jet is not None:
            refs.append(weakref.ref(r))


def _coefficient_args(prim, args, jets, k):
    """Arguments for a linear map of coefficient ``k`` (an affine op's numbers: zero)."""
    out = []
    for a, jet in zip(args, jets):
        if is_jet_input(a):
            out.append(jet[k] if jet is not None else _zeros_like(a))
        elif prim.affine and isinstance(a, (int, float, np.number)) and not isinstance(a, bool):
            out.append(0)
        else:
            out.append(a)
    return out


# Names of ops a packed jet may compute whole, result and jet in one fused node (``call``):
# filled by ``fused_jets`` (this module cannot import it).
CALLS: set = set()


def call(op, args, params):
    """``op(*args, **params)`` with its jet from one fused node, where an input has a packed
    jet that has one for it (``fused_jets.PackedJet.call``, run with the jet mode
    suspended); else None."""
    for a in args:
        if isinstance(a, Tensor) and a._jet is not None:
            jet = a._jet
            break
    else:
        return None
    if type(jet) is tuple:
        return None
    # Suspended as ``jet_mode(None)`` would, but without its count of special modes (a
    # lock, twice per layer): the ops run meanwhile see no jet mode, and only take the
    # general path they take in jet mode anyway.
    state = jet_state
    mode, state.mode = state.mode, None
    try:
        result = jet.call(op, args, params)
    finally:
        state.mode = mode
    if result is not None:
        _carried(result)
    return result


def push(op, args, params, result) -> None:
    """Give ``result`` its jet, if any input has one, in the active jet mode."""
    mode = jet_state.mode
    jets = [a._jet if (type(a) is Tensor or isinstance(a, Tensor)) else None for a in args]
    packed = None
    for j in jets:
        if j is not None and type(j) is not tuple:
            packed = j  # a packed jet (``fused_jets``) handles the ops it knows itself
    if packed is None:
        if all(j is None for j in jets):
            return
    else:
        if packed.push(op, args, params, result, jets):  # suspends the mode where it must
            _carried(result)
            return
        with jet_mode(None):
            jets = [j.unpack() if j is not None and type(j) is not tuple else j for j in jets]
    prim = op.primitive
    if type(result) is tuple:
        _push_multi(op, prim, args, params, result, jets, mode)
    elif result._data.dtype.kind == "f":
        with jet_mode(None):  # coefficient arithmetic itself carries no jets
            result._jet = _generic(op, prim, args, params, result, jets, mode)
    if packed is not None:
        with jet_mode(None):
            for r in result if type(result) is tuple else (result,):
                packed.repack(r)
    _carried(result)


def _generic(op, prim, args, params, result, jets, mode):
    if mode[0] == "taylor":
        return _taylor(op, prim, args, params, result, jets, mode[1])
    if mode[0] == "collapsed":
        return _collapsed(op, prim, args, params, result, jets, mode[1])
    return _seconds(op, prim, args, params, result, jets, mode[1])


def _row_args(args, jets, s):
    """Inputs (and their jets) as one collapsed pass over second-order row ``s`` sees them."""
    row_jets = [None if j is None else (j[0], j[1][s]) for j in jets]
    row_args = [a if j is None else _with_jet(a, j) for a, j in zip(args, row_jets)]
    return row_args, row_jets


def _seconds(op, prim, args, params, result, jets, rows):
    """Mode ``("seconds", rows)``: first-order channels and one second-order channel per row
    of weights, by one collapsed evaluation per row (the fallback of the fused path)."""
    directions, seconds = None, []
    for s, row in enumerate(rows):
        row_args, row_jets = _row_args(args, jets, s)
        first, second = _collapsed(op, prim, row_args, params, result, row_jets, row)
        directions = first if directions is None else directions
        seconds.append(second)
    return directions, tuple(seconds)


def _taylor(op, prim, args, params, result, jets, order):
    kind = prim.kind  # isinstance tests, not ``match``: Cython compiles this module
    if isinstance(kind, Linear):
        return tuple(op(*_coefficient_args(prim, args, jets, k), **params) for k in range(order))
    if isinstance(kind, PiecewiseLinear):
        return tuple(_through_vjps(prim, args, params, result, jets, k) for k in range(order))
    if isinstance(kind, Bilinear):
        return _taylor_bilinear(op, args, params, jets, order)
    if isinstance(kind, Composite):
        return _via_composite(kind.taylor_as, args, params, jets, ("taylor", order))
    if isinstance(kind, Unary):
        return _taylor_unary(kind, args, params, result, jets, order)
    if prim.jvp is not None:
        return taylor_by_nested_duals(op, args, params, jets, order)
    raise _no_rule(op)


def _collapsed(op, prim, args, params, result, jets, weights):
    n = len(weights)
    kind = prim.kind
    if isinstance(kind, Linear):
        directions = tuple(
            op(*_coefficient_args(prim, args, _direction(jets, i), 0), **params) for i in range(n)
        )
        lap = op(*_coefficient_args(prim, args, _second(jets), 0), **params)
        return directions, lap
    if isinstance(kind, PiecewiseLinear):
        directions = tuple(
            _through_vjps(prim, args, params, result, _direction(jets, i), 0) for i in range(n)
        )
        return directions, _through_vjps(prim, args, params, result, _second(jets), 0)
    if isinstance(kind, Bilinear):
        return _collapsed_bilinear(op, args, params, jets, weights)
    if isinstance(kind, Composite):
        return _via_composite(kind.taylor_as, args, params, jets, ("collapsed", weights))
    if isinstance(kind, Unary) and kind.d2 is not None:
        return _collapsed_unary(kind, args, params, result, jets, weights)
    if prim.jvp is not None:
        return collapsed_by_nested_duals(op, args, params, jets, weights)
    raise _no_rule(op)


def _push_multi(op, prim, args, params, results, jets, mode) -> None:
    """Several outputs (split, unbind ...): only linear ops, each output its coefficients."""
    if mode[0] == "seconds":
        _push_multi_seconds(op, prim, args, params, results, jets, mode[1])
        return
    if not prim.linear:
        if prim.jvp is None:
            raise _no_rule(op)
        with jet_mode(None):
            if mode[0] == "taylor":
                per_output = nested_duals(op, args, params, jets, mode[1])
                for r, coeffs in zip(results, per_output):
                    if coeffs is not None:
                        r._jet = coeffs
            else:
                push_multi_collapsed(op, args, params, results, jets, mode[1])
        return
    with jet_mode(None):
        if mode[0] == "taylor":
            per_order = [
                op(*_coefficient_args(prim, args, jets, k), **params) for k in range(mode[1])
            ]
            for i, r in enumerate(results):
                r._jet = tuple(coeffs[i] for coeffs in per_order)
        else:
            n = len(mode[1])
            per_direction = [
                op(*_coefficient_args(prim, args, _direction(jets, d), 0), **params)
                for d in range(n)
            ]
            lap = op(*_coefficient_args(prim, args, _second(jets), 0), **params)
            for i, r in enumerate(results):
                r._jet = (tuple(p[i] for p in per_direction), lap[i])


def _push_multi_seconds(op, prim, args, params, results, jets, rows) -> None:
    """``_seconds`` for several outputs: one collapsed evaluation per row of weights."""
    per_row = []
    for s, row in enumerate(rows):
        row_args, row_jets = _row_args(args, jets, s)
        _push_multi(op, prim, row_args, params, results, row_jets, ("collapsed", row))
        per_row.append([r._jet for r in results])
    for i, r in enumerate(results):
        if per_row[0][i] is not None:
            r._jet = (per_row[0][i][0], tuple(row[i][1] for row in per_row))


def _no_rule(op) -> RuntimeError:
    return RuntimeError(
        f"{op.__name__}: this op has no Taylor-mode rule (it is not linear, piecewise linear, "
        "bilinear or elementwise with known derivatives), so it cannot be used inside "
        "taylor.coefficients / taylor.laplacian; use nested autograd.grad instead"
    )


def _direction(jets, i):
    return [None if j is None else (j[0][i],) for j in jets]


def _second(jets):
    return [None if j is None else (j[1],) for j in jets]


def _through_vjps(prim, args, params, result, jets, k):
    """Piecewise-linear ops: the diagonal VJP rules map coefficient ``k``."""
    coefficients = [None if jet is None else jet[k] for jet in jets]
    out = through_diagonal(prim.vjp, coefficients, args, result, params)
    return out if out is not None else _zeros_like(result)


def _operand_coefficients(a, jet, order):
    """Coefficients 0..order of an operand (a constant's higher ones are None: zero)."""
    if jet is None:
        return [a] + [None] * order
    return [a] + list(jet[:order])


def _taylor_bilinear(op, args, params, jets, order):
    (a, b), (ja, jb) = args[:2], jets[:2]
    rest = args[2:]
    ca = _operand_coefficients(a, ja, order)
    cb = _operand_coefficients(b, jb, order)
    out = []
    for k in range(1, order + 1):
        total = sum_present(
            op(ca[j], cb[k - j], *rest, **params)
            for j in range(k + 1)
            if ca[j] is not None and cb[k - j] is not None
        )
        out.append(total if total is not None else _zeros_like(op(a, b, *rest, **params)))
    return tuple(out)


def _collapsed_bilinear(op, args, params, jets, weights):
    (a, b), (ja, jb) = args[:2], jets[:2]
    rest = args[2:]

    def prod(x, y):
        return op(x, y, *rest, **params)

    directions = []
    for i in range(len(weights)):
        terms = []
        if ja is not None:
            terms.append(prod(ja[0][i], b))
        if jb is not None:
            terms.append(prod(a, jb[0][i]))
        directions.append(tangent_sum(*terms))
    lap_terms = []
    if ja is not None:
        lap_terms.append(prod(ja[1], b))
    if jb is not None:
        lap_terms.append(prod(a, jb[1]))
    if ja is not None and jb is not None:
        for i, w in enumerate(weights):
            if w:
                lap_terms.append(prod(ja[0][i], jb[0][i]) * (2.0 * w))
    return tuple(directions), tangent_sum(*lap_terms)


def _via_composite(taylor_as, args, params, jets, mode):
    """Evaluate the declared equivalent composite with jets on, and take its jet."""
    with jet_mode(mode):
        return taylor_as(*args, **params)._jet


def _with_jet(t: Tensor, jet):
    """``t`` itself (keeping its graph) with ``jet`` attached for one computation."""
    view = t.view_as(t) if t._requires_grad else _wrap(t._data)
    view._jet = jet
    return view


def _taylor_unary(kind, args, params, result, jets, order):
    """``y' = d1(x) x'``: ``k y_k = sum_{j=1..k} j x_j g_{k-j}`` with ``g = d1(x, y)``."""
    x, extra = args[0], args[1:]
    xs = jets[0] if jets[0] is not None else tuple(_zeros_like(x) for _ in range(order))
    wants_result = kind.d1_takes_result
    ys = []
    for k in range(1, order + 1):
        m = k - 1  # g needs coefficients 0..k-1
        if m == 0:
            g_coeffs = [_call_d1(kind.d1, x, extra, result, params, wants_result)]
        else:
            with jet_mode(("taylor", m)):
                g = _call_d1(
                    kind.d1,
                    _with_jet(x, xs[:m]),
                    extra,
                    _with_jet(result, tuple(ys[:m])),
                    params,
                    wants_result,
                )
            g_coeffs = [g] + list(g._jet if g._jet is not None else [_zeros_like(g)] * m)
        ys.append(sum_present(xs[j - 1] * g_coeffs[k - j] * (j / k) for j in range(1, k + 1)))
    return tuple(ys)


def _call_d1(d1, x, extra, result, params, wants_result):
    if wants_result:
        return d1(x, *extra, result=result, **params)
    return d1(x, *extra, **params)


def _collapsed_unary(kind, args, params, result, jets, weights):
    """``J_y = f'(x) J_x``; ``L_y = f'(x) L_x + f''(x) sum_k w_k J_k^2``."""
    x, extra = args[0], args[1:]
    jx = jets[0]
    if jx is None:
        zero = _zeros_like(result)
        return tuple(zero for _ in weights), zero
    d1 = _call_d1(kind.d1, x, extra, result, params, kind.d1_takes_result)
    d2 = _call_d1(kind.d2, x, extra, result, params, kind.d2_takes_result)
    directions = tuple(d1 * j for j in jx[0])
    curvature = sum_present((j * j * w if w != 1 else j * j) for j, w in zip(jx[0], weights) if w)
    lap = d1 * jx[1]
    if curvature is not None:
        lap = lap + d2 * curvature
    return directions, lap
