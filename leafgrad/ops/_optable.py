"""The op table: what each primitive is, declared once, and the registry that holds them.

Every primitive is one ``primitive(...)`` call (``_primitive.py``) next to its forward and
rules: a NumPy forward, VJP rules written in leafgrad ops, and a declaration that the rest
of the library reads instead of keeping lists of its own::

    primitive(name, forward, vjp, *, kind, overload="", saves=(), node_name=None,
              vjp_all=None, dtype_rule="promote", broadcast=False, scalars=False,
              num_outputs=1, view=False, expose=None)

- **key**: ``name.overload``, PyTorch's own scheme (``sum``, ``sum.dim_IntList``,
  ``pow.Tensor_Scalar``, ``clamp.Tensor``); ``overload=""`` is the default overload. Where
  PyTorch records one op under different node names (``matmul``'s UnsafeView/Clone, clamp
  with one Tensor bound) each variant gets an overload of its own. ``REGISTRY`` refuses a
  key declared twice, and ``primitive`` an unknown keyword, kind or ``saves`` entry
  (TypeError), at import.
- **kind**: what the op is, which is all forward mode (``_tangents``) and Taylor mode
  (``_jets``) need to know; the kinds are below, each with an op declared with it.
- **saves**: ``("result",)`` when a rule reads the output, as PyTorch saves it; the node then
  keeps it (and checks it was not modified in place). Inputs are always kept.
- **rules** share one calling convention, derivatives first (``_primitive``'s docstring):
  ``vjp[i](grad, *inputs, result=, **params)``, ``jvp(*tangents, *inputs, result=,
  **params)``.
- **exposure** (``expose=public(...)``, or ``@public`` on the function that dispatches to the
  primitives): function, Tensor method, in-place twin (``leafgrad/_exposure.py``).
- **tests**: ``tests/ops/samples_*.py`` name keys; the guards fail for a differentiable key
  without a sample (or an opt-out with a reason), and each sample gets gradcheck,
  gradgradcheck, JVP and Taylor checks.

The kinds, with a worked example each:

``Unary(d1, d2)`` -- elementwise with known derivatives; the VJP (``grad * d1``), the JVP
(``t * d1``) and Taylor coefficients (``y' = d1(x) x'``, then ``d2`` for the Laplacian) all
follow. ``unary`` declares one and saves the result when ``d1`` takes it::

    tanh = unary("tanh", np.tanh,
                 d1=lambda x, result: 1 - result * result,
                 d2=lambda x, result: -2 * result * (1 - result * result),
                 expose=public(inplace=True))              # tanh, Tensor.tanh, tanh_

``Linear(affine=False)`` -- tangents and coefficients go through the op itself; its inputs
may change in place after the forward (its rules read only their shapes)::

    _sum_dim = primitive("sum", _sum_forward, _sum_grad, kind=Linear(),
                         overload="dim_IntList", node_name="SumBackward1", dtype_rule="keep")

``Bilinear()`` -- the product rule with the op itself, Cauchy products for Taylor::

    mul = primitive("mul", np.multiply,
                    (lambda grad, x, y, result: grad * y, lambda grad, x, y, result: grad * x),
                    kind=Bilinear(), overload="Tensor", node_name="MulBackward0",
                    broadcast=True, scalars=True)

``PiecewiseLinear()`` -- the VJP rules (a diagonal Jacobian) map tangents and coefficients::

    relu = primitive("relu", _relu_forward,
                     lambda grad, x, result: threshold_backward(grad, result),
                     kind=PiecewiseLinear(), saves=("result",), node_name="ReluBackward0")

``Composite(taylor_as, jvp)`` -- equal to ops with cheaper Taylor rules; its own JVP::

    _true_div = primitive("div", np.true_divide, (lambda grad, x, y, result: grad / y, ...),
                          kind=Composite(taylor_as=lambda x, y: x * y.reciprocal(),
                                         jvp=lambda tx, ty, x, y, result: ...),
                          overload="Tensor", node_name="DivBackward0", dtype_rule="float")

``Generic(jvp)`` -- no structure: forward mode uses ``jvp``, Taylor mode nested duals::

    _softmax = primitive("softmax", _softmax_forward,
                         lambda grad, x, result, *, dim: result * (grad - ...),
                         kind=Generic(jvp=lambda tx, x, result, *, dim: result * (tx - ...)),
                         saves=("result",), node_name="SoftmaxBackward0")

``NoDerivative()`` -- recorded as PyTorch records it, but backward raises::

    floor_divide = primitive("floor_divide", _floor_divide_forward, kind=NoDerivative(),
                             broadcast=True, scalars=True)

``NonDifferentiable()`` -- results never require grad; no node, no rules::

    eq = primitive("eq", np.equal, kind=NonDifferentiable(), broadcast=True, scalars=True,
                   expose=public(operators=("__eq__",)))
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

# ----- kinds: what forward mode and Taylor mode need to know about an op -----


@dataclass(frozen=True)
class Unary:
    """An elementwise function of its first input (any further inputs are constants).

    ``d1(x, *rest, result=..., **params)`` is its first derivative and ``d2`` its second, in
    leafgrad ops; a ``result`` parameter gets the op's output (which the op then saves).
    Without a ``vjp``, the VJP is ``grad * d1`` and the JVP ``t * d1``; ``jvp`` replaces the
    latter where PyTorch's formula differs (``x ** 0``: exactly 0, even for an inf tangent).
    """

    d1: Callable
    d2: Callable | None = None
    jvp: Callable | None = None
    d1_takes_result: bool = field(init=False, repr=False, compare=False)
    d2_takes_result: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "d1_takes_result", _takes_result(self.d1))
        object.__setattr__(self, "d2_takes_result", self.d2 is not None and _takes_result(self.d2))


@dataclass(frozen=True)
class Linear:
    """Linear in its tensor inputs (views, reductions, copies, indexing ...).

    Tangents and Taylor coefficients go through the op itself, and its rules read only its
    inputs' shapes, so modifying them in place later does not spoil its backward. ``affine``:
    a Python number among the operands is a constant term (``x + 2``), zero in every tangent.
    """

    affine: bool = False


@dataclass(frozen=True)
class Bilinear:
    """Linear in each of its first two inputs (``mul``, ``mm``, ``matmul`` ...).

    Tangents follow the product rule with the op itself, ``op(tx, y) + op(x, ty)``; Taylor
    coefficients combine by the Cauchy product, no nested duals needed.
    """


@dataclass(frozen=True)
class PiecewiseLinear:
    """Elementwise and linear between kinks (relu, clamp, where, floor, sign, remainder ...).

    Its Jacobian is diagonal and locally constant, so its VJP rules applied to the tangents
    (or to each Taylor coefficient) are its JVP (and its Taylor rule).
    """


@dataclass(frozen=True)
class Composite:
    """An op that equals a composite of other ops (``div(x, y) = x * reciprocal(y)``).

    ``taylor_as(*inputs, **params)`` computes it from ops with cheaper Taylor rules; ``jvp``
    is its own forward rule (PyTorch's formula, not necessarily the composite's).
    """

    taylor_as: Callable
    jvp: Callable | None = None


@dataclass(frozen=True)
class Generic:
    """No structure to exploit: ``jvp`` is the forward rule (None: forward mode raises), and
    Taylor mode evaluates the op on nested dual numbers through it (exact, the slow path)."""

    jvp: Callable | None = None


@dataclass(frozen=True)
class NoDerivative:
    """Recorded as PyTorch records it (the result requires grad), but PyTorch defines no
    derivative: backward raises ``error`` (PyTorch's type: RuntimeError for most ops,
    NotImplementedError for those declared ``not_implemented``), and there is no forward or
    Taylor rule."""

    error: type = RuntimeError


@dataclass(frozen=True)
class NonDifferentiable:
    """Results never require grad (comparisons, logic, indices): never recorded."""


KINDS = (Unary, Linear, Bilinear, PiecewiseLinear, Composite, Generic, NoDerivative)
KINDS += (NonDifferentiable,)

# ----- the declaration -----

DTYPE_RULES = ("promote", "float", "keep")
SAVABLE = ("result",)  # inputs are always held by the node (version-checked unless Linear)


@dataclass(frozen=True)
class Primitive:
    """What ``primitive`` declared, as the registry keeps it (read by tests, Taylor mode,
    docs). ``jvp`` is the forward rule in effect: declared by the kind or derived from it
    (for Linear ops the machinery's ``_linear_jvp``, which applies the op to the tangents)."""

    name: str
    overload: str
    forward: Callable
    vjp: tuple | None
    vjp_all: Callable | None
    kind: object
    saves: tuple
    node_name: str
    jvp: Callable | None
    dtype_rule: str
    broadcast: bool
    scalars: bool
    num_outputs: int
    view: bool

    @property
    def key(self) -> str:
        """PyTorch's ``name.overload`` (just ``name`` for the default overload)."""
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def differentiable(self) -> bool:
        """Whether its results can require grad (NoDerivative ops: yes, as in PyTorch)."""
        return type(self.kind) is not NonDifferentiable

    @property
    def linear(self) -> bool:
        return type(self.kind) is Linear

    @property
    def affine(self) -> bool:
        return type(self.kind) is Linear and self.kind.affine


def check(prim: Primitive) -> None:
    """TypeError (ValueError for a bad value) when a declaration is not well typed."""
    where = f"primitive {prim.key!r}"
    if type(prim.kind) not in KINDS:
        names = ", ".join(k.__name__ for k in KINDS)
        raise TypeError(f"{where}: kind must be one of {names}, got {prim.kind!r}")
    if prim.dtype_rule not in DTYPE_RULES:
        raise ValueError(f"{where}: dtype_rule must be in {DTYPE_RULES}, not {prim.dtype_rule!r}")
    if not isinstance(prim.saves, tuple) or not set(prim.saves) <= set(SAVABLE):
        raise TypeError(f"{where}: saves must be a tuple of {SAVABLE}, got {prim.saves!r}")
    if prim.num_outputs > 1 and "result" not in prim.saves:
        raise TypeError(f"{where}: a multi-output op saves its result (for missing grads' shapes)")
    rules = prim.vjp is not None or prim.vjp_all is not None
    if prim.differentiable and type(prim.kind) is not NoDerivative and not rules:
        raise TypeError(f"{where}: a differentiable op needs vjp rules (or vjp_all)")
    if not prim.differentiable and rules:
        raise TypeError(f"{where}: a NonDifferentiable op takes no vjp rules")


# ----- the registry -----

REGISTRY: dict = {}  # "name.overload" -> Primitive; the op-table guard tests read this


def register(prim: Primitive) -> None:
    """Add ``prim`` under its key; ValueError if that key is already declared."""
    if prim.key in REGISTRY:
        raise ValueError(
            f"primitive {prim.key!r} is declared twice; give the variant its own overload "
            "(PyTorch's name where it has one, e.g. 'Tensor', 'Scalar', 'dim')"
        )
    REGISTRY[prim.key] = prim


def _takes_result(fn) -> bool:
    return "result" in inspect.signature(fn).parameters
