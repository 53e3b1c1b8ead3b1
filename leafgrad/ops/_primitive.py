"""Declaring a primitive: forward on arrays, derivative rules on Tensors, in one place.

``primitive`` checks a declaration (``_optable`` documents the op table), registers it under
``name.overload`` and turns it into a leafgrad op that promotes dtypes, wraps the result and
records an ``OpNode`` when a graph is wanted. Rules are written with leafgrad ops, so the
backward is itself differentiable.

One calling convention for every rule: the incoming derivative(s) first, then the inputs
exactly as the op was called with them (Tensors or Python numbers), then ``result`` (the
output; a tuple for several; None unless the op ``saves`` it) and the op's parameters as
keywords::

    vjp[i](grad, *inputs, result=result, **params)             -> the gradient of input i
    vjp_all(grad, *inputs, result=result, needs=needs, **params) -> one per input (or None)
    jvp(*tangents, *inputs, result=result, **params)             -> the output's tangent

``grad`` is the output's gradient, ``tangents`` one per input (None where it has none),
``needs`` which inputs want a gradient.
"""

from __future__ import annotations

import inspect
import weakref
from dataclasses import replace

import numpy as np

from .. import _dtype
from .._batched import STATE as _VMAP
from .._batched import BatchedTensor
from .._engine import grad_mode
from .._engine.anomaly import record_creation as _record_creation
from .._engine.anomaly import state as _anomaly
from .._engine.forward import jet_state as _jet_state
from .._engine.forward import state as _forward_state
from .._engine.graph import NO_GRAD_VIEW, OpNode, gradient_edge
from .._engine.profiling import STATE as _PROFILING
from .._engine.saved import PUSHED as _SAVES_HOOKED
from .._engine.saved import _all
from .._quiet import CONTEXTS as _QUIET_CONTEXTS
from .._quiet import quiet_context
from .._tensor import Tensor
from . import _jets, _optable
from ._batching_table import batch_call
from ._inputs import QUIET as _QUIET
from ._inputs import QUIET_STATE as _QUIET_STATE
from ._inputs import _broadcast_error, _check_args, _promote, _quietly
from ._optable import (
    Bilinear,
    Composite,
    Generic,
    Linear,
    NoDerivative,
    PiecewiseLinear,
    Primitive,
    Unary,
)
from ._out import with_out
from ._plain import _holds_array, plain_backward
from ._tangents import (
    _linear_jvp,
    _push_tangents,
    _zeros_like_data,
    diagonal_jvp,
    product_rule,
)

_state = grad_mode._state
_SPECIAL = grad_mode.SPECIAL
_forward = _forward_state  # active dual levels

_REGISTRY = _optable.REGISTRY  # "name.overload" -> Primitive
_NO_EDGE = (None, 0)
# The parameters a node keeps when its op took none: one shared dict that nothing writes to
# (rules get them as keywords), so a node holds one object fewer.
_NO_PARAMS: dict = {}
_new = object.__new__
_ndarray = np.ndarray  # (a module attribute read costs every op more than a global's)
_new_node = OpNode.__new__  # OpNode's own (compiled, a C type: object.__new__ refuses it)


def _fit(grad, inp, broadcast):
    """Undo broadcasting and promotion so ``grad`` matches the input it belongs to."""
    if broadcast and grad._data.shape != inp._data.shape:
        # sum_to (ops/broadcast.py) is itself declared with this machinery, so the machinery
        # reaches it as the Tensor method ops/__init__ binds, as it reaches ``to`` below.
        grad = grad.sum_to_size(inp._data.shape)
    if grad._data.dtype != inp._data.dtype:
        grad = grad.to(_dtype.from_numpy_dtype(inp._data.dtype))
    return grad


def _make_backward(vjp, vjp_all, broadcast, num_outputs, materialize=True, names=None):
    """The rule of a node: one ``vjp_all``, or ``vjp[i]`` per input needing a gradient, run
    in the order of the inputs' names (``names``): PyTorch's generated backward functions
    compute their inputs' formulas so, its derivatives.yaml keys sorted (``other`` before
    ``self``), and a second backward meets the nodes they record in that order."""
    if vjp_all is not None:

        def backward(grads, args, result, params, needs):
            if num_outputs == 1:
                grad = grads[0]
            else:
                grad = _materialize(grads, result) if materialize else tuple(grads)
            outs = vjp_all(grad, *args, result=result, needs=needs, **params)
            return [
                None if g is None or not n else _fit(g, a, broadcast)
                for g, a, n in zip(outs, args, needs)
            ]

        return backward

    order = range(len(vjp)) if names is None else sorted(range(len(vjp)), key=names.__getitem__)

    def backward(grads, args, result, params, needs):
        grad = grads[0] if num_outputs == 1 else _materialize(grads, result)
        outs = [None] * len(needs)
        for i in order:
            if needs[i]:
                g = vjp[i](grad, *args, result=result, **params)
                # _fit only where needed: most gradients match their input already.
                data, like = g._data, args[i]._data
                if (data.dtype is not like.dtype and data.dtype != like.dtype) or (
                    broadcast and data.shape != like.shape
                ):
                    g = _fit(g, args[i], broadcast)
                outs[i] = g
        return outs

    return backward


def _over_edges(backward, positions: tuple, absent: bool = False):
    """``backward`` for a node without edges for the inputs at ``positions`` (or, with
    ``absent``, with ``(None, 0)`` edges at those positions that no input has): ``needs``
    and the gradients it returns are one per edge, the rule's one per input."""

    def over_edges(grads, args, result, params, needs):
        full = list(needs)
        for i in positions:
            full.insert(i, False)
        outs = backward(grads, args, result, params, full)
        return [g for i, g in enumerate(outs) if i not in positions]

    def with_absent(grads, args, result, params, needs):
        given = [n for i, n in enumerate(needs) if i not in positions]
        outs = list(backward(grads, args, result, params, given))
        for i in positions:
            outs.insert(i, None)
        return outs

    return with_absent if absent else over_edges


def _materialize(grads, result):
    return tuple(g if g is not None else _zeros_like_data(r._data) for g, r in zip(grads, result))


def primitive(
    name: str,
    forward,
    vjp=None,
    *,
    kind,
    overload: str = "",
    saves: tuple = (),
    inputs: tuple | None = None,
    outputs: tuple | None = None,
    node_name: str | None = None,
    vjp_all=None,
    dtype_rule: str = "promote",
    broadcast: bool = False,
    scalars: bool | str = False,
    num_outputs: int = 1,
    view: bool = False,
    plain_rules: bool = False,
    materialize_grads: bool = True,
    edgeless: tuple = (),
    absent_edges: tuple = (),
    metadata: tuple = (),
    expose=None,
):
    """Declare an op and register it under ``name.overload``; returns ``op(*inputs, **params)``.

    ``forward(*arrays, **params)`` computes on NumPy arrays. ``vjp``: one rule per input (a
    single rule for a one-input op; None for an input that never needs a gradient), or
    ``vjp_all`` one rule for all of them (ops with any number of inputs). ``kind``: what the
    op is (``_optable``: Unary, Linear, Bilinear, PiecewiseLinear, Composite, Generic,
    NoDerivative, NonDifferentiable), which gives its forward-mode and Taylor rules.
    ``saves``: what PyTorch saves, by its names (``("self", "result")``, ``"self if other"``
    for one saved only when ``other`` needs a gradient); ``inputs`` / ``outputs`` name the
    operands / outputs (default ``self``, ``other`` / ``result``). Rules read the values only
    of what is saved (``_optable``).
    ``dtype_rule``: "promote" (PyTorch promotion, arrays cast to the result dtype), "float" (as
    promote, then integers become the default float), or "keep" (arrays passed as they are; the
    forward decides). ``broadcast``: grads are summed back to input shapes. ``scalars``: Python
    numbers are accepted as inputs (``"other"``: except as the first, which must be a tensor, as
    PyTorch's ``eq(Tensor, Scalar)``). ``num_outputs``: how many arrays the forward returns.
    ``view``: when the forward returns a NumPy view of the first input, the result is a leafgrad
    view of it (shares its version counter; in-place writes through it rebase the base's
    history). ``plain_rules``: the rules read their operands only through arithmetic operators,
    ``.shape`` and leafgrad ops, so they also run on NumPy arrays when nothing is recorded
    (``plain_backward``). ``materialize_grads=False``: a ``vjp_all`` rule of several outputs
    gets None for the outputs no gradient reached instead of zeros (PyTorch's
    ``ctx.set_materialize_grads(False)``), sparing a large op zeros it would only add or test.
    ``edgeless``: the positions of inputs that are never differentiable and get no edge
    (``where``'s condition, ``masked_fill``'s mask), so ``next_functions`` lists PyTorch's.
    ``absent_edges``: positions in ``next_functions`` of ``(None, 0)`` edges for optional
    tensors the overload does not take (a convolution's absent bias, clamp's absent bound),
    as PyTorch lists them. ``metadata``: what PyTorch's node shows besides its saves
    (``"self_sym_sizes"``, a parameter's name, or ``(name, reader(values, params))``; see
    ``_optable.metadata_readers``), as ``grad_fn._saved_<name>``.
    ``expose``: how the op itself is public, a ``_exposure.public(...)`` (most ops are exposed
    through a function that dispatches to their primitives). Unknown keywords, kinds or
    ``saves`` entries raise TypeError, a second declaration of one key ValueError.
    """
    if vjp is not None and not isinstance(vjp, tuple):
        vjp = (vjp,)
    jvp = None  # the forward rule: declared by the kind, or derived from it
    # isinstance rather than ``match``: Cython, which compiles this module, has no ``match``.
    if isinstance(kind, Unary):
        if vjp is None and kind.d1_takes_result and "result" not in saves:
            raise TypeError(f"primitive {name!r}: d1 reads result; declare saves=('result',)")
        derived_vjp, derived_jvp = _unary_rules(kind)
        vjp = vjp or (derived_vjp,)
        jvp = kind.jvp or derived_jvp
    elif isinstance(kind, (Composite, Generic)):
        jvp = kind.jvp
    elif isinstance(kind, Linear):
        jvp = _linear_jvp  # the op applied to the tangents (called as the machinery's)
    elif isinstance(kind, PiecewiseLinear):
        if vjp:
            jvp = diagonal_jvp(*vjp)
    elif isinstance(kind, NoDerivative):
        vjp_all = _no_derivative(name, kind.error)
        node_name = node_name or "torch::autograd::NotImplemented"
    declared = Primitive(
        name=name,
        overload=overload,
        forward=forward,
        vjp=vjp,
        vjp_all=vjp_all,
        kind=kind,
        saves=saves,
        inputs=_optable.default_inputs(vjp, kind) if inputs is None else inputs,
        outputs=_optable.default_outputs(num_outputs) if outputs is None else outputs,
        node_name=node_name or f"{name.capitalize()}Backward0",
        jvp=jvp,
        dtype_rule=dtype_rule,
        broadcast=broadcast,
        scalars=scalars,
        num_outputs=num_outputs,
        view=view,
        plain_rules=plain_rules,
        materialize_grads=materialize_grads,
        edgeless=edgeless,
        absent_edges=absent_edges,
        metadata=metadata,
    )
    _optable.check(declared)
    op = _build(declared)
    _optable.register(op.primitive)
    return op if expose is None else expose(op)


def adjoint_pair(
    name,
    forward,
    adjoint_name,
    adjoint_forward,
    *,
    node_name,
    adjoint_node_name,
    overload="",
    adjoint_overload="",
    view=False,
    saves=(),
    metadata=(),
    adjoint_absent_edges=(),
):
    """A linear op that reads part of its input (select, gather ...) and its adjoint, which
    writes a gradient into zeros of the input's shape (select_backward, scatter_add ...): each
    is the other's VJP, so gradients of every order alternate between the two.

    ``forward(x, **params)`` and ``adjoint_forward(grad, shape=x's shape, **params)`` take the
    same parameters; ``saves`` and ``metadata`` are the op's (the adjoint saves nothing).
    Returns the two ops.
    ``adjoint_absent_edges``: the adjoint's ``(None, 0)`` edges, where PyTorch's adjoint is an
    op on zeros it lists (scatter_add's and index_put's ``self``).
    """

    def op_vjp(grad, x, *, result, **params):
        return adjoint(grad, shape=tuple(x.shape), **params)

    def adjoint_vjp(grad, g, *, result, shape, **params):
        return op(grad, **params)

    op = primitive(
        name,
        forward,
        op_vjp,
        kind=Linear(),
        overload=overload,
        saves=saves,
        node_name=node_name,
        dtype_rule="keep",
        view=view,
        plain_rules=True,
        metadata=metadata,
    )
    adjoint = primitive(
        adjoint_name,
        adjoint_forward,
        adjoint_vjp,
        kind=Linear(),
        overload=adjoint_overload,
        node_name=adjoint_node_name,
        dtype_rule="keep",
        plain_rules=True,
        absent_edges=adjoint_absent_edges,
    )
    return op, adjoint


def with_outputs(op, num_outputs: int):
    """``op`` for a forward that returns ``num_outputs`` arrays (split into n pieces ...): the
    same declaration, not registered again."""
    outputs = _optable.default_outputs(num_outputs)
    return _build(replace(op.primitive, num_outputs=num_outputs, outputs=outputs))


def _build(prim: Primitive):
    """The callable op for a checked declaration."""
    name, forward, vjp, vjp_all = prim.name, prim.forward, prim.vjp, prim.vjp_all
    broadcast, scalars, view = prim.broadcast, prim.scalars, prim.view
    tensor_first = scalars == "other"  # numbers, but not as the first operand
    num_outputs = prim.num_outputs
    node_name, dtype_rule = prim.node_name, prim.dtype_rule
    differentiable = prim.differentiable
    edgeless = prim.edgeless  # inputs without an edge (where's condition, masked_fill's mask)
    absent = prim.absent_edges  # None edges for optional tensors not given
    backward = (
        _make_backward(vjp, vjp_all, broadcast, num_outputs, prim.materialize_grads, prim.inputs)
        if differentiable
        else None
    )
    if backward is not None:
        on_arrays = (
            plain_backward(vjp, vjp_all, broadcast, num_outputs, prim.materialize_grads)
            if prim.plain_rules
            else None
        )
        if edgeless:
            backward = _over_edges(backward, edgeless)
            on_arrays = on_arrays and _over_edges(on_arrays, edgeless)
        if absent:
            backward = _over_edges(backward, absent, absent=True)
            on_arrays = on_arrays and _over_edges(on_arrays, absent, absent=True)
        backward.on_arrays = on_arrays
    saved = prim.saved()
    # ``(index, guard bits)`` per saved input (0: saved always; else saved when one of those
    # inputs requires grad), in PyTorch's saving order: the alphabetical order of the
    # inputs' names (mul packs ``other`` before ``self``; saved tensors hooks see that order).
    saved_inputs = tuple(
        (index, 0 if guard is None else _bits(guard))
        for _, what, index, guard in sorted(saved, key=_name_of)
        if what == "input"
    )
    always = tuple(index for index, bits in saved_inputs if not bits)
    guard_bits = 0  # the inputs guards look at
    for _, bits in saved_inputs:
        guard_bits |= bits
    guarded = guard_bits != 0
    checked_for: dict = {}  # (grad mask & guard_bits) -> the indices saved then
    saved_outputs = [index for _, what, index, _ in saved if what == "output"]
    every_input = any(what == "inputs" for _, what, _, _ in saved)
    # Several outputs are kept (their shapes fill in missing grads) unless their rule takes
    # None for those (materialize_grads=False) and saves none; one, if saved.
    keep_result = bool(saved_outputs) or (num_outputs > 1 and prim.materialize_grads)
    guard_output = saved_outputs[0] if saved_outputs else None
    guard_outputs = tuple(dict.fromkeys(saved_outputs))  # each saved output, once
    # What grad_fn._saved_<name> reads: (what, index) per save; a parameter's default in
    # place of its index (PyTorch shows alpha=1 where none was given); metadata's readers.
    names = {n: (what, index) for n, what, index, _ in saved if n != "*"}
    for n, (what, _) in names.items():
        if what == "param":
            names[n] = (what, _default_of(prim.forward, n))
    for n, reader in _optable.metadata_readers(prim).items():
        names[n] = ("meta", reader)
    names = names or None
    if backward is not None:
        backward.saved_names = names
    for saved_name, (what, _) in (names or {}).items():
        OpNode.show_saved(saved_name, raw=what in ("input", "output"))
    # split / unbind: each output is one of several views, even when there is just one piece.
    declared = _REGISTRY.get(prim.key, prim)
    multi_view = view and max(prim.num_outputs, declared.num_outputs) > 1
    float_only = dtype_rule == "float"
    promote = dtype_rule in ("promote", "float")
    node_class = OpNode.named(node_name)
    if type(prim.kind) is NoDerivative:
        node_class._runs_first = True  # as PyTorch's NotImplemented nodes (see the engine)

    # Whether the op may take the direct path below (one output and a rule).
    direct = differentiable and num_outputs == 1 and not edgeless and not absent
    # The Scalar overload a derivative formula's ``tensor * number`` records (see
    # formula_scalars): empty, or that one op.
    twin = []
    operand_names = _keyword_operands(prim)
    operand_count = len(operand_names)

    def op(*args, **params):
        if params and len(args) < operand_count and not operand_names.isdisjoint(params):
            args = _operands_by_keyword(name, prim.inputs, args, params)
        # The common case, recorded directly: a plain floating Tensor (or nn.Parameter) alone,
        # beside one or two others of its dtype or beside a Python number, one of them
        # requiring grad; parameters but no ``out=``, grad mode on, no mode (vmap, dual
        # levels, jets, anomaly, inference, saved tensors hooks). Then ``edges`` is set here,
        # and after the forward (shared) the node is recorded at once; the general path
        # records them alike (tested against it), with every check it needs for the rest.
        a = args[0] if args else None
        # In a plain rule, arrays in and arrays out: the forward on them as they are (the
        # loop below does the same, checked argument by argument; this is its common case,
        # once per step of every plain rule, first so that it skips the rest).
        if type(a) is _ndarray and _state.plain and not (params and "out" in params):
            for b in args:
                if isinstance(b, Tensor):
                    break
            else:
                return forward(*args, **params)
        edges = None
        if direct and not _SPECIAL[0] and not (params and "out" in params):
            arrays = None
            if (type(a) is Tensor or type(a) is _PARAMETER) and not a._is_inference:
                x = a._data
                dtype = x.dtype
                if dtype.kind == "f":
                    n = len(args)
                    if n == 1:
                        if a._requires_grad:
                            arrays, grads = (x,), 1
                    elif n == 2:
                        b = args[1]
                        number = type(b) is float or type(b) is int
                        if type(b) is Tensor or type(b) is _PARAMETER:
                            y = b._data
                            grads = a._requires_grad + 2 * b._requires_grad  # bit i: args[i]
                            if (
                                grads
                                and (y.dtype is dtype or y.dtype == dtype)
                                and not b._is_inference
                            ):
                                arrays = (x, y)
                        elif number and scalars and a._requires_grad:
                            if not (twin and _state.formula):  # else: the general path's
                                arrays, grads = (x, b), 1  # the number takes the tensor's dtype
                    elif n == 3:  # addmm, addcmul, lerp ...
                        b, c = args[1], args[2]
                        if (type(b) is Tensor or type(b) is _PARAMETER) and (
                            type(c) is Tensor or type(c) is _PARAMETER
                        ):
                            y, z = b._data, c._data
                            grads = a._requires_grad + 2 * b._requires_grad + 4 * c._requires_grad
                            if (
                                grads
                                and (y.dtype is dtype or y.dtype == dtype)
                                and (z.dtype is dtype or z.dtype == dtype)
                                and not (b._is_inference or c._is_inference)
                            ):
                                arrays = (x, y, z)
            if arrays is not None and _state.enabled and not _SAVES_HOOKED[0]:
                # Each operand's gradient edge: a non-leaf's (most operands) read inline,
                # a leaf's by ``_edge``.
                fn = a.grad_fn
                edge = (fn, a._output_nr) if fn is not None else _edge(a)
                if n == 1:
                    edges = (edge,)
                elif n == 2:
                    if number:
                        edges = (edge, _NO_EDGE)
                    else:
                        fn = b.grad_fn
                        edges = (edge, (fn, b._output_nr) if fn is not None else _edge(b))
                else:
                    edges = (edge, _edge(b), _edge(c))
        if edges is None:
            if twin and _state.formula and len(args) == 2 and not params:
                scalar = _formula_scalar(twin[0], args)
                if scalar is not None:
                    return scalar
            if _SPECIAL[0]:
                if _VMAP.active:
                    for a in args:
                        if type(a) is BatchedTensor:
                            return batch_call(op, args, params)
                if _PROFILING.recorder is not None:  # a profiler records: time this op
                    if _PROFILING.skip is op:  # its own call, from op_event
                        _PROFILING.skip = None
                    else:
                        return _PROFILING.recorder.op_event(name, op, args, params)
            if params and "out" in params:  # out=: written into a given tensor, not recorded
                out = params.pop("out")
                if out is not None:
                    return with_out(name, _call_later(op, args, params), args, out)
            # Jet mode is special: the cheap reads first, the thread-local one last.
            if (
                _SPECIAL[0]
                and name in _jets.CALLS
                and _jet_state.mode is not None
                and not _forward.levels
            ):
                result = _jets.call(op, args, params)  # the op and its jet in one node
                if result is not None:
                    return result
            # One pass over the operands: who needs a gradient, the arrays, and whether the
            # tensors share one floating dtype and the rest are Python numbers (then no
            # promotion is needed: the common case).
            grad_mask = 0  # bit i: args[i] is a tensor that requires grad
            bit = 1
            arrays = []
            first = None
            uniform = True
            on_arrays = False  # in a plain rule, given arrays: compute on them, record nothing
            for a in args:
                if type(a) is Tensor or isinstance(a, Tensor):
                    if a._requires_grad:
                        grad_mask |= bit
                    data = a._data
                    if uniform:
                        if first is None:
                            first = data.dtype
                        elif data.dtype is not first and data.dtype != first:  # `is`: cheap
                            uniform = False
                    arrays.append(data)
                elif on_arrays:  # the rest of a plain rule's arguments, taken as they are
                    arrays.append(a)
                else:
                    number = type(a) is float or type(a) is int
                    if bit == 1 and tensor_first and not _state.plain:
                        raise TypeError(
                            f"{name}(): argument 'input' (position 1) must be a Tensor, not "
                            f"{type(a).__name__}; put the tensor first or make the number one"
                        )
                    if not (scalars and number):
                        # In a plain rule: arrays in, arrays out (mostly ``a`` is one itself).
                        if _state.plain and (type(a) is np.ndarray or _holds_array(args)):
                            on_arrays = True
                        else:
                            _check_args(name, args, scalars)
                    # A Python number takes a floating tensor's dtype (PyTorch's weak scalars).
                    if not number:
                        uniform = False
                    arrays.append(a)
                bit += bit
            if on_arrays:  # ``arrays`` holds the operands' arrays and the other arguments
                return forward(*arrays, **params)
            if promote and not (uniform and first is not None and first.kind == "f"):
                arrays = _promote(args, float_only)
        # NumPy quiet: run in this thread's quiet context, unless quiet already (inside a
        # backward rule, see OpNode.apply, or an op's forward), or a view (no arithmetic).
        try:
            if view or _QUIET.get() is _QUIET_STATE:
                out = forward(*arrays, **params)
            else:
                context = _QUIET_CONTEXTS.context  # quiet_context()'s read, inline
                if context is None:
                    context = quiet_context()
                if params:
                    out = context.run(forward, *arrays, **params)
                else:  # (an empty dict unpacked still costs)
                    out = context.run(forward, *arrays)
        except ValueError as exc:
            if not broadcast:
                raise
            raise _broadcast_error(name, args) from exc
        except RuntimeError as exc:
            # A forward that set NumPy's error state itself and called an op from inside:
            # the quiet context is entered already; quiet the variable there instead.
            if "already entered" not in str(exc):
                raise
            out = _quietly(forward, arrays, params)
        except OverflowError:
            # A Python int beyond an integer tensor's range: NumPy refuses it, PyTorch wraps
            # it around (an int8 tensor + 200 adds -56).
            wrapped = _wrapped_ints(arrays)
            if wrapped is None:
                raise
            out = _quietly(forward, wrapped, params)
        if edges is not None:  # the direct path's node
            if type(out) is not _ndarray:
                out = np.asarray(out)
            result = _new(Tensor)
            result._data = out
            if out.dtype.kind != "f":  # e.g. a cast to int leaves the graph
                return result
            result._requires_grad = True
            if every_input:
                checked = _all(len(args))
            elif guarded:
                checked = checked_for.get(grads & guard_bits)
                if checked is None:
                    checked = _checked_for(saved_inputs, grads & guard_bits, checked_for)
            else:
                checked = always
            node = _new_node(node_class)
            node._record(
                node_name,
                backward,
                edges,
                args,
                params or _NO_PARAMS,
                checked,
                out if keep_result else None,
                result if guard_output is not None else None,
            )
            result.grad_fn = node
            if view:
                _mark_views(op, args, params, x, result, multi_view)
            return result
        # Grad mode matters only when an operand requires grad; the other modes only while
        # some thread is in one (_SPECIAL): each thread-local read costs ~0.1 us.
        needs_grad = grad_mask != 0
        enabled = needs_grad and _state.enabled
        record = differentiable and enabled
        special = _SPECIAL[0]
        if num_outputs == 1:
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            # _wrap inlined (a hot path). Only floating results can require grad (e.g. a
            # cast to int leaves the graph).
            result = _new(Tensor)
            result._data = out
            if record:
                if out.dtype.kind == "f":
                    result._requires_grad = True
                else:
                    record = False
            elif needs_grad and not enabled:
                result._provenance = "no_grad"  # read by autograd.explain
            if special and _state.inference:
                result._is_inference = True
        else:
            out, result = _wrap_several(out, record)
        if record:
            # Where each operand's gradient goes (gradient_edge, a non-leaf's read here), and
            # whether any operand is an inference tensor (then: may it be saved?).
            edges = []
            inference = False
            for a in args:
                if type(a) is Tensor or isinstance(a, Tensor):
                    fn = a.grad_fn
                    if fn is not None:
                        edges.append((fn, a._output_nr))
                    else:
                        edges.append(gradient_edge(a) if a._requires_grad else _NO_EDGE)
                    if a._is_inference:
                        inference = True
                else:
                    edges.append(_NO_EDGE)
            if every_input:
                checked = _all(len(args))
            elif guarded:  # saved only if that other input needs a gradient
                checked = checked_for.get(grad_mask & guard_bits)
                if checked is None:
                    checked = _checked_for(saved_inputs, grad_mask & guard_bits, checked_for)
            else:
                checked = always
            if edgeless:
                edges = [e for i, e in enumerate(edges) if i not in edgeless]
            for i in absent:
                edges.insert(i, _NO_EDGE)
            if inference:
                _check_saving_inference(name, args, checked)
            keep = guard = late = None  # the output arrays kept, and the tensor(s) guarding them
            if keep_result:
                keep = out
                if guard_output is not None:
                    guard = result if num_outputs == 1 else _pick(result, guard_outputs)
                if _SAVES_HOOKED[0]:
                    # Saved tensors hooks somewhere: the output is packed once it hangs from
                    # the node (pack hooks see its grad_fn), below.
                    late, keep, guard = (keep, guard), None, None
            # The node (an OpNode.named class) made without calling the class: cheaper.
            node = _new_node(node_class)
            node._record(
                node_name,
                backward,
                tuple(edges),
                args,
                params or _NO_PARAMS,
                # Only the saved inputs are checked for in-place changes (as in PyTorch):
                # the rules read the others' shapes and dtypes only.
                checked,
                keep,
                guard,
            )
            if special and _anomaly.enabled:
                _record_creation(node)
            if num_outputs == 1:
                result.grad_fn = node
            else:
                node.num_outputs = num_outputs
                for i, r in enumerate(result):
                    if r._requires_grad:  # integer outputs (indices) stay leaves
                        r.grad_fn = node
                        r._output_nr = i
            if late is not None:
                node.save_result(*late)
        if view:
            _mark_views(op, args, params, arrays[0], result, multi_view)
        if special and differentiable:
            if _forward.levels:
                _push_tangents(op, jvp_rule, args, params, result, num_outputs)
            if _jet_state.mode is not None:
                _jets.push(op, args, params, result)
        return result

    op.__name__ = op.__qualname__ = name
    op._formula_twin = twin
    if type(prim.kind) is Bilinear:
        prim = replace(prim, jvp=product_rule(op))  # the op's own product rule
    op.primitive = prim
    jvp_rule = prim.jvp
    return op


def _keyword_operands(prim: Primitive) -> frozenset:
    """The names PyTorch's signature gives the op's tensor operands (``self`` is ``input``),
    but for those its forward takes as parameters (a Scalar overload's ``other``)."""
    try:
        taken = set(inspect.signature(prim.forward).parameters)
    except (TypeError, ValueError):  # a ufunc: operands only
        taken = set()
    return frozenset(_public_name(n) for n in prim.inputs) - taken


def _public_name(operand: str) -> str:
    return "input" if operand == "self" else operand


def _operands_by_keyword(name: str, operands: tuple, args: tuple, params: dict) -> tuple:
    """``args`` completed from the operands given by keyword (``torch.exp(input=x)``,
    ``x.mul(other=2)``), which leave ``params``; a gap before one is PyTorch's TypeError."""
    args = list(args)
    for operand in operands[len(args) :]:
        key = _public_name(operand)
        if key not in params:
            break
        args.append(params.pop(key))
    given = [n for n in map(_public_name, operands[len(args) :]) if n in params]
    if given:
        raise TypeError(
            f"{name}(): argument '{given[0]}' given by keyword, but an operand before it is "
            f"missing; pass the operands {[_public_name(n) for n in operands]} in order"
        )
    return tuple(args)


def _default_of(forward, name: str):
    """The default of ``forward``'s keyword parameter ``name`` (None if it has none)."""
    try:
        parameter = inspect.signature(forward).parameters.get(name)
    except (TypeError, ValueError):  # a ufunc
        return None
    if parameter is None or parameter.default is inspect.Parameter.empty:
        return None
    return parameter.default


def formula_scalars(op, scalar_op) -> None:
    """Make ``op(tensor, number)`` inside a built-in backward rule run ``scalar_op(tensor,
    other=number)``: PyTorch's derivative formulas are C++, where ``grad * 2`` is mul.Scalar
    (MulBackward1, one edge), while Python's ``x * 2`` is mul.Tensor with a wrapped number
    (MulBackward0). A rule whose number stands for such a wrapped tensor passes a 0-d tensor
    instead (``arithmetic.wrapped_number``)."""
    op._formula_twin.append(scalar_op)


def _formula_scalar(scalar_op, args):
    """``scalar_op`` on ``(tensor, number)`` for a floating tensor that requires grad and a
    real number (else None: the op's own path)."""
    a, b = args
    if (type(b) is float or type(b) is int) and isinstance(a, Tensor) and a._requires_grad:
        if a._data.dtype.kind == "f":
            return scalar_op(a, other=b)
    return None


# The Tensor subclass whose instances the direct path takes as it takes plain tensors:
# nn.Parameter, which names itself here when it is defined (ops cannot import nn). Other
# subclasses take the general path.
_PARAMETER: type = Tensor


def record_directly(cls: type) -> None:
    """Let the direct path take ``cls`` operands as plain tensors (nn.Parameter's call)."""
    global _PARAMETER
    _PARAMETER = cls


# Helpers for ``op``'s rare branches: a lambda or generator there would make its variables
# closure cells, created on every call of every op.
def _call_later(op, args, params):
    """``op(*args, **params)``, deferred."""
    return lambda: op(*args, **params)


def _wrap_several(arrays, record: bool) -> tuple:
    """``(arrays, tensors)`` for an op of several outputs: each output as an ndarray, and as
    a tensor (requiring grad when recorded and floating). (One loop, _wrap inline: split,
    chunk and unbind make several per call.)"""
    kept = []
    tensors = []
    for o in arrays:
        if type(o) is not np.ndarray:
            o = np.asarray(o)
        kept.append(o)
        t = _new(Tensor)
        t._data = o
        if record and o.dtype.kind == "f":
            t._requires_grad = True
        tensors.append(t)
    return tuple(kept), tuple(tensors)


def _wrapped_ints(arrays) -> list | None:
    """``arrays`` with each Python int wrapped into the first integer array's dtype (two's
    complement, as PyTorch casts a number to a tensor's dtype), or None where there is no
    such array or an int does not fit in 64 bits either."""
    dtype = next(
        (a.dtype for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind in "iu"), None
    )
    if dtype is None:
        return None
    out = []
    for a in arrays:
        if type(a) is int:
            try:
                a = np.array(a).astype(dtype)[()]
            except OverflowError:
                return None
        out.append(a)
    return out


def _pick(items: tuple, indices: tuple) -> tuple:
    return tuple(items[i] for i in indices)


def _edge(tensor) -> tuple:
    """``gradient_edge(tensor)``, a non-leaf's read here (most operands are one)."""
    fn = tensor.grad_fn
    return (fn, tensor._output_nr) if fn is not None else gradient_edge(tensor)


def _bits(guard) -> int:
    """A guard (an input's index, or a tuple of them) as a mask of those inputs' bits."""
    return sum(1 << g for g in guard) if isinstance(guard, tuple) else 1 << guard


def _name_of(entry: tuple) -> str:
    """A ``saves`` entry's name, the key PyTorch orders its saved inputs by."""
    return entry[0]


def _checked_for(saved_inputs: tuple, mask: int, cache: dict) -> tuple:
    """The inputs an op saves, in its saving order, when the inputs requiring grad are
    ``mask``'s bits: each ``(index, bits)`` of ``saved_inputs`` saved always (no bits) or
    guarded by an input that requires grad (cached in ``cache``: an op meets few masks, and
    a shared tuple spares one per node)."""
    checked = tuple(i for i, bits in saved_inputs if not bits or mask & bits)
    cache[mask] = checked
    return checked


def _check_saving_inference(name, args, checked) -> None:
    """RuntimeError if a saved input is an inference tensor (made under inference_mode)."""
    for i in checked:
        if getattr(args[i], "_is_inference", False):
            raise RuntimeError(
                f"{name}: inference tensors (made under inference_mode) cannot be saved for "
                "backward; make a normal tensor with .clone() outside inference mode first"
            )


def _mark_views(op, args, params, source, result, multi_view, output_nr=None) -> None:
    """Make each result that aliases ``args[0]`` a view: shared counter, base, view_fn.

    Each view is listed (weakly) beside the version counter it shares, so that an in-place
    change of any alias regenerates its history (``view_history.refresh_views``). Several
    results are marked one by one (``output_nr``: which; None for an op's only output).
    """
    if type(result) is tuple:
        for i, r in enumerate(result):
            _mark_views(op, args, params, source, r, multi_view, i)
        return
    data = result._data
    # A non-empty NumPy view of ``source``, or of the array ``source`` views (NumPy names
    # the owner of the memory as the base: a view of a view), shares its memory; anything
    # else asks NumPy (which calls empty arrays unshared).
    owner = data.base
    if not (
        owner is not None and (owner is source or owner is source.base) and data.size
    ) and not np.may_share_memory(data, source):
        return
    parent = args[0]
    counter = parent._version_counter
    if counter is None:
        counter = parent._shared_version_counter()
    base = parent._base
    result._base = parent if base is None else base
    result._version_counter = counter
    result._view_version = counter[0]
    # A view is an inference tensor exactly when its base is one (whatever the mode);
    # a result is not one unless made in inference mode, so only then is there a change.
    if parent._is_inference or result._is_inference:
        result._is_inference = parent._is_inference
    if result.grad_fn is None and parent._requires_grad and data.dtype.kind == "f":
        # PyTorch: a view made in no-grad mode still reports requires_grad=True, but
        # gradients reaching it go nowhere (it has no valid accumulator).
        result._requires_grad = True
        result._accumulator = NO_GRAD_VIEW
    # Only these modes (or several outputs) mark a view; otherwise it keeps its parent's mark.
    # (A recorded view was made with grad mode on: no need to read the thread's mode.)
    meta = parent._view_meta
    if (
        multi_view
        or (_SPECIAL[0] and _state.inference)
        or (result.grad_fn is None and not _state.enabled)
    ):
        meta = _creation_meta(op, result, output_nr or 0, multi_view, meta)
    if meta is not None:
        result._view_meta = meta
    result._view_fn = _replay(op, args, params, output_nr, parent._view_fn)
    register_view(counter, result)


def _replay(op, args, params, output_nr, parent_fn):
    """The view's ``view_fn``: base -> the view, ``op`` applied after ``parent_fn`` (how the
    parent was made from the base; None when the parent is the base)."""
    if output_nr is None and len(args) == 1 and not params:  # t(), alias(): op itself
        fn = op
    elif output_nr is None:
        rest = args[1:]

        def fn(t):
            return op(t, *rest, **params)
    else:
        rest = args[1:]

        def fn(t):
            return op(t, *rest, **params)[output_nr]

    if parent_fn is not None:
        fn = _compose(parent_fn, fn)
    if op.primitive.name == "as_strided":
        # (a fresh closure here) it places the view by storage positions: replayed on a
        # gradient, that gradient must own its memory (``view_history``)
        fn.reads_storage = True
    return fn


def register_view(counter: list, view) -> None:
    """List ``view`` (weakly) beside the version counter it shares with its base."""
    if len(counter) == 1:
        counter.append([])
    views = counter[1]
    views.append(weakref.ref(view))
    n = len(views)
    if n >= 16 and not n & (n - 1):  # at powers of two: amortised pruning of dead views
        counter[1] = [v for v in views if v() is not None]


def _creation_meta(op, view, output_nr, multiple, inherited):
    """How PyTorch marks a view it will refuse to let change in place (None: it will not):
    ``("multi_output", op name, output number)`` for one of several views an op returned,
    ``("no_grad", ...)`` for a view made without recording, ``("inference", ...)`` for one
    made in inference mode. A view of such a view keeps the mark of its parent."""
    if _state.inference:
        kind = "inference"
    elif multiple:
        kind = "multi_output" if view.grad_fn is not None else "no_grad"
    elif not _state.enabled:
        kind = "no_grad"
    else:
        return inherited
    if inherited is not None and inherited[0] == "inference":
        return inherited
    return (kind, op.primitive.name, output_nr)


def _compose(inner, outer):
    def fn(t):
        return outer(inner(t))

    if getattr(inner, "reads_storage", False) or getattr(outer, "reads_storage", False):
        fn.reads_storage = True  # (views keep the storage: it reads the argument's)
    return fn


def unary(name: str, forward, *, d1, d2=None, dtype_rule="float", saves=None, **declaration):
    """An elementwise op of one tensor whose rules follow from its derivatives:
    ``primitive(name, forward, kind=Unary(d1, d2))``, saving the result when ``d1`` reads it
    and the input otherwise (unless ``saves`` says more, e.g. parameters).

    ``d1(x, result)`` (and ``d2`` for Taylor mode) are written in leafgrad ops.
    """
    kind = Unary(d1, d2)
    if saves is None:
        saves = ("result",) if kind.d1_takes_result else ("self",)
    if isinstance(forward, np.ufunc) and forward.types and "e->e" not in forward.types:
        forward = _keeping_half(forward)
    return primitive(name, forward, kind=kind, saves=saves, dtype_rule=dtype_rule, **declaration)


def _keeping_half(ufunc):
    """A ufunc without a float16 loop (SciPy's special functions: NumPy picks their float32
    or float64 loop) whose float16 results are rounded back to float16, as PyTorch's are."""

    def forward(x, *args, **params):
        out = ufunc(x, *args, **params)
        if x.dtype.char == "e" and out.dtype.char != "e":
            out = out.astype(x.dtype)
        return out

    forward.__name__ = forward.__qualname__ = ufunc.__name__
    forward.__doc__ = f"``{ufunc.__name__}`` with float16 results kept in float16."
    return forward


def _unary_rules(kind: Unary):
    """``grad * d1`` and ``t * d1``, with ``result`` passed on only when ``d1`` takes it."""
    d1 = kind.d1
    if kind.d1_takes_result:

        def vjp(grad, x, result, **params):
            return grad * d1(x, result=result, **params)

        def jvp(t, x, result, **params):
            return t * d1(x, result=result, **params)
    else:

        def vjp(grad, x, result, **params):
            return grad * d1(x, **params)

        def jvp(t, x, result, **params):
            return t * d1(x, **params)

    return vjp, jvp


def _no_derivative(name, error):
    def vjp_all(grad, *args, **params):
        raise error(f"the derivative for '{name}' is not implemented (nor is it in PyTorch)")

    return vjp_all
