"""``autograd.Function``: user-defined ops with their own forward and backward.

``forward`` runs on tensors with grad mode off; ``backward`` receives one gradient per output
and returns one per input. Written in leafgrad ops, a backward is itself differentiable
under ``create_graph=True``; ``once_differentiable`` marks one that is not.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from .._dtype import from_numpy_dtype
from .._engine import forward as _forward
from .._engine import grad_mode
from .._engine.graph import NO_GRAD_VIEW, Node, gradient_edge
from .._engine.saved import SavedTensors
from .._tensor import Tensor, _wrap
from .._warn import warn_at_user
from ..ops._primitive import register_view
from ..ops.broadcast import sum_to
from ..ops.inplace import apply_inplace

_NO_EDGE = (None, 0)


class FunctionCtx:
    """What ``forward`` may record for ``backward`` (``ctx``)."""

    def save_for_backward(self, *tensors) -> None:
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save tensors (or None), but argument {i} is "
                    f"{type(t).__name__}; keep other values as attributes of ctx"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Keep tensors for ``jvp`` (read there through ``ctx.saved_tensors``)."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_forward can only save tensors (or None), but argument {i} is "
                    f"{type(t).__name__}; keep other values as attributes of ctx"
                )
        self._to_save_forward = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = {id(t) for t in tensors}

    def mark_dirty(self, *tensors) -> None:
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize_grads = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The grad_fn of a custom Function's outputs; also the ``ctx`` its methods see."""

    _runs_without_grads = True  # backward is called with zeros (or None) as in PyTorch

    def __init__(self, cls, next_functions) -> None:
        Node.__init__(self, next_functions)
        self._cls = cls
        self._to_save = ()
        self._saved = SavedTensors((), from_ctx=True)
        self._non_differentiable = set()
        self._dirty = set()
        self._materialize_grads = True
        self._input_meta = ()
        self._output_meta = ()
        self._to_save_forward = None
        self._saved_forward = None  # while jvp runs: what save_for_forward kept
        self.needs_input_grad = ()

    def name(self) -> str:
        return f"{self._cls.__name__}Backward"

    @property
    def saved_tensors(self) -> tuple:
        if self._saved_forward is not None:
            return self._saved_forward
        return tuple(self._saved.unpack(self.name()))

    @property
    def saved_variables(self) -> tuple:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, 2)
        return self.saved_tensors

    def release(self) -> None:
        self._saved.release(self.name())

    def _save(self, tensors: tuple) -> None:
        """Keep what ``save_for_backward`` chose, at the versions the tensors have now."""
        self._saved = SavedTensors(tensors, from_ctx=True)

    def apply(self, grads: list, needs: list) -> list:
        self._saved.check_not_released(self.name())
        if self._materialize_grads:
            # Outputs that are not tensors get None, never zeros (as in PyTorch).
            grads = [
                g if g is not None or meta is None else _wrap(np.zeros(*meta))
                for g, meta in zip(grads, self._output_meta)
            ]
        result = self._cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_inputs = len(self._input_meta)
        if len(result) != n_inputs:
            # Trailing Nones beyond the inputs are tolerated, as in PyTorch.
            if len(result) > n_inputs and all(g is None for g in result[n_inputs:]):
                result = result[:n_inputs]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n_inputs}, got {len(result)})"
                )
        # One gradient per tensor input: next_functions has no entry for other arguments.
        return [self._fit(i, g) for i, g in enumerate(result) if self._input_meta[i] is not None]

    def _fit(self, i: int, grad):
        meta = self._input_meta[i]
        if grad is None:
            return None
        if not isinstance(grad, Tensor):  # PyTorch's words, then which function and output
            raise RuntimeError(
                f"expected Variable or None (got {type(grad).__name__}): {self.name()} returned "
                f"it as gradient {i}"
            )
        shape, dtype = meta
        if grad._data.shape != shape:
            try:
                expandable = np.broadcast_shapes(shape, grad._data.shape) == grad._data.shape
            except ValueError:
                expandable = False
            if not expandable:
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(grad._data.shape)} but expected shape compatible with {list(shape)}"
                )
            grad = sum_to(grad, shape)
        if grad._data.dtype != dtype:
            grad = grad.to(from_numpy_dtype(dtype))
        return grad


class _FunctionMeta(type):
    def __call__(cls, *args, **kwargs):
        warnings.warn(
            f"{cls.__name__} should not be instantiated: its methods are static; call "
            f"{cls.__name__}.apply(...) instead",
            DeprecationWarning,
            stacklevel=2,
        )
        return super().__call__(*args, **kwargs)


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call ``apply``.

    Alternatively ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must implement forward")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "a Function subclass must implement backward to be differentiated"
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "a Function subclass must implement jvp (and keep what it needs with "
            "ctx.save_for_forward) to be used with forward-mode AD"
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Make "
            f"forward and backward of {type(self).__name__} static methods (forward(ctx, ...), "
            f"backward(ctx, ...)) and call {type(self).__name__}.apply(...)."
        )

    @classmethod
    def _backward_class(cls) -> type:
        """The class of this Function's nodes, ``<Name>Backward`` (made once per Function)."""
        node_cls = cls.__dict__.get("_backward_cls")
        if node_cls is None:
            node_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,), {})
            cls._backward_cls = node_cls
        return node_cls

    @classmethod
    def apply(cls, *args, **kwargs):
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        record = grad_mode.is_grad_enabled() and any(t._requires_grad for t in tensor_args)
        edges = tuple(gradient_edge(a) if isinstance(a, Tensor) else _NO_EDGE for a in args)
        node = cls._backward_class()(
            cls, tuple(e for a, e in zip(args, edges) if isinstance(a, Tensor))
        )
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        node._input_meta = tuple(
            (a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None for a in args
        )
        # Forward mode: the dual levels at which an input has a tangent; jvp gives the
        # outputs theirs, so forward itself runs without forward mode (as in PyTorch).
        levels = [
            level
            for level in _forward.state.levels
            if any(_forward.tangent_of(a, level) is not None for a in tensor_args)
        ]
        custom_setup = cls.setup_context is not Function.setup_context
        active_levels = _forward.state.levels
        _forward.state.levels = []
        try:
            with grad_mode.no_grad():
                if custom_setup:
                    outputs = cls.forward(*args, **kwargs)
                    cls.setup_context(node, args, outputs)
                else:
                    outputs = cls.forward(node, *args, **kwargs)
        finally:
            _forward.state.levels = active_levels
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        if node._dirty - {id(o) for o in outs}:
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                f"Function: {cls.__name__}.forward must return every tensor it passes to "
                "ctx.mark_dirty()."
            )
        if node._dirty - {id(t) for t in tensor_args}:
            warn_at_user(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                f"that have been mutated should be passed to ctx.mark_dirty() ({cls.__name__}); "
                "a tensor made inside forward needs no marking."
            )
        wrapped = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                wrapped.append(o)
                continue
            differentiable = (
                record and id(o) not in node._non_differentiable and o._data.dtype.kind == "f"
            )
            if id(o) in node._dirty:
                if differentiable and o._base is not None and len(outs) > 1:
                    raise RuntimeError(_DIRTY_VIEW_MESSAGE.format(name=cls.__name__))
                wrapped.append(_dirty_output(node, o, i, differentiable))
                continue
            source = _aliased_input(o, tensor_args)
            if any(o is w for w in wrapped):
                # A tensor made in forward returned twice: one object, numbered by its last
                # place, as in PyTorch (the earlier output then gets no gradient).
                out = o
            elif source is not None or o.grad_fn is not None or o._requires_grad:
                # A fresh tensor: never hand back an input (or a graph tensor) with new history.
                out = _wrap(o._data)
                out._version_counter = o._shared_version_counter()
                # PyTorch hands back an input requiring grad that is returned as is, but not
                # differentiated through, as a detached alias (not a view).
                if source is not None and not (
                    o is source and o._requires_grad and not differentiable
                ):
                    _make_custom_view(out, source, cls.__name__, i)
            else:
                out = o
            if differentiable:
                out.grad_fn = node
                out._output_nr = i
                out._requires_grad = True
            wrapped.append(out)
        node.num_outputs = len(outs)
        node._output_meta = tuple(
            (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in outs
        )
        node._save(tuple(_saved_output(t, outs, wrapped) for t in node._to_save))
        if levels:
            _push_tangents(cls, node, args, outs, wrapped, levels)
        return tuple(wrapped) if is_tuple else wrapped[0]


def _aliased_input(output: Tensor, inputs: list):
    """The input whose memory ``output`` shares (an input returned as is, or a view of one)."""
    for a in inputs:
        if output is a or np.may_share_memory(output._data, a._data):
            return a
    return None


_CUSTOM_VIEW_MESSAGE = (
    "Output {i} of {name} is a view and is being modified inplace. This view was created "
    "inside a custom Function (or because an input was returned as-is), whose backward the "
    "view/in-place machinery would bypass, giving wrong gradients, so this is forbidden. "
    "Return a clone() from forward (or modify a clone of the output) instead."
)


_DIRTY_VIEW_MESSAGE = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. {name} does both: pass a clone() of the "
    "input (so it is not a view), or split the Function in two, one doing the in-place change "
    "and returning that tensor alone, one doing the rest."
)


class _RefuseInplace:
    """The view function of a custom Function's view output: an in-place change of it (or
    of a view of it) is refused, as PyTorch refuses it."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __call__(self, base):
        raise RuntimeError(self.message)


def _make_custom_view(out: Tensor, source: Tensor, name: str, i: int) -> None:
    """``out`` becomes a view of ``source`` that PyTorch refuses to modify in place, or to
    give a new history when its base changes (ops/view_history.py reads ``_view_meta``)."""
    out._base = source._base if source._base is not None else source
    counter = source._shared_version_counter()
    out._version_counter = counter
    out._view_fn = _RefuseInplace(_CUSTOM_VIEW_MESSAGE.format(i=i, name=name))
    out._view_meta = ("custom_function", name, i)
    if source._requires_grad and out._data.dtype.kind == "f":
        # As any view of a tensor requiring grad (even one made in no-grad mode).
        out._requires_grad = True
        out._accumulator = NO_GRAD_VIEW
    register_view(counter, out)


def _dirty_output(node: BackwardCFunction, o: Tensor, i: int, differentiable: bool) -> Tensor:
    """An input ``forward`` modified in place (``ctx.mark_dirty``): its history now ends in
    ``node``; for a view, the base is rebased on it (CopySlices), as for in-place ops."""
    if not differentiable:
        o._bump_version()
        return o
    base = o._base
    leaf = o if base is None else base
    if leaf.grad_fn is None and leaf._requires_grad:
        what = "a leaf Tensor" if base is None else "a view of a leaf Tensor"
        raise RuntimeError(
            f"{node.name()}: {what} that requires grad was modified in place by the Function "
            "(ctx.mark_dirty); pass a clone() of it, or call the Function under no_grad()"
        )
    new = _wrap(o._data, True)
    new.grad_fn = node
    new._output_nr = i
    return apply_inplace(o, new, node.name())


def _push_tangents(cls, node, args, outs, wrapped, levels) -> None:
    """Forward mode: ``cls.jvp(ctx, *input_tangents)`` gives the outputs' tangents."""
    if cls.jvp is Function.jvp:
        raise NotImplementedError(
            f"{cls.__name__} has no jvp staticmethod: implement jvp(ctx, *input_tangents) "
            "(with ctx.save_for_forward for what it needs) to use it with forward-mode AD"
        )
    to_save = node._to_save_forward or ()
    node._saved_forward = tuple(_saved_output(t, outs, wrapped) for t in to_save)
    try:
        for level in levels:
            tangents = []
            for a in args:
                t = _forward.tangent_of(a, level) if isinstance(a, Tensor) else None
                if t is None and isinstance(a, Tensor) and node._materialize_grads:
                    t = _wrap(np.zeros(a._data.shape, a._data.dtype))
                tangents.append(t)
            with _forward.suspended(level):
                result = cls.jvp(node, *tangents)
            results = result if isinstance(result, tuple) else (result,)
            if len(results) != len(outs):
                raise RuntimeError(
                    f"{cls.__name__}.jvp returned {len(results)} tangent(s); expected one per "
                    f"output of forward ({len(outs)})"
                )
            for out, t in zip(wrapped, results):
                if isinstance(out, Tensor) and t is not None and out._data.dtype.kind == "f":
                    if not isinstance(t, Tensor) or t._data.shape != out._data.shape:
                        raise RuntimeError(
                            f"{cls.__name__}.jvp must return a Tensor of the output's shape "
                            f"{list(out._data.shape)} (or None) per output"
                        )
                    _forward.set_tangent(out, level, t)
    finally:
        node._saved_forward = None


def _saved_output(t, outs, wrapped):
    """save_for_backward(output) must save the returned tensor, which carries the history."""
    for o, w in zip(outs, wrapped):
        if t is o:
            return w
    return t


def once_differentiable(backward):
    """Decorate a backward that cannot itself be differentiated.

    It runs without recording; under ``create_graph=True`` differentiating its result again
    raises a RuntimeError.
    """

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        create_graph = grad_mode.is_grad_enabled()
        with grad_mode.no_grad():
            result = backward(ctx, *grads)
        if not create_graph or not any(isinstance(g, Tensor) and g._requires_grad for g in grads):
            return result
        single = not isinstance(result, tuple)
        results = (result,) if single else result
        # As PyTorch: one Error node takes every result, each as a new leaf that requires
        # grad, so the node is recorded; differentiating through it raises.
        leaves = tuple(_fake_leaf(r) for r in results)
        guarded = _DelayedError.apply(*leaves)
        node = next((g.grad_fn for g in guarded if isinstance(g, Tensor)), None)
        if node is not None:  # unlike a Function's node, it has an edge per result, even None
            node.next_functions = tuple(
                gradient_edge(r) if isinstance(r, Tensor) else (None, 0) for r in leaves
            )
        return guarded[0] if single else guarded

    return wrapper


class InplaceFunction(Function):
    """A Function that may work in place: ``InplaceFunction(inplace=True).inplace``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Refused on purpose: PyTorch's legacy base for Functions with nested inputs
    (``forward_extended``/``backward_extended``), kept there only for old code and failing
    when used in PyTorch 2.13 itself; leafgrad does not provide it."""

    _REFUSAL = (
        "NestedIOFunction is a legacy API (PyTorch keeps it for backward compatibility only, "
        "and it no longer runs there); leafgrad does not provide it: subclass "
        "autograd.Function with static forward/backward and call .apply instead"
    )

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(self._REFUSAL)

    @classmethod
    def apply(cls, *args, **kwargs):
        raise NotImplementedError(cls._REFUSAL)


def _fake_leaf(value):
    if isinstance(value, Tensor) and value._data.dtype.kind == "f":
        return value.detach().requires_grad_()
    return value


class _DelayedError(Function):
    @staticmethod
    def forward(ctx, *values):
        return tuple(v.clone() if isinstance(v, Tensor) else v for v in values)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


class _DelayedErrorNode(BackwardCFunction):
    def name(self) -> str:
        return "torch::autograd::Error"  # PyTorch's name for the node once_differentiable adds


# PyTorch's class is named Error (type(node).__name__, as graph descriptions print it).
_DelayedErrorNode.__name__ = _DelayedErrorNode.__qualname__ = "Error"
_DelayedErrorNode.__module__ = "builtins"  # a C++ class there: ``<Error object at 0x...>``
_DelayedError._backward_cls = _DelayedErrorNode
