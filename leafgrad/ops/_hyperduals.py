"""Taylor mode for any op with a JVP rule: nested dual numbers ("hyper-duals").

With K nested dual levels e_1..e_K (e_i^2 = 0) and t = e_1 + ... + e_K, the series
x(t) = sum_k x_k t^k becomes sum_k k! x_k s_k(e), s_k the elementary symmetric polynomials,
so the derivative of f(x(t)) along any k of the levels is k! y_k. Evaluating one op this way
costs about 2^K JVP evaluations: ``_jets``' fallback for ops without a cheaper rule.
"""

from __future__ import annotations

import math

from .._engine import forward
from .._tensor import Tensor, _wrap, _zeros_like


def is_jet_input(a) -> bool:
    """Whether ``a`` carries Taylor coefficients: a floating-point Tensor."""
    return (type(a) is Tensor or isinstance(a, Tensor)) and a._data.dtype.kind == "f"


def _hyperdual(value, coeffs, levels):
    """``value`` as a tree of nested duals: its derivative along any set S of the levels is
    ``|S|! x_|S|`` (every node carries tangents at all levels outside its S)."""
    memo = {}

    def node(taken: frozenset):
        if taken in memo:
            return memo[taken]
        depth = len(taken)
        if depth == 0:
            t = value.view_as(value) if value._requires_grad else _wrap(value._data)
        elif depth <= len(coeffs):
            t = coeffs[depth - 1] * float(math.factorial(depth))
        else:
            t = _zeros_like(value)
        memo[taken] = t
        if depth < len(coeffs):
            for j, level in enumerate(levels):
                if j not in taken:
                    forward.set_tangent(t, level, node(taken | {j}))
        return t

    return node(frozenset())


def taylor_by_nested_duals(op, args, params, jets, order):
    return nested_duals(op, args, params, jets, order)[0]


def push_multi_collapsed(op, args, params, results, jets, weights) -> None:
    firsts, curvatures = [], []
    for k, w in enumerate(weights):
        coeffs = [None if j is None else (j[0][k], _zeros_like(j[0][k])) for j in jets]
        per_output = nested_duals(op, args, params, coeffs, 2)
        firsts.append([None if c is None else c[0] for c in per_output])
        curvatures.append([None if c is None else c[1] * (2.0 * w) for c in per_output])
    lap_coeffs = [None if j is None else (j[1],) for j in jets]
    laps = nested_duals(op, args, params, lap_coeffs, 1)
    for i, r in enumerate(results):
        if laps[i] is None:
            continue
        lap = laps[i][0]
        for k, w in enumerate(weights):
            if w:
                lap = lap + curvatures[k][i]
        r._jet = (tuple(f[i] for f in firsts), lap)


def nested_duals(op, args, params, jets, order):
    """Coefficients 1..order of each output of ``op`` (None for non-float outputs)."""
    levels = [forward.enter_dual_level() for _ in range(order)]
    try:
        hat = [
            _hyperdual(a, jet, levels) if jet is not None and is_jet_input(a) else a
            for a, jet in zip(args, jets)
        ]
        out = op(*hat, **params)
    finally:
        for level in reversed(levels):
            forward.exit_dual_level(level=level)
    outs = out if type(out) is tuple else (out,)
    return [
        _read_coefficients(o, levels, order) if o._data.dtype.kind == "f" else None for o in outs
    ]


def _read_coefficients(out, levels, order):
    coeffs = []
    node = out
    for k in range(order):
        tangents = node._tangents or {}
        node = tangents.get(levels[k])
        if node is None:
            coeffs.extend(_zeros_like(out) for _ in range(order - k))
            break
        coeffs.append(node if k == 0 else node * (1.0 / math.factorial(k + 1)))
    return tuple(_plain(c) for c in coeffs)


def _plain(t):
    """A coefficient without the dual levels it was read from."""
    if t._tangents:
        t._tangents = None
    return t


def collapsed_by_nested_duals(op, args, params, jets, weights):
    """``J_k = Df[J_k]``, ``L = Df[L] + sum_k w_k D2f[J_k, J_k]`` by two-level duals."""

    directions = []
    curvature = None
    for k, w in enumerate(weights):
        coeffs = [None if j is None else (j[0][k], _zeros_like(j[0][k])) for j in jets]
        first, second = taylor_by_nested_duals(op, args, params, coeffs, 2)
        directions.append(first)
        if w:
            term = second * (2.0 * w)
            curvature = term if curvature is None else curvature + term
    lap_coeffs = [None if j is None else (j[1],) for j in jets]
    (lap,) = taylor_by_nested_duals(op, args, params, lap_coeffs, 1)
    if curvature is not None:
        lap = lap + curvature
    return tuple(directions), lap
