"""Declaring a primitive: forward on arrays, derivative rules on Tensors, in one place.

``primitive`` turns a NumPy forward and per-input VJP rules into a leafgrad op that
promotes dtypes, wraps the result and records an ``OpNode`` when a graph is wanted. Rules
are written with leafgrad ops, so the backward is itself differentiable.

Rule signature: ``rule(grad, *inputs, result, **params)`` for each differentiable input;
``inputs`` are exactly what the op was called with (Tensors or Python scalars).
"""

from __future__ import annotations

import dis
import inspect

import numpy as np

from .. import _dtype
from .._dtype import result_type
from .._engine import grad_mode
from .._engine.anomaly import record_creation as _record_creation
from .._engine.anomaly import state as _anomaly
from .._engine.forward import jet_state as _jet_state
from .._engine.forward import state as _forward_state
from .._engine.graph import NO_GRAD_VIEW, OpNode, gradient_edge
from .._tensor import Tensor, _wrap
from ._tangents import _elementwise_jvp, _linear_jvp, _push_tangents, _zeros_like_data

_state = grad_mode._state
_forward = _forward_state  # active dual levels

# NumPy warns on log(0), 1/0 and the like; PyTorch returns inf/nan silently. Entering
# np.errstate costs ~1.5 us per op, so we set its context variable directly when this NumPy
# exposes it (a private name, hence the fallback).
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _errstate_var

    with np.errstate(all="ignore"):
        _QUIET = _errstate_var.get()

    def _quietly(forward, arrays, params):
        token = _errstate_var.set(_QUIET)
        try:
            return forward(*arrays, **params)
        finally:
            _errstate_var.reset(token)

except ImportError:  # pragma: no cover - other NumPy layouts

    def _quietly(forward, arrays, params):
        with np.errstate(all="ignore"):
            return forward(*arrays, **params)


_REGISTRY: dict = {}  # name -> Primitive; the op-table guard tests read this
_NO_EDGE = (None, 0)


class Primitive:
    """What ``primitive`` declared: kept for introspection (tests, Taylor mode, docs)."""

    def __init__(self, name, forward, vjp, node_name, jvp, dtype_rule, broadcast, extra):
        self.name = name
        self.forward = forward
        self.vjp = vjp
        self.node_name = node_name
        self.jvp = jvp
        self.dtype_rule = dtype_rule
        self.broadcast = broadcast
        self.__dict__.update(extra)


def _reads(rule, name: str) -> bool:
    """Whether ``rule``'s code reads the parameter ``name`` (not just declares it)."""
    if name not in inspect.signature(rule).parameters:
        return False
    code = getattr(rule, "__code__", None)
    if code is None:
        return True
    for ins in dis.get_instructions(code):
        if ins.opname.startswith("LOAD") and (
            ins.argval == name or (isinstance(ins.argval, tuple) and name in ins.argval)
        ):
            return True
    return name in code.co_cellvars  # captured by an inner function


def _wants_result(rules) -> bool:
    """Save the output only for rules that read it: most do not, and it costs memory."""
    return any(rule is not None and _reads(rule, "result") for rule in rules)


def _sum_to(grad, shape):
    from .shape import sum_to

    return sum_to(grad, shape)


def _fit(grad, inp, broadcast):
    """Undo broadcasting and promotion so ``grad`` matches the input it belongs to."""
    if broadcast and grad._data.shape != inp._data.shape:
        grad = _sum_to(grad, inp._data.shape)
    if grad._data.dtype != inp._data.dtype:
        grad = grad.to(_dtype.from_numpy_dtype(inp._data.dtype))
    return grad


def _make_backward(vjp, vjp_all, broadcast, num_outputs):
    if vjp_all is not None:

        def backward(grads, args, result, params, needs):
            grad = grads[0] if num_outputs == 1 else _materialize(grads, result)
            outs = vjp_all(grad, args, result, needs, **params)
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


def _promote(args, float_only):
    """The arrays (or Python scalars) to hand the forward, cast to the result dtype."""
    # Fast path: the common case of tensors sharing one dtype (and float scalars with them).
    first = None
    for a in args:
        if type(a) is Tensor or isinstance(a, Tensor):
            d = a._data.dtype
            if first is None:
                first = d
            elif d != first:
                break
        elif type(a) is not float:
            break
    else:
        if first is not None and first.kind == "f":
            return [a._data if (type(a) is Tensor or isinstance(a, Tensor)) else a for a in args]
    dt = result_type(*args)
    if float_only and not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    target = dt.np
    arrays = []
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            arrays.append(d if d.dtype == target else d.astype(target))
        else:
            arrays.append(a)
    return arrays


def _broadcast_error(name, args) -> RuntimeError:
    shapes = [list(a._data.shape) if isinstance(a, Tensor) else "scalar" for a in args]
    return RuntimeError(
        f"{name}: shapes {shapes} cannot be broadcast together; aligned from the right, each "
        "pair of sizes must be equal or one of them 1. Reshape or unsqueeze an operand."
    )


def _check_args(name, args, allow_scalars):
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            if allow_scalars and isinstance(a, (int, float, bool, np.number)):
                continue
            expected = "a Tensor or a Python number" if allow_scalars else "a Tensor"
            raise TypeError(f"{name}(): argument {i} must be {expected}, not {type(a).__name__}")


def primitive(
    name: str,
    forward,
    vjp=(),
    *,
    vjp_all=None,
    node_name: str | None = None,
    jvp=None,
    dtype_rule: str = "promote",
    broadcast: bool = False,
    differentiable: bool = True,
    num_outputs: int = 1,
    scalars: bool = False,
    save_result: bool | None = None,
    view: bool = False,
    linear: bool = False,
    affine: bool = False,
    elementwise: bool = False,
    **extra,
):
    """Declare an op; returns the callable ``op(*inputs, **params)``.

    ``dtype_rule``: "promote" (PyTorch promotion, arrays cast to the result dtype), "float"
    (as promote, then integers become the default float), or "keep" (arrays passed as they
    are; the forward decides). ``broadcast``: grads are summed back to input shapes.
    ``scalars``: Python numbers are accepted as inputs. ``differentiable=False``: results
    never require grad (comparisons, indices, rounding done without a rule). ``view``: when
    the forward returns a NumPy view of the first input, the result is a leafgrad view of it
    (shares its version counter; in-place writes through it rebase the base's history).
    Forward mode: ``jvp(*tangents, *inputs, result, **params)`` gives the output tangent
    (None for inputs without one); ``linear=True`` ops apply themselves to the tangents;
    ``elementwise=True`` ops (diagonal Jacobians) reuse their VJP rules as JVP rules;
    ``affine=True`` marks a linear op whose Python-number operands are constants (``x + 2``).
    Taylor mode (``ops._jets``) also reads ``piecewise_linear``, ``bilinear``, ``taylor_as``
    and ``d1``/``d2`` from ``extra``.
    """
    if not isinstance(vjp, tuple):
        vjp = (vjp,)
    node_name = node_name or f"{name.capitalize()}Backward0"
    linear = linear or affine
    jvp_rule = _linear_jvp if linear else jvp
    if elementwise and jvp is None:
        jvp_rule = _elementwise_jvp(vjp)
    backward = _make_backward(vjp, vjp_all, broadcast, num_outputs)
    if save_result is None:
        save_result = _wants_result(vjp) or (vjp_all is not None and _wants_result((vjp_all,)))
    keep_result = save_result
    float_only = dtype_rule == "float"
    promote = dtype_rule in ("promote", "float")

    def op(*args, **params):
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
            from . import _jets  # needs the ops defined with this machinery

            _jets.push(op, args, params, result)
        return result

    op.__name__ = op.__qualname__ = name
    extra["differentiable"] = differentiable
    extra["linear"] = linear
    extra["affine"] = affine
    extra["elementwise"] = elementwise
    op.primitive = Primitive(
        name, forward, vjp or vjp_all, node_name, jvp, dtype_rule, broadcast, extra
    )
    _REGISTRY[name] = op.primitive
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


def unary(name: str, forward, *, d1, d2=None, node_name=None, dtype_rule="float", **extra):
    """An elementwise op of one tensor whose rules follow from its derivatives.

    ``d1(x, result)`` (and ``d2`` for Taylor mode) are written in leafgrad ops.
    """
    wants = _wants_result((d1,))
    if wants:

        def vjp(grad, x, result, **params):
            return grad * d1(x, result=result, **params)
    else:

        def vjp(grad, x, result, **params):
            return grad * d1(x, **params)

    if wants:

        def jvp(t, x, result, **params):
            return t * d1(x, result=result, **params)
    else:

        def jvp(t, x, result, **params):
            return t * d1(x, **params)

    return primitive(
        name,
        forward,
        (vjp,),
        jvp=jvp,
        node_name=node_name,
        dtype_rule=dtype_rule,
        save_result=wants,
        d1=d1,
        d2=d2,
        **extra,
    )
