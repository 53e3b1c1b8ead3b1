"""Derivatives of a network's output with respect to its input points, batched over N points.

``u`` is an (N, m) output computed row by row from inputs ``x``: one (N, d) tensor, or a tuple
of tensors (e.g. two (N, 1) columns ``(x, t)``) whose columns count as one coordinate list.
Derivatives are named by column index: ``partial(u, x, 0, 0)`` is d2u/dx0^2.

Why an index and not a slice: ``x[:, 0:1]`` taken after the forward pass is a new tensor
computed *from* x; u was computed from x, not from that slice, so autograd finds no path
from the slice to u (``autograd.grad`` raises, or gives None with ``allow_unused``). Slicing
before the forward pass and concatenating again works, but splits every point into pieces.
The operators differentiate with respect to the whole input and pick the column.

Derivatives asked for twice within one :class:`Evaluation` (e.g. ``u_x`` in both ``u u_x``
and ``u_xx``) are computed once; the cache lives as long as the evaluation, never longer.
Two methods, chosen by ``Evaluation(method=)`` (``DEFAULT_METHOD``, Taylor mode, when None):

- ``"reverse"``: nested reverse mode (``autograd.grad`` with ``create_graph=True``); one
  backward pass gives a whole row of first or second derivatives; any order.
- ``"taylor"``: Taylor mode (``leafgrad.autograd.taylor``), which pushes derivatives forward
  with the values: one pass along a coordinate gives ``u_i`` and ``u_ii``; a collapsed pass
  gives the gradient and the Laplacian together. Orders above two use reverse mode.

Both give the same values to round-off and both stay differentiable for training.
"""

from __future__ import annotations

import threading

import numpy as np

from .. import autograd, cat, stack, tensor, zeros_like
from .._tensor import Tensor
from ..autograd import taylor

METHODS = ("reverse", "taylor")
# Taylor mode is the default: for a training step of Burgers' residual (u_t, u_x, u_xx of a
# 2 -> 20 x 8 -> 1 tanh MLP) benchmarks/taylor_fused.py measures it faster than reverse mode
# at N = 1e3 and 1e4 in float32 and float64 (0.69x to 0.91x its time, half its memory): one
# fused pass (ops/fused_jets.py) gives u, u_i and the u_ii asked for.
DEFAULT_METHOD = "taylor"
# In Taylor mode an evaluation with at most this many input columns computes its output by
# one ``taylor.diagonal`` pass: u, every u_i and every u_ii for little more than u alone
# (a residual of so few coordinates nearly always asks for them).
EAGER_COLUMNS = 4

_active = threading.local()

# The u_ii that Taylor-mode evaluations without ``diagonal`` have asked for, by the function
# evaluated (``_function_key``) and its number of input columns: a union over every such
# evaluation, so a function evaluated for several residuals never loses one. The next
# evaluation computes only these up front: in a training loop, after its first step, just
# the u_ii the residual uses (Burgers: u_xx, not u_tt, one channel less in every layer).
# One asked for later still comes, from one more pass, and is learned.
_asked: dict = {}
_asked_lock = threading.Lock()


def _function_key(func):
    """What identifies a residual's function from step to step: its code (a lambda made
    afresh each step has the same), else its class (an ``nn.Module``)."""
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    return code if code is not None else type(func)


class Evaluation:
    """One residual evaluation: ``func(*inputs)`` and the derivatives asked of it, cached.

    ``with Evaluation(model, x) as ev: r = residual(x, ev.output)``. Inputs that do not
    require grad are replaced by leaves that do (``ev.inputs``), so reverse mode works.
    In Taylor mode with at most ``EAGER_COLUMNS`` input columns the output comes from one
    ``taylor.diagonal`` pass that also gives every u_i and the u_ii for i in ``diagonal``.
    Without ``diagonal``: those that earlier evaluations of the same function (its code, or
    its class) asked for, all columns the first time. ``ev.requested`` collects the i of
    every u_ii (and Laplacian column) asked for.
    """

    def __init__(self, func, inputs, method: str | None = None, *, diagonal=None) -> None:
        method = DEFAULT_METHOD if method is None else method
        if method not in METHODS:
            raise ValueError(f"Evaluation: method must be one of {METHODS}, got {method!r}")
        several = isinstance(inputs, (tuple, list))
        xs = tuple(inputs) if several else (inputs,)
        for x in xs:
            if not isinstance(x, Tensor) or x.dim() != 2:
                raise ValueError(
                    "Evaluation: inputs must be (N, d) tensors, got "
                    f"{getattr(x, 'shape', type(x).__name__)}"
                )
        xs = tuple(x if x.requires_grad else x.detach().requires_grad_() for x in xs)
        self.func = func
        self.method = method
        self.inputs = xs if several else xs[0]
        self._xs = xs
        self._cache: dict = {}
        self._keep: list = []  # keeps cached tensors' owners alive, so their ids stay unique
        self._learns = None
        if diagonal is None and method == "taylor":
            self._learns = (_function_key(func), len(_columns(xs)))
            diagonal = _asked.get(self._learns)
        self.diagonal = None if diagonal is None else tuple(sorted(set(diagonal)))
        self.requested: set = set()  # the u_ii asked of this evaluation: i
        self.output = self._evaluate()
        _check_output(self.output, "Evaluation")

    def _evaluate(self) -> Tensor:
        """``func(*inputs)``; in Taylor mode with few columns, with u_i and u_ii cached."""
        if self.method != "taylor" or len(_columns(self._xs)) > EAGER_COLUMNS:
            return self.func(*self._xs)
        try:
            u, first, second = taylor.diagonal(self.func, self._xs, self.diagonal)
        except RuntimeError:
            return self.func(*self._xs)  # an op without Taylor rules: reverse mode only
        if isinstance(u, Tensor) and u.dim() == 2:
            self._keep.append(u)
            _store_diagonal(self._cache, u, self._xs, first, second, self.diagonal)
        return u

    def __enter__(self) -> Evaluation:
        _stack().append(self)
        return self

    def __exit__(self, *exc) -> None:
        _stack().remove(self)
        if self._learns is not None:
            with _asked_lock:
                _asked[self._learns] = tuple(
                    sorted(self.requested.union(_asked.get(self._learns, ())))
                )
        self._cache.clear()
        self._keep.clear()

    def _uses_taylor(self, u: Tensor, xs: tuple) -> bool:
        return self.method == "taylor" and u is self.output and _same(xs, self._xs)


def _stack() -> list:
    if not hasattr(_active, "stack"):
        _active.stack = []
    return _active.stack


def _current() -> Evaluation | None:
    stack_ = _stack()
    return stack_[-1] if stack_ else None


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(p is q for p, q in zip(a, b))


def _check_output(u, op: str) -> None:
    if not isinstance(u, Tensor) or u.dim() != 2:
        raise ValueError(
            f"{op}: u must be an (N, m) tensor of outputs, got "
            f"{getattr(u, 'shape', type(u).__name__)}; reshape it to (N, 1) for one output"
        )


def _inputs(x, op: str) -> tuple:
    xs = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    for t in xs:
        if not isinstance(t, Tensor) or t.dim() != 2:
            raise ValueError(
                f"{op}: x must be an (N, d) tensor or a tuple of (N, k) tensors, got "
                f"{getattr(t, 'shape', type(t).__name__)}"
            )
    return xs


def _columns(xs: tuple) -> list:
    """``(input number, column)`` for each coordinate, in order."""
    return [(k, j) for k, t in enumerate(xs) for j in range(t.shape[1])]


def _component(u: Tensor, component, op: str) -> int:
    m = u.shape[1]
    if component is None:
        if m != 1:
            raise ValueError(f"{op}: u has {m} components; say which with component=")
        return 0
    if not -m <= component < m:
        raise IndexError(f"{op}: component {component} is out of range for {m} outputs")
    return component % m


# ----------------------------------------------------------------------------- the cache
class _Derivatives:
    """Derivative columns of one output component, from the cache of the active evaluation."""

    def __init__(self, u: Tensor, xs: tuple, c: int, op: str) -> None:
        self.u, self.xs, self.c, self.op = u, xs, c, op
        self.d = len(_columns(xs))
        ev = _current()
        self.ev = ev
        self.taylor = ev is not None and ev._uses_taylor(u, xs)
        if ev is not None:
            self.cache = ev._cache
            ev._keep.append(u)
        else:
            self.cache = {}
        self.key = (id(u), tuple(id(t) for t in xs), c)

    def get(self, index: tuple) -> Tensor:
        for i in index:
            if not -self.d <= i < self.d:
                raise IndexError(f"{self.op}: column {i} is out of range for {self.d} inputs")
        index = tuple(sorted(i % self.d for i in index))
        if self.ev is not None and len(index) == 2 and index[0] == index[1]:
            self.ev.requested.add(index[0])
        key = (*self.key, index)
        if key not in self.cache:
            if self.taylor and len(index) <= 2:
                self._taylor(index)
            else:
                self._reverse(index)
        return self.cache[key]

    def put(self, index: tuple, value: Tensor) -> None:
        self.cache[(*self.key, tuple(sorted(index)))] = value

    # Reverse mode: the derivative for ``index[:-1]``, differentiated once more, gives a row.
    def _reverse(self, index: tuple) -> None:
        lower = index[:-1]
        f = self.u[:, self.c : self.c + 1] if not lower else self.get(lower)
        for i, g in enumerate(_gradient_row(f, self.xs, self.op)):
            self.cache.setdefault((*self.key, tuple(sorted((*lower, i)))), g)

    # Taylor mode: one pass gives every u_i and u_ii (taylor.diagonal); a mixed u_ij takes
    # one more along e_i + e_j.
    def _taylor(self, index: tuple) -> None:
        if len(index) == 2 and index[0] != index[1]:
            i, j = index
            d2 = self._along({i: 1.0, j: 1.0})[2][:, self.c : self.c + 1]
            self.put((i, j), (d2 - self.get((i, i)) - self.get((j, j))) * 0.5)
            return
        _, first, second = taylor.diagonal(self.ev.func, self.xs)
        _store_diagonal(self.cache, self.u, self.xs, first, second, None)

    def _along(self, weights: dict) -> tuple:
        """``(u, du, d2u)`` along the direction with ``weights`` {column: weight}."""
        columns = _columns(self.xs)
        directions = []
        for k, t in enumerate(self.xs):
            v = np.zeros(t.shape)
            for col, w in weights.items():
                if columns[col][0] == k:
                    v[:, columns[col][1]] = w
            directions.append(tensor(v, dtype=t.dtype))
        u, u1, u2 = taylor.coefficients(self.ev.func, self.xs, tuple(directions), 2)
        return u, u1, u2 * 2.0


def _store_diagonal(cache: dict, u: Tensor, xs: tuple, first, second, dims) -> None:
    """Cache every u_i, and u_ii for i in ``dims`` (all: None), of every component, from
    ``taylor.diagonal``'s (N, m, d) and (N, m, len(dims))."""
    d = first.shape[2]
    dims = range(d) if dims is None else dims
    for c in range(u.shape[1]):
        key = (id(u), tuple(id(t) for t in xs), c)
        for i in range(d):
            cache.setdefault((*key, (i,)), first[:, c, i : i + 1])
        for k, i in enumerate(dims):
            cache.setdefault((*key, (i, i)), second[:, c, k : k + 1])


def _gradient_row(f: Tensor, xs: tuple, op: str) -> list:
    """``d f / d column`` for every input column, as (N, 1) tensors (zeros where unused)."""
    for t in xs:
        if not t.requires_grad:
            raise ValueError(
                f"{op}: x must require grad for reverse mode (x.requires_grad_() before the "
                "forward pass, or evaluate inside pinn.Evaluation)"
            )
    if not f.requires_grad:  # f does not depend on x (e.g. the derivative of a linear u)
        return [zeros_like(f) for _ in _columns(xs)]
    grads = autograd.grad(f.sum(), xs, create_graph=True, allow_unused=True)
    row = []
    for t, g in zip(xs, grads):
        for j in range(t.shape[1]):
            row.append(zeros_like(f) if g is None else g[:, j : j + 1])
    return row


# ----------------------------------------------------------------------------- public operators
def partial(u: Tensor, x, *index: int, component: int | None = None) -> Tensor:
    """``d^k u / dx_i dx_j ...`` (N, 1) for column indices ``index`` (one column: none needed).

    ``partial(u, x, 1)`` is du/dx1, ``partial(u, x, 0, 0)`` d2u/dx0^2, ``partial(u, t)`` the
    derivative with respect to a one-column input ``t``.
    """
    _check_output(u, "partial")
    xs = _inputs(x, "partial")
    if not index:
        if len(_columns(xs)) != 1:
            raise ValueError(
                f"partial: x has {len(_columns(xs))} columns; name the one to differentiate by"
            )
        index = (0,)
    c = _component(u, component, "partial")
    return _Derivatives(u, xs, c, "partial").get(tuple(index))


def grad(u: Tensor, x, component: int | None = None) -> Tensor:
    """The gradient (N, d) of one output component with respect to all input columns."""
    _check_output(u, "grad")
    xs = _inputs(x, "grad")
    c = _component(u, component, "grad")
    if _laplacian_first(u, xs):
        laplacian(u, xs if len(xs) > 1 else xs[0], component=c)
    deriv = _Derivatives(u, xs, c, "grad")
    return cat([deriv.get((i,)) for i in range(deriv.d)], dim=1)


def jacobian(u: Tensor, x) -> Tensor:
    """``J[n, a, i] = du_a/dx_i`` of shape (N, m, d)."""
    _check_output(u, "jacobian")
    return stack([grad(u, x, component=a) for a in range(u.shape[1])], dim=1)


def hessian(u: Tensor, x, component: int | None = None) -> Tensor:
    """``H[n, i, j] = d2u/dx_i dx_j`` of shape (N, d, d) for one output component."""
    _check_output(u, "hessian")
    xs = _inputs(x, "hessian")
    c = _component(u, component, "hessian")
    deriv = _Derivatives(u, xs, c, "hessian")
    rows = [cat([deriv.get((i, j)) for j in range(deriv.d)], dim=1) for i in range(deriv.d)]
    return stack(rows, dim=1)


def laplacian(u: Tensor, x, dims=None, component: int | None = None) -> Tensor:
    """``sum_i d2u/dx_i^2`` (N, 1) over the columns ``dims`` (all of them by default)."""
    _check_output(u, "laplacian")
    xs = _inputs(x, "laplacian")
    c = _component(u, component, "laplacian")
    deriv = _Derivatives(u, xs, c, "laplacian")
    dims = tuple(range(deriv.d)) if dims is None else tuple(i % deriv.d for i in dims)
    if deriv.ev is not None:
        deriv.ev.requested.update(dims)
    key = (*deriv.key, ("laplacian", dims))
    if key in deriv.cache:
        return deriv.cache[key]
    if deriv.taylor and len(xs) == 1 and not all((*deriv.key, (i, i)) in deriv.cache for i in dims):
        value = _collapsed_laplacian(deriv, xs[0], dims)
    else:
        value = sum_columns([deriv.get((i, i)) for i in dims])
    deriv.cache[key] = value
    return value


def divergence(v: Tensor, x, dims=None) -> Tensor:
    """``sum_i dv_i/dx_{dims[i]}`` (N, 1) of a vector field ``v`` (N, k), k = len(dims)."""
    _check_output(v, "divergence")
    xs = _inputs(x, "divergence")
    d = len(_columns(xs))
    dims = tuple(range(d)) if dims is None else tuple(dims)
    if v.shape[1] != len(dims):
        raise ValueError(
            f"divergence: v has {v.shape[1]} components but {len(dims)} coordinates are "
            "differentiated; pass dims= to pick the coordinates"
        )
    return sum_columns([partial(v, x, i, component=a) for a, i in enumerate(dims)])


def sum_columns(columns: list) -> Tensor:
    """The sum of a list of (N, 1) tensors."""
    total = columns[0]
    for col in columns[1:]:
        total = total + col
    return total


def _laplacian_first(u: Tensor, xs: tuple) -> bool:
    # A gradient in Taylor mode comes with the Laplacian in one collapsed pass.
    ev = _current()
    return ev is not None and ev._uses_taylor(u, xs) and len(xs) == 1


def _collapsed_laplacian(deriv: _Derivatives, x: Tensor, dims: tuple) -> Tensor:
    """One collapsed Taylor pass: the gradient of every component and the Laplacian."""
    weights = np.zeros(deriv.d)
    weights[list(dims)] = 1.0
    _, gradient, lap = taylor.collapsed(deriv.ev.func, x, weights)
    key = (id(deriv.u), (id(x),))
    for c in range(deriv.u.shape[1]):
        for i in range(deriv.d):
            deriv.cache.setdefault((*key, c, (i,)), gradient[:, c, i : i + 1])
        deriv.cache[(*key, c, ("laplacian", dims))] = lap[:, c : c + 1]
    return lap[:, deriv.c : deriv.c + 1]
