"""Graph nodes (``grad_fn``): the rule to run, saved tensors and ``next_functions``.

Only the engine and the op machinery touch Node internals.
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _wrap

_sequence = itertools.count()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or to read saved tensors after "
    "they were freed). {op} released its saved tensors after the first backward() or "
    "autograd.grad(). Pass retain_graph=True to the first call if you need to go through "
    "the graph again."
)


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    _ids = itertools.count()

    def __init__(self, hooks: dict) -> None:
        self._hooks = hooks
        self.id = next(self._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class Node:
    """A node of the backward graph; ``apply`` maps output grads to input grads."""

    __slots__ = (
        "__weakref__",
        "_post_hooks",
        "_pre_hooks",
        "_retain_grad_hooks",
        "_tensor_pre_hooks",
        "metadata_",
        "next_functions",
        "sequence_nr",
    )

    def __init__(self, next_functions: tuple = ()) -> None:
        self.next_functions = next_functions
        self.sequence_nr = next(_sequence)
        self._tensor_pre_hooks = None  # output_nr -> {id: fn}; grads of one output tensor
        self._retain_grad_hooks = None  # output_nr -> fn; always run after tensor hooks
        self._pre_hooks = None  # {id: fn(grad_outputs) -> grad_outputs | None}
        self._post_hooks = None  # {id: fn(grad_inputs, grad_outputs) -> grad_inputs | None}
        self.metadata_ = None

    num_outputs = 1

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: list, needs: list) -> list:
        """Input grads, one per ``next_functions`` entry (None where not needed)."""
        raise NotImplementedError(f"{self.name()} has no backward rule")

    def release(self) -> None:
        """Drop saved tensors once backward is done with them."""

    @property
    def metadata(self) -> dict:
        if self.metadata_ is None:
            self.metadata_ = {}
        return self.metadata_

    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        handle = RemovableHandle(self._post_hooks)
        self._post_hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = fn
        return handle

    def _add_tensor_pre_hook(self, output_nr: int, fn) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.setdefault(output_nr, {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming grads into ``variable.grad``.

    The leaf owns its accumulator and the accumulator refers back weakly, so there is no
    reference cycle: a leaf nobody holds any more has no ``.grad`` anyone could read.
    """

    __slots__ = ("_variable",)

    def __init__(self, variable) -> None:
        super().__init__(())
        self._variable = weakref.ref(variable)

    @property
    def variable(self):
        return self._variable()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"


# The accumulator of a view made in no-grad mode of a tensor that requires grad: none that
# works, so gradients reaching such a view are dropped (as in PyTorch).
NO_GRAD_VIEW = object()


def gradient_edge(tensor) -> tuple:
    """``(node, output_nr)`` where a gradient for ``tensor`` enters the graph."""
    fn = tensor.grad_fn
    if fn is not None:
        return (fn, tensor._output_nr)
    if tensor._requires_grad:
        node = tensor._accumulator
        if node is None:
            node = tensor._accumulator = AccumulateGrad(tensor)
        elif node is NO_GRAD_VIEW:
            return (None, 0)
        return (node, 0)
    return (None, 0)


def _versions(args) -> tuple:
    return tuple(
        a._version_counter[0]
        if (type(a) is Tensor or isinstance(a, Tensor)) and a._version_counter is not None
        else 0
        for a in args
    )


class OpNode(Node):
    """The grad_fn of a primitive op: its saved inputs, result and backward rule.

    ``backward(grads, args, result, params, needs)`` returns one gradient per entry of
    ``next_functions``; it is supplied by ``ops._primitive`` so the engine stays op-agnostic.
    """

    __slots__ = (
        "_args",
        "_backward",
        "_name",
        "_params",
        "_result",
        "_result_tangents",
        "_result_version",
        "_saved_versions",
        "num_outputs",
    )

    def __init__(
        self, name, backward, next_functions, args, params, result_data, num_outputs=1, track=True
    ):
        # Node.__init__ inlined: one node per recorded op, so this is a hot path.
        self.next_functions = next_functions
        self.sequence_nr = next(_sequence)
        self._tensor_pre_hooks = self._retain_grad_hooks = None
        self._pre_hooks = self._post_hooks = self.metadata_ = None
        self._name = name
        self._backward = backward
        self._args = args
        self._params = params
        self._result = result_data  # arrays only: a Tensor here would be a reference cycle
        self.num_outputs = num_outputs
        # Versions of the saved inputs, checked before the rule runs; ``track=False`` for ops
        # whose rules read only shapes (linear ops).
        self._saved_versions = _versions(args) if track else ()
        self._result_version = None  # (counter, version) of a saved output, set by the op
        self._result_tangents = None  # forward mode: the saved output's tangents

    def name(self) -> str:
        return self._name

    def _check_versions(self) -> None:
        """RuntimeError if a saved input or output was modified in place since the forward."""
        pairs = [
            (a._version_counter[0], v)
            for a, v in zip(self._args, self._saved_versions)
            if (type(a) is Tensor or isinstance(a, Tensor)) and a._version_counter is not None
        ]
        if self._result_version is not None:
            counter, version = self._result_version
            pairs.append((counter[0], version))
        for now, then in pairs:
            if now != then:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: a tensor saved by {self._name} is at version "
                    f"{now}; expected version {then} instead. Clone it before modifying "
                    "it in place, or modify a copy."
                )

    def saved_result(self):
        """The op's output(s) as tensors whose grad_fn is this node (for higher order)."""
        data = self._result
        if data is None:
            return None
        if self.num_outputs == 1:
            out = _wrap(data, True)
            out.grad_fn = self
            if self._result_tangents:
                out._tangents = dict(self._result_tangents)
            return out
        outs = []
        for i, d in enumerate(data):
            t = _wrap(d, d.dtype.kind == "f")
            if t._requires_grad:
                t.grad_fn = self
                t._output_nr = i
            outs.append(t)
        return tuple(outs)

    def apply(self, grads: list, needs: list) -> list:
        args = self._args
        if type(args) is _ReleasedArgs:
            args = tuple(args)  # stand-ins that know shapes only
        else:
            self._check_versions()
        return self._backward(grads, args, self.saved_result(), self._params, needs)

    def release(self) -> None:
        """Drop the saved values, keeping only shapes and dtypes (see ``_FreedArray``)."""
        if type(self._args) is _ReleasedArgs:
            return
        op = self._name
        self._args = _ReleasedArgs(self._args, op)
        params = self._params
        if params and any(_holds_array(v) for v in params.values()):
            # Index arrays are saved values too (gather, index_select, advanced indexing).
            self._params = {k: _release_param(v, op) for k, v in params.items()}
        result = self._result
        if type(result) is tuple:
            self._result = tuple(_FreedArray(r.shape, r.dtype, op) for r in result)
        elif result is not None:
            self._result = _FreedArray(result.shape, result.dtype, op)
        self._result_version = None

    @property
    def _saved_tensors_freed(self) -> bool:
        return type(self._args) is _ReleasedArgs


class _ReleasedArgs:
    """The arguments of a released node: stand-ins that know only shapes and dtypes.

    Release happens for every node of every backward, so it only notes shapes and dtypes;
    the stand-ins are built when something reads them (a second backward, explain, viz).
    """

    __slots__ = ("_metas", "_op", "_stand_ins")

    def __init__(self, args: tuple, op: str) -> None:
        self._metas = [
            (True, a._data.shape, a._data.dtype, a._requires_grad)
            if (type(a) is Tensor or isinstance(a, Tensor))
            else (False, a)
            for a in args
        ]
        self._op = op
        self._stand_ins = None

    def _built(self) -> tuple:
        if self._stand_ins is None:
            self._stand_ins = tuple(_stand_in(m, self._op) for m in self._metas)
        return self._stand_ins

    def __iter__(self):
        return iter(self._built())

    def __getitem__(self, i):
        return self._built()[i]

    def __len__(self) -> int:
        return len(self._metas)


class _FreedArray:
    """What a released node keeps of a saved array: its shape and dtype, not its values.

    A rule that needs only metadata (those of add, neg, sum, mean, view, expand, to, clone)
    still runs after release, as in PyTorch where such nodes save no tensors, so a second
    backward through them works. Any use of the values (NumPy, arithmetic, methods) raises
    the RuntimeError that points to ``retain_graph=True``.
    """

    __slots__ = ("_op", "dtype", "shape")

    def __init__(self, shape: tuple, dtype, op: str) -> None:
        self.shape = shape
        self.dtype = dtype
        self._op = op

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def _freed(self, *args, **kwargs):
        raise RuntimeError(FREED_MESSAGE.format(op=self._op))

    __array__ = __array_ufunc__ = __array_function__ = _freed
    __getitem__ = __iter__ = __len__ = __bool__ = __float__ = __int__ = __index__ = _freed
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _freed
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = __abs__ = _freed
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _freed
    __hash__ = object.__hash__

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        self._freed()

    def __repr__(self) -> str:
        return f"<values of a {list(self.shape)} {self.dtype} array freed by {self._op}>"


def _holds_array(value) -> bool:
    if isinstance(value, (np.ndarray, Tensor)):
        return True
    return isinstance(value, tuple) and any(_holds_array(v) for v in value)


def _release_param(value, op: str):
    if isinstance(value, np.ndarray):
        return _FreedArray(value.shape, value.dtype, op)
    if isinstance(value, Tensor):
        return _wrap(_FreedArray(value._data.shape, value._data.dtype, op))
    if isinstance(value, tuple):
        return tuple(_release_param(v, op) for v in value)
    return value


def _stand_in(meta: tuple, op: str):
    """A stand-in for a saved argument: Tensors and Python numbers lose their values."""
    if meta[0]:
        _, shape, dtype, requires_grad = meta
        return _wrap(_FreedArray(shape, dtype, op), requires_grad)
    arg = meta[1]
    if isinstance(arg, (bool, int, float, np.number)):
        # PyTorch saves a number operand of mul/div as a tensor, so it is freed as well.
        if isinstance(arg, bool):
            dtype = np.dtype(np.bool_)
        elif isinstance(arg, (int, np.integer)):
            dtype = np.dtype(np.int64)
        else:
            dtype = _dtype.get_default_dtype().np
        return _wrap(_FreedArray((), dtype, op))
    return arg
