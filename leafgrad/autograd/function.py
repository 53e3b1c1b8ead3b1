"""``autograd.Function``: user-defined ops with their own forward and backward.

``forward`` runs on tensors with grad mode off; ``backward`` receives one gradient per output
and returns one per input. Written in leafgrad ops, a backward is itself differentiable
under ``create_graph=True``; ``once_differentiable`` marks one that is not.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from .._engine import grad_mode
from .._engine.graph import Node, gradient_edge
from .._engine.saved import SavedTensors
from .._tensor import Tensor, _wrap

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
        self.needs_input_grad = ()

    def name(self) -> str:
        return f"{self._cls.__name__}Backward"

    @property
    def saved_tensors(self) -> tuple:
        return tuple(self._saved.unpack(self.name()))

    saved_variables = saved_tensors

    def release(self) -> None:
        self._saved.release(self.name())

    def _save(self, tensors: tuple) -> None:
        """Keep what ``save_for_backward`` chose, at the versions the tensors have now."""
        self._saved = SavedTensors(tensors, from_ctx=True)

    def apply(self, grads: list, needs: list) -> list:
        self._saved.check_not_released(self.name())
        if self._materialize_grads:
            grads = [
                g if g is not None else _wrap(np.zeros(shape, dtype))
                for g, (shape, dtype) in zip(grads, self._output_meta)
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
        if not isinstance(grad, Tensor):
            raise TypeError(
                f"function {self.name()} returned {type(grad).__name__} as gradient {i}; "
                "expected a Tensor or None"
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
            from ..ops.shape import sum_to

            grad = sum_to(grad, shape)
        if grad._data.dtype != dtype:
            grad = grad.to(_dtype_of(dtype))
        return grad


def _dtype_of(np_dtype):
    from .._dtype import from_numpy_dtype

    return from_numpy_dtype(np_dtype)


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
    def setup_context(ctx, inputs, output):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        record = grad_mode.is_grad_enabled() and any(t._requires_grad for t in tensor_args)
        edges = tuple(gradient_edge(a) if isinstance(a, Tensor) else _NO_EDGE for a in args)
        node = BackwardCFunction(
            cls, tuple(e for a, e in zip(args, edges) if isinstance(a, Tensor))
        )
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        node._input_meta = tuple(
            (a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None for a in args
        )
        custom_setup = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad():
            if custom_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        wrapped = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                wrapped.append(o)
                continue
            differentiable = (
                record and id(o) not in node._non_differentiable and o._data.dtype.kind == "f"
            )
            if id(o) in node._dirty:
                o._bump_version()
                out = o
            elif any(o is a for a in tensor_args) or o.grad_fn is not None or o._requires_grad:
                # A fresh tensor: never hand back an input (or a graph tensor) with new history.
                out = _wrap(o._data)
                out._version_counter = o._shared_version_counter()
            else:
                out = o
            if differentiable:
                out.grad_fn = node
                out._output_nr = i
                out._requires_grad = True
            wrapped.append(out)
        node.num_outputs = len(outs)
        node._output_meta = tuple(
            (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float64)
            for o in outs
        )
        node._save(tuple(_saved_output(t, outs, wrapped) for t in node._to_save))
        return tuple(wrapped) if is_tuple else wrapped[0]


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
        guarded = tuple(
            _DelayedError.apply(r, *[g for g in grads if isinstance(g, Tensor)])
            if isinstance(r, Tensor)
            else r
            for r in results
        )
        return guarded[0] if single else guarded

    return wrapper


class _DelayedError(Function):
    @staticmethod
    def forward(ctx, value, *grads):
        return value.clone()

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )
