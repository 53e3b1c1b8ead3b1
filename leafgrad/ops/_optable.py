"""The op table: what each primitive is, declared once, and the registry that holds them.

Every primitive is one ``primitive(...)`` call (``_primitive.py``) next to its forward and
rules: a NumPy forward, VJP rules written in leafgrad ops, and a declaration that the rest
of the library reads instead of keeping lists of its own::

    primitive(name, forward, vjp, *, kind, overload="", saves=(), inputs=None, outputs=None,
              node_name=None, vjp_all=None, dtype_rule="promote", broadcast=False,
              scalars=False, num_outputs=1, view=False, expose=None)

- **key**: ``name.overload``, PyTorch's own scheme (``sum``, ``sum.dim_IntList``,
  ``pow.Tensor_Scalar``, ``clamp.Tensor``); ``overload=""`` is the default overload. Where
  PyTorch records one op under different node names (``matmul``'s UnsafeView/Clone, clamp
  with one Tensor bound) each variant gets an overload of its own. ``REGISTRY`` refuses a
  key declared twice, and ``primitive`` an unknown keyword, kind or ``saves`` entry
  (TypeError), at import.
- **kind**: what the op is, which is all forward mode (``_tangents``) and Taylor mode
  (``_jets``) need to know; the kinds are below, each with an op declared with it.
- **saves**: what PyTorch saves for the op's backward (``derivatives.yaml``), by its names:
  ``"result"`` (the output), an input (``"self"``, ``"other"``; ``inputs`` names them, by
  default ``self``, ``other``), an output of a multi-output op (``outputs``), or a parameter
  (``"dim"``). ``"self if other"`` saves ``self`` only when ``other`` needs a gradient, as
  PyTorch guards a tensor used by one input's formula only (``"i1 if i2 or i3"``: when
  either does, as its ``wrap_opt_if``); ``"*"`` saves every operand of an
  op taking any number (einsum). Saved tensors are checked for in-place changes when
  backward unpacks them (and a second backward raises once they are freed); grad_fn shows
  each as ``_saved_<name>``. A node holds every input (rules read their shapes and dtypes)
  and a multi-output op's outputs, but rules read the values only of what is saved
  (``tests/ops/test_saves.py`` runs every rule with the rest replaced by stand-ins).
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

    tanh = unary("tanh", np.tanh,                         # saves=("result",), derived
                 d1=lambda x, result: 1 - result * result,
                 d2=lambda x, result: -2 * result * (1 - result * result),
                 expose=public(inplace=True))              # tanh, Tensor.tanh, tanh_

``Linear(affine=False)`` -- tangents and coefficients go through the op itself; its rules
read only its inputs' shapes (so it usually saves nothing)::

    _sum_dim = primitive("sum", _sum_forward, _sum_grad, kind=Linear(),
                         overload="dim_IntList", node_name="SumBackward1", dtype_rule="keep")

``Bilinear()`` -- the product rule with the op itself, Cauchy products for Taylor::

    mul = primitive("mul", np.multiply,
                    (lambda grad, x, y, result: grad * y, lambda grad, x, y, result: grad * x),
                    kind=Bilinear(), overload="Tensor", saves=("self if other", "other if self"),
                    node_name="MulBackward0", broadcast=True, scalars=True)

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
import math
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
    inputs' shapes, so it usually saves nothing (``gather`` saves ``self`` as PyTorch does,
    for its shape). ``affine``: a Python number among the operands is a constant term
    (``x + 2``), zero in every tangent.
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
    inputs: tuple
    outputs: tuple
    node_name: str
    jvp: Callable | None
    dtype_rule: str
    broadcast: bool
    scalars: bool | str
    num_outputs: int
    view: bool
    plain_rules: bool = False  # its rules also run on NumPy arrays (_primitive.plain_backward)
    # a vjp_all rule of several outputs given None for those no gradient reached, not zeros
    materialize_grads: bool = True
    # positions of inputs (a condition, a mask) that get no edge: PyTorch's node has none
    edgeless: tuple = ()
    # positions of (None, 0) edges for optional tensors this overload does not take
    absent_edges: tuple = ()
    # what the node shows besides its saves (``_saved_self_sym_sizes``, ``_saved_dim``):
    # names, or (name, reader(values, params)) pairs; see ``metadata_readers``
    metadata: tuple = ()

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

    def saved(self) -> tuple:
        """``saves`` resolved: ``(name, what, index, guard)`` per entry, ``what`` one of
        ``"input"``, ``"output"`` (``index`` into the inputs / outputs), ``"param"`` or
        ``"inputs"`` (``"*"``: every operand); ``guard`` the index of the input whose need
        of a gradient decides (a tuple of them for ``or``: any one's), or None."""
        out = []
        for entry in self.saves:
            name, _, guard = entry.partition(" if ")
            if name == "*":
                what, index = "inputs", None
            elif name in self.inputs:
                what, index = "input", self.inputs.index(name)
            elif name in self.outputs:
                what, index = "output", self.outputs.index(name)
            elif name == "result":  # of a multi-output op: its first output
                what, index = "output", 0
            else:
                what, index = "param", None
            guards = tuple(self.inputs.index(g) for g in guard.split(" or ")) if guard else ()
            out.append((name, what, index, guards[0] if len(guards) == 1 else guards or None))
        return tuple(out)


def metadata_readers(prim: Primitive) -> dict:
    """``{name: reader(values, params)}`` for ``prim.metadata``: ``<input>_sym_sizes`` and
    ``<input>_sym_numel`` read that input's shape (the node keeps every input's shape, saved
    or not, also once released), a keyword parameter's name reads it, and a
    ``(name, reader)`` pair its own reader."""
    readers = {}
    for entry in prim.metadata:
        if isinstance(entry, tuple):
            name, reader = entry
        elif entry.endswith(("_sym_sizes", "_sym_numel")):
            name, (operand, _, what) = entry, entry.rpartition("_sym_")
            reader = _shape_reader(prim.inputs.index(operand), what == "numel")
        else:
            name, reader = entry, _param_reader(entry)
        readers[name] = reader
    return readers


def _shape_reader(index: int, numel: bool):
    def read(values, params):
        value = values[index]
        shape = tuple(value._data.shape if hasattr(value, "_data") else value.shape)
        return math.prod(shape) if numel else shape

    return read


def _param_reader(name: str):
    def read(values, params):
        return params.get(name)

    return read


def check(prim: Primitive) -> None:
    """TypeError (ValueError for a bad value) when a declaration is not well typed."""
    where = f"primitive {prim.key!r}"
    if type(prim.kind) not in KINDS:
        names = ", ".join(k.__name__ for k in KINDS)
        raise TypeError(f"{where}: kind must be one of {names}, got {prim.kind!r}")
    if prim.dtype_rule not in DTYPE_RULES:
        raise ValueError(f"{where}: dtype_rule must be in {DTYPE_RULES}, not {prim.dtype_rule!r}")
    _check_saves(prim, where)
    _check_metadata(prim, where)
    rules = prim.vjp is not None or prim.vjp_all is not None
    if prim.differentiable and type(prim.kind) is not NoDerivative and not rules:
        raise TypeError(f"{where}: a differentiable op needs vjp rules (or vjp_all)")
    if not prim.differentiable and rules:
        raise TypeError(f"{where}: a NonDifferentiable op takes no vjp rules")
    if not prim.materialize_grads and (prim.vjp_all is None or prim.num_outputs < 2):
        raise TypeError(f"{where}: materialize_grads=False is for vjp_all rules of several outputs")


def _check_saves(prim: Primitive, where: str) -> None:
    """TypeError unless every ``saves`` entry names an input, an output or a keyword-only
    parameter of the forward (and a guard, an input)."""
    if not isinstance(prim.saves, tuple) or not all(isinstance(e, str) for e in prim.saves):
        raise TypeError(f"{where}: saves must be a tuple of names, got {prim.saves!r}")
    try:
        kinds = {n: p.kind for n, p in inspect.signature(prim.forward).parameters.items()}
    except (TypeError, ValueError):  # a ufunc: no keyword parameters to save
        kinds = {}
    params = {n for n, k in kinds.items() if k is inspect.Parameter.KEYWORD_ONLY}
    any_param = inspect.Parameter.VAR_KEYWORD in kinds.values()  # ``**params``
    for entry in prim.saves:
        name, _, guard = entry.partition(" if ")
        known = name in ("*", "result") or name in prim.inputs or name in prim.outputs
        known = known or name in params
        known = known or (any_param and name.isidentifier())
        if not known or (guard and not set(guard.split(" or ")) <= set(prim.inputs)):
            raise TypeError(
                f"{where}: saves entry {entry!r} names no input {prim.inputs}, output "
                f"{prim.outputs} or keyword parameter {sorted(params)} (a guard names an input)"
            )


def _check_metadata(prim: Primitive, where: str) -> None:
    """TypeError unless each ``metadata`` entry is a ``(name, callable)`` pair, an input's
    ``_sym_sizes`` / ``_sym_numel``, or a name that no save already shows."""
    saved = {entry.partition(" if ")[0] for entry in prim.saves}
    for entry in prim.metadata:
        if isinstance(entry, tuple):
            ok = len(entry) == 2 and isinstance(entry[0], str) and callable(entry[1])
            name = entry[0] if ok else None
        elif isinstance(entry, str):
            name = entry
            operand, sym, what = entry.rpartition("_sym_")
            ok = not sym or (operand in prim.inputs and what in ("sizes", "numel"))
        else:
            ok, name = False, None
        if not ok or name in saved:
            raise TypeError(
                f"{where}: metadata entry {entry!r} must be an input's '_sym_sizes' or "
                "'_sym_numel', a parameter name or a (name, reader) pair, not already saved"
            )


def default_inputs(vjp, kind) -> tuple:
    """PyTorch's usual names for an op's tensor operands: ``self``, then ``other``."""
    n = len(vjp) if isinstance(vjp, tuple) else (1 if type(kind) is Unary else 2)
    return ("self", "other", *(f"input{i}" for i in range(2, n)))[:n] if n else ()


def default_outputs(num_outputs: int) -> tuple:
    return ("result",) if num_outputs == 1 else tuple(f"result{i}" for i in range(num_outputs))


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
