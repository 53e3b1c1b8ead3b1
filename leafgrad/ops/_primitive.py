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

from dataclasses import replace

import numpy as np

from .. import _dtype
from .._batched import ACTIVE as _VMAP_LEVELS
from .._batched import BatchedTensor
from .._engine import grad_mode
from .._engine.anomaly import record_creation as _record_creation
from .._engine.anomaly import state as _anomaly
from .._engine.forward import jet_state as _jet_state
from .._engine.forward import state as _forward_state
from .._engine.graph import NO_GRAD_VIEW, OpNode, gradient_edge
from .._tensor import Tensor, _wrap
from . import _jets, _optable
from ._batching_table import batch_call
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
from ._tangents import (
    _linear_jvp,
    _push_tangents,
    _zeros_like_data,
    diagonal_jvp,
    product_rule,
)

_state = grad_mode._state
_forward = _forward_state  # active dual levels

_REGISTRY = _optable.REGISTRY  # "name.overload" -> Primitive
_NO_EDGE = (None, 0)


def _fit(grad, inp, broadcast):
    """Undo broadcasting and promotion so ``grad`` matches the input it belongs to."""
    if broadcast and grad._data.shape != inp._data.shape:
        # sum_to (ops/broadcast.py) is itself declared with this machinery, so the machinery
        # reaches it as the Tensor method ops/__init__ binds, as it reaches ``to`` below.
        grad = grad.sum_to_size(inp._data.shape)
    if grad._data.dtype != inp._data.dtype:
        grad = grad.to(_dtype.from_numpy_dtype(inp._data.dtype))
    return grad


def _make_backward(vjp, vjp_all, broadcast, num_outputs):
    if vjp_all is not None:

        def backward(grads, args, result, params, needs):
            grad = grads[0] if num_outputs == 1 else _materialize(grads, result)
            outs = vjp_all(grad, *args, result=result, needs=needs, **params)
            return [
                None if g is None or not n else _fit(g, a, broadcast)
                for g, a, n in zip(outs, args, needs)
            ]

        return backward

    def backward(grads, args, result, params, needs):
        grad = grads[0] if num_outputs == 1 else _materialize(grads, result)
        outs = []
        for i, need in enumerate(needs):
            if need:
                g = vjp[i](grad, *args, result=result, **params)
                outs.append(_fit(g, args[i], broadcast))
            else:
                outs.append(None)
        return outs

    return backward


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
    node_name: str | None = None,
    vjp_all=None,
    dtype_rule: str = "promote",
    broadcast: bool = False,
    scalars: bool = False,
    num_outputs: int = 1,
    view: bool = False,
    expose=None,
):
    """Declare an op and register it under ``name.overload``; returns ``op(*inputs, **params)``.

    ``forward(*arrays, **params)`` computes on NumPy arrays. ``vjp``: one rule per input (a
    single rule for a one-input op; None for an input that never needs a gradient), or
    ``vjp_all`` one rule for all of them (ops with any number of inputs). ``kind``: what the
    op is (``_optable``: Unary, Linear, Bilinear, PiecewiseLinear, Composite, Generic,
    NoDerivative, NonDifferentiable), which gives its forward-mode and Taylor rules.
    ``saves=("result",)``: the node keeps the output, for rules that read ``result``.
    ``dtype_rule``: "promote" (PyTorch promotion, arrays cast to the result dtype), "float"
    (as promote, then integers become the default float), or "keep" (arrays passed as they
    are; the forward decides). ``broadcast``: grads are summed back to input shapes.
    ``scalars``: Python numbers are accepted as inputs. ``num_outputs``: how many arrays the
    forward returns. ``view``: when the forward returns a NumPy view of the first input, the
    result is a leafgrad view of it (shares its version counter; in-place writes through it
    rebase the base's history). ``expose``: how the op itself is public, a
    ``_exposure.public(...)`` (most ops are exposed through a function that dispatches to
    their primitives). Unknown keywords, kinds or ``saves`` entries raise TypeError, a second
    declaration of one key ValueError.
    """
    if vjp is not None and not isinstance(vjp, tuple):
        vjp = (vjp,)
    jvp = None  # the forward rule: declared by the kind, or derived from it
    match kind:
        case Unary():
            if vjp is None and kind.d1_takes_result and "result" not in saves:
                raise TypeError(f"primitive {name!r}: d1 reads result; declare saves=('result',)")
            derived_vjp, derived_jvp = _unary_rules(kind)
            vjp = vjp or (derived_vjp,)
            jvp = kind.jvp or derived_jvp
        case Composite() | Generic():
            jvp = kind.jvp
        case Linear():
            jvp = _linear_jvp  # the op applied to the tangents (called as the machinery's)
        case PiecewiseLinear() if vjp:
            jvp = diagonal_jvp(*vjp)
        case NoDerivative():
            vjp_all = _no_derivative(name)
            node_name = node_name or "torch::autograd::NotImplemented"
    declared = Primitive(
        name=name,
        overload=overload,
        forward=forward,
        vjp=vjp,
        vjp_all=vjp_all,
        kind=kind,
        saves=saves,
        node_name=node_name or f"{name.capitalize()}Backward0",
        jvp=jvp,
        dtype_rule=dtype_rule,
        broadcast=broadcast,
        scalars=scalars,
        num_outputs=num_outputs,
        view=view,
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
    view=False,
):
    """A linear op that reads part of its input (select, gather ...) and its adjoint, which
    writes a gradient into zeros of the input's shape (select_backward, scatter_add ...): each
    is the other's VJP, so gradients of every order alternate between the two.

    ``forward(x, **params)`` and ``adjoint_forward(grad, shape=x's shape, **params)`` take the
    same parameters. Returns the two ops.
    """

    def op_vjp(grad, x, *, result, **params):
        return adjoint(grad, shape=x._data.shape, **params)

    def adjoint_vjp(grad, g, *, result, shape, **params):
        return op(grad, **params)

    op = primitive(
        name,
        forward,
        op_vjp,
        kind=Linear(),
        overload=overload,
        node_name=node_name,
        dtype_rule="keep",
        view=view,
    )
    adjoint = primitive(
        adjoint_name,
        adjoint_forward,
        adjoint_vjp,
        kind=Linear(),
        node_name=adjoint_node_name,
        dtype_rule="keep",
    )
    return op, adjoint


def with_outputs(op, num_outputs: int, saves: tuple):
    """``op`` for a forward that returns ``num_outputs`` arrays (split into n pieces ...): the
    same declaration, not registered again."""
    return _build(replace(op.primitive, num_outputs=num_outputs, saves=saves))


def _build(prim: Primitive):
    """The callable op for a checked declaration."""
    name, forward, vjp, vjp_all = prim.name, prim.forward, prim.vjp, prim.vjp_all
    broadcast, scalars, view = prim.broadcast, prim.scalars, prim.view
    num_outputs = prim.num_outputs
    node_name, dtype_rule = prim.node_name, prim.dtype_rule
    differentiable = prim.differentiable
    linear = prim.linear
    backward = _make_backward(vjp, vjp_all, broadcast, num_outputs) if differentiable else None
    keep_result = "result" in prim.saves
    float_only = dtype_rule == "float"
    promote = dtype_rule in ("promote", "float")

    def op(*args, **params):
        if _VMAP_LEVELS:
            for a in args:
                if type(a) is BatchedTensor:
                    return batch_call(op, args, params)
        if params and "out" in params:  # out=: written into a given tensor, not recorded
            out = params.pop("out")
            if out is not None:
                return with_out(name, lambda: op(*args, **params), args, out)
        needs_grad = False
        for a in args:
            if not (type(a) is Tensor or isinstance(a, Tensor)):
                _check_args(name, args, scalars)
            elif a._requires_grad:
                needs_grad = True
        if promote:
            arrays = _promote(args, float_only)
        else:
            arrays = [a._data if (type(a) is Tensor or isinstance(a, Tensor)) else a for a in args]
        try:
            out = _quietly(forward, arrays, params)
        except ValueError as exc:
            if not broadcast:
                raise
            raise _broadcast_error(name, args) from exc
        record = differentiable and needs_grad and _state.enabled
        if num_outputs == 1:
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            # Only floating results can require grad (e.g. a cast to int leaves the graph).
            record = record and out.dtype.kind == "f"
            result = _wrap(out, record)
            if needs_grad and not _state.enabled:
                result._provenance = "no_grad"  # read by autograd.explain
            if _state.inference:
                result._is_inference = True
        else:
            out = tuple(o if type(o) is np.ndarray else np.asarray(o) for o in out)
            result = tuple(_wrap(o, record and o.dtype.kind == "f") for o in out)
        if record:
            if not linear:
                _refuse_saving_inference_tensors(name, args)
            node = OpNode(
                node_name,
                backward,
                tuple(
                    [
                        gradient_edge(a)
                        if (type(a) is Tensor or isinstance(a, Tensor))
                        else _NO_EDGE
                        for a in args
                    ]
                ),
                args,
                params,
                # A linear op's rules read only its inputs' shapes: changing their values
                # in place later does not invalidate its backward (as in PyTorch).
                track=not linear,
            )
            if _anomaly.enabled:
                _record_creation(node)
            if num_outputs == 1:
                result.grad_fn = node
            else:
                node.num_outputs = num_outputs
                for i, r in enumerate(result):
                    if r._requires_grad:  # integer outputs (indices) stay leaves
                        r.grad_fn = node
                        r._output_nr = i
            if keep_result:
                node.save_result(out, result if num_outputs == 1 else result[0])
        if view:
            _mark_views(op, args, params, arrays[0], result)
        if _forward.levels and differentiable:
            _push_tangents(op, jvp_rule, args, params, result, num_outputs)
        if _jet_state.mode is not None and differentiable:
            _jets.push(op, args, params, result)
        return result

    op.__name__ = op.__qualname__ = name
    if type(prim.kind) is Bilinear:
        prim = replace(prim, jvp=product_rule(op))  # the op's own product rule
    op.primitive = prim
    jvp_rule = prim.jvp
    return op


def _refuse_saving_inference_tensors(name, args) -> None:
    for a in args:
        if (type(a) is Tensor or isinstance(a, Tensor)) and a._is_inference:
            raise RuntimeError(
                f"{name}: inference tensors (made under inference_mode) cannot be saved for "
                "backward; make a normal tensor with .clone() outside inference mode first"
            )


def _mark_views(op, args, params, source, result) -> None:
    """Make each result that aliases ``args[0]`` a view: shared counter, base, view_fn."""
    parent = args[0]
    base = parent._base if parent._base is not None else parent
    parent_fn = parent._view_fn
    rest = args[1:]
    for i, r in enumerate(result if type(result) is tuple else (result,)):
        if not np.may_share_memory(r._data, source):
            continue
        r._base = base
        r._version_counter = parent._shared_version_counter()
        if parent._is_inference:
            r._is_inference = True
        if parent._requires_grad and r.grad_fn is None and r._data.dtype.kind == "f":
            # PyTorch: a view made in no-grad mode still reports requires_grad=True, but
            # gradients reaching it go nowhere (it has no valid accumulator).
            r._requires_grad = True
            r._accumulator = NO_GRAD_VIEW
        if type(result) is tuple:

            def fn(t, i=i):
                return op(t, *rest, **params)[i]
        else:

            def fn(t):
                return op(t, *rest, **params)

        r._view_fn = fn if parent_fn is None else _compose(parent_fn, fn)


def _compose(inner, outer):
    return lambda t: outer(inner(t))


def unary(name: str, forward, *, d1, d2=None, dtype_rule="float", **declaration):
    """An elementwise op of one tensor whose rules follow from its derivatives:
    ``primitive(name, forward, kind=Unary(d1, d2))``, saving the result when ``d1`` reads it.

    ``d1(x, result)`` (and ``d2`` for Taylor mode) are written in leafgrad ops.
    """
    kind = Unary(d1, d2)
    saves = ("result",) if kind.d1_takes_result else ()
    return primitive(name, forward, kind=kind, saves=saves, dtype_rule=dtype_rule, **declaration)


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


def _no_derivative(name):
    def vjp_all(grad, *args, **params):
        raise RuntimeError(f"the derivative for '{name}' is not implemented (nor is it in PyTorch)")

    return vjp_all
