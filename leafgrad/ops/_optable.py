"""The op table: what each primitive is, declared once, and the registry that holds them.

(Full documentation with one worked example per kind: see the end of this docstring.)
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
    derivative: backward raises, and there is no forward or Taylor rule."""


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
    docs). ``jvp`` is the forward rule in effect: declared by the kind or derived from it."""

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
