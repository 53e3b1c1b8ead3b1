"""Graph nodes (``grad_fn``): the rule to run, saved tensors and ``next_functions``.

Only the engine touches Node internals; ops record through ``OpNode``'s methods.
"""

from __future__ import annotations

import itertools
import weakref
from typing import NamedTuple

import numpy as np

from .._quiet import QUIET, QUIET_STATE
from .._tensor import Tensor, _wrap
from .accumulation import accumulate_first
from .grad_mode import _state, is_grad_enabled
from .saved import SavedTensor, SavedTensors, _Packed, _UnsavedArray

_sequence = itertools.count()
_ACCUMULATOR_SEQUENCE_NR = 2**64 - 1  # what PyTorch's AccumulateGrad._sequence_nr() says
NOT_PLAIN = object()  # apply_plain's answer when the rule must run on tensors


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    __module__ = "leafgrad.utils.hooks"  # where PyTorch's lives (and this one is exported)

    _ids = itertools.count()

    def __init__(self, hooks: dict, *, extra_dict=None) -> None:
        self._hooks = hooks
        self.id = next(self._ids)
        # Dicts keyed by hook id beside ``hooks`` (e.g. a module's with_kwargs set), emptied
        # of this id too: one dict or a list of them, as PyTorch's ``extra_dict``.
        self._extra = (
            () if extra_dict is None else tuple(extra_dict) if isinstance(extra_dict, list)
            else (extra_dict,)
        )  # fmt: skip

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        for extra in self._extra:
            extra.pop(self.id, None)

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
        "_saved",
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
        self._saved = None  # SavedTensors, for nodes whose rule needs values

    num_outputs = 1
    _runs_without_grads = False  # True: ``apply`` runs even when no gradient arrived
    _runs_first = False  # True: run as soon as ready (PyTorch's largest sequence number)

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self.sequence_nr

    @property
    def requires_grad(self) -> bool:
        """True, as PyTorch's nodes answer: a node exists only where a gradient flows."""
        return True

    def apply(self, grads: list, needs: list) -> list:
        """Input grads, one per ``next_functions`` entry (None where not needed)."""
        raise NotImplementedError(f"{self.name()} has no backward rule")

    def apply_plain(self, grads: list, needs: list):
        """``apply`` on NumPy arrays, where nothing is recorded; ``NOT_PLAIN`` if the node
        cannot (see ``OpNode.apply_plain``)."""
        return NOT_PLAIN

    def apply_on_arrays(self, grads: list, needs: list):
        """``apply_plain`` with NumPy quiet and plain mode already on."""
        return NOT_PLAIN

    def release(self) -> None:
        """Drop saved tensors once backward is done with them."""

    def check_saved(self) -> None:
        """RuntimeError, as running the rule would raise, if the saves were freed or
        modified in place: for a node that runs without computing a gradient."""

    def saved_input(self, i: int):
        """What this node saved as its ``i``-th input, unchecked (None if nothing)."""
        return None

    def saved_result_moved_to(self, tensor: Tensor) -> None:
        """The output this node saved now lives in ``tensor`` (an in-place op wrote it
        there): later in-place changes of ``tensor`` invalidate the saved output."""

    def describe_saved(self) -> list:
        """``(what, tensor_or_None, shape)`` per saved tensor, for explain and viz."""
        return []

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


def _check_call(node: Node, grads: tuple) -> None:
    """TypeError unless ``grads`` has one Tensor (or None) per output of ``node``."""
    if len(grads) != node.num_outputs:
        raise TypeError(
            f"expected {node.num_outputs} arguments, got {len(grads)} instead: {node.name()} "
            "takes one gradient per output of the op that made it"
        )
    for i, g in enumerate(grads):
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(
                f"argument {i} is not a Variable: {node.name()} takes Tensors (or None) as "
                f"gradients, got {type(g).__name__}"
            )


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming grads into ``variable.grad``.

    The leaf owns its accumulator and the accumulator refers back weakly, so there is no
    reference cycle: a leaf nobody holds any more has no ``.grad`` anyone could read.
    """

    __slots__ = ("_variable",)
    _runs_first = True

    def __init__(self, variable) -> None:
        super().__init__(())
        self._variable = weakref.ref(variable)

    @property
    def variable(self):
        return self._variable()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    # PyTorch's node classes are C++ types: ``<class 'AccumulateGrad'>``, and their objects
    # print as ``<AccumulateGrad object at 0x...>`` (object's own repr, module left out).
    __module__ = "builtins"

    def _sequence_nr(self) -> int:
        """PyTorch's: the largest number (2**64 - 1), as its accumulators run first once
        ready. (``sequence_nr`` itself stays the creation order that graph discovery reads.)"""
        return _ACCUMULATOR_SEQUENCE_NR

    def __call__(self, *grads) -> tuple:
        """``acc(grad)``: add ``grad`` into the leaf's ``.grad`` (then its post-accumulate
        hooks), as a backward pass would; returns ``()``, as PyTorch's node does."""
        _check_call(self, grads)
        leaf = self._variable()
        if leaf is not None and grads[0] is not None:
            accumulate_first(leaf, grads, is_grad_enabled())
            for fn in list((leaf._post_accumulate_hooks or {}).values()):
                fn(leaf)
        return ()


# The accumulator of a view made in no-grad mode of a tensor that requires grad: none that
# works, so gradients reaching such a view are dropped (as in PyTorch).
NO_GRAD_VIEW = object()


class GradientEdge(NamedTuple):
    """Where a gradient enters the graph: a node and which of its outputs (as PyTorch's
    ``torch.autograd.graph.GradientEdge``); accepted wherever ``grad``/``backward`` take
    tensors to differentiate or to differentiate with respect to."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


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


_NODE_CLASSES: dict = {}  # node name -> its OpNode subclass
_new = object.__new__
_new_saves = SavedTensors.__new__  # its own (compiled, a C type: object.__new__ refuses it)


def _several_on_arrays(grads: list, outputs) -> tuple:
    """``(arrays, dtype)`` for a rule of several outputs on arrays: each gradient's array (None
    where none arrived), all of one floating dtype, as every floating output is (integer
    outputs, e.g. indices, are read as indices; outputs not saved, None, are not read).
    ``(NOT_PLAIN, None)`` otherwise."""
    arrays = [None if g is None else g._data for g in grads]
    dtype = next(a.dtype for a in arrays if a is not None)
    if any(a is not None and a.dtype != dtype for a in arrays):
        return NOT_PLAIN, None  # several dtypes
    if outputs is None:
        return arrays, dtype
    if type(outputs) is not tuple:
        return NOT_PLAIN, None  # outputs packed by saved tensors hooks
    for o in outputs:
        if type(o) is not np.ndarray or (o.dtype != dtype and o.dtype.kind in "fc"):
            return NOT_PLAIN, None
    return arrays, dtype


class _OpNode(Node):
    """The grad_fn of a primitive op: its saved inputs, result and backward rule.

    ``backward(grads, args, result, params, needs)`` returns one gradient per entry of
    ``next_functions``; it is supplied by ``ops._primitive`` so the engine stays op-agnostic.
    Compiled, a C type (``graph.pxd``) and so closed to new attributes: ``OpNode`` below is
    the class every op's node class derives from.
    """

    __slots__ = ("_backward", "_name", "num_outputs")

    def __init__(self, name, backward, next_functions, args, params, track, output, guard):
        self._record(name, backward, next_functions, args, params, track, output, guard)

    def _record(self, name, backward, next_functions, args, params, track, output, guard):
        """``__init__``'s work: ops make their nodes with ``object.__new__(cls)._record(...)``,
        cheaper than calling the class (one per recorded op: Node.__init__ is inlined here).

        ``track``: the indices of the inputs the op saves (True: all), checked for in-place
        changes; the rules read only the shapes of the others, as in PyTorch. ``output``:
        the output arrays, if kept; ``guard``: the output tensor(s) whose version counter
        guards them (None: kept for their shapes only), see ``SavedTensors.save_output``.
        """
        self.next_functions = next_functions
        self.sequence_nr = next(_sequence)
        self._tensor_pre_hooks = self._retain_grad_hooks = None
        self._pre_hooks = self._post_hooks = self.metadata_ = None
        self._name = name
        self._backward = backward
        self.num_outputs = 1
        saves = _new_saves(SavedTensors)
        self._saved = saves._setup(args, params, track, False, name, output, guard)

    def name(self) -> str:
        return self._name

    def save_result(self, data, tensor) -> None:
        """Save the output arrays ``data`` for the rule; ``tensor``'s version guards them
        (the constructor's ``output`` and ``guard``, once the outputs hang from this node)."""
        self._saved.save_output(data, tensor)

    def save_result_tangents(self, tangents) -> None:
        """Forward mode: keep the saved output's tangents (no-op if no output is saved)."""
        if self._saved.output is not None:
            self._saved.output_tangents = tangents

    def saved_result_moved_to(self, tensor: Tensor) -> None:
        self._saved.guard_output_with(tensor)

    def saved_input(self, i: int):
        saved = self._saved
        return saved.value(i) if saved.is_saved(i) else None

    def __dir__(self):
        """Of the ``_saved_*`` and ``_raw_saved_*`` attributes, only those of this node's op,
        as PyTorch's nodes list them (the properties are shared by every op node)."""
        names = getattr(self._backward, "saved_names", None) or {}
        own = {"_saved_" + n for n in names}
        own.update("_raw_saved_" + n for n, (what, _) in names.items() if what != "meta")
        every = super().__dir__()  # outside the comprehension: compiled, it has no __class__ cell
        return [
            a
            for a in every
            if a in own or not (a == "_saved" or a.startswith(("_saved_", "_raw_saved_")))
        ]

    def _read_save(self, name: str):
        names = getattr(self._backward, "saved_names", None)
        return self._saved.attribute(name, names, self._name, self.saved_result)

    def replace_saved_input(self, i: int, tensor: Tensor) -> None:
        """Save ``tensor`` as the ``i``-th input instead, at the version it has now."""
        self._saved.replace(i, tensor)

    def saved_result(self):
        """The op's output(s) as tensors whose grad_fn is this node (for higher order)."""
        data = self._saved.output
        if data is None:
            return None
        if type(data) is not np.ndarray:
            data = self._saved.output_arrays()  # packed by a saved tensors hook
        if self.num_outputs == 1:
            out = _wrap(data, True)
            out.grad_fn = self
            tangents = self._saved.output_tangents
            if tangents:
                out._tangents = dict(tangents)
            return out
        outs = []
        tangents = self._saved.output_tangents or ()  # one map per output (forward mode)
        for i, d in enumerate(data):
            t = _wrap(d, d.dtype.kind == "f")
            if t._requires_grad:
                t.grad_fn = self
                t._output_nr = i
            if i < len(tangents) and tangents[i]:
                t._tangents = dict(tangents[i])
            outs.append(t)
        return tuple(outs)

    def apply(self, grads: list, needs: list) -> list:
        saved = self._saved
        args = saved.unpack(self._name)
        result = None if saved.output is None else self.saved_result()
        # The rule is leafgrad ops only: NumPy stays quiet for all of them at once, which
        # spares each op its own switch (saved tensors hooks ran above, outside it).
        token = QUIET.set(QUIET_STATE)
        # The rule stands for PyTorch's C++ formula: its numbers are Scalars (``_formula``).
        state = _state
        outer, state.formula = state.formula, True
        try:
            return self._backward(grads, args, result, saved.params, needs)
        finally:
            state.formula = outer
            QUIET.reset(token)

    def apply_plain(self, grads: list, needs: list):
        """The rule on the arrays themselves, when the engine records nothing (no
        create_graph, no special mode) and the op declared ``plain_rules``: the same NumPy
        calls as ``apply`` makes through ops, without an op's cost around each.
        ``NOT_PLAIN``: run ``apply``. (``apply_on_arrays`` with NumPy quiet and plain mode on.)
        """
        state = _state
        state.plain = True
        token = QUIET.set(QUIET_STATE)
        try:
            return self.apply_on_arrays(grads, needs)
        finally:
            QUIET.reset(token)
            state.plain = False

    def apply_on_arrays(self, grads: list, needs: list):
        """``apply_plain``'s work, for a caller that has turned NumPy quiet and plain mode
        on (the engine, once for a run of such nodes): ``NOT_PLAIN`` or the gradients.

        Only where every tensor the rule reads (gradients, saved inputs, output) has one
        dtype, or is a bool mask (or an unsaved input, whose values are never read), so
        NumPy's promotion cannot differ from PyTorch's; a rule that reaches a
        tensor-only call raises AttributeError or TypeError on an array and runs on tensors
        instead. Saves packed by saved tensors hooks go to ``apply``, whose unpacking runs
        the user's hooks outside plain mode.
        """
        on_arrays = self._backward.on_arrays
        saved = self._saved
        if on_arrays is None or saved._packed:
            return NOT_PLAIN
        output = saved.output
        if self.num_outputs == 1:
            grad = grads[0]._data  # the engine calls a rule once some gradient arrived
            dtype = grad.dtype
            if output is not None and (
                type(output) is not np.ndarray
                or (output.dtype is not dtype and output.dtype != dtype)
            ):
                return NOT_PLAIN  # packed by saved tensors hooks, or another dtype
        else:
            grad, dtype = _several_on_arrays(grads, output)
            if grad is NOT_PLAIN:
                return NOT_PLAIN
        args = []
        for a in saved.unpack(self._name):
            if type(a) is Tensor or isinstance(a, Tensor):
                a = a._data
                # Masks (bool) mix into arithmetic alike in NumPy and PyTorch; of an input
                # not saved the rule reads only the shape and dtype.
                if (
                    a.dtype is not dtype
                    and a.dtype != dtype
                    and a.dtype.kind != "b"
                    and type(a) is not _UnsavedArray
                ):
                    return NOT_PLAIN
            args.append(a)
        try:
            outs = on_arrays(grad, args, output, saved.params, needs)
        except (AttributeError, TypeError):  # a tensor-only call: the rule runs on tensors
            return NOT_PLAIN
        # The incoming gradient passed on as it is stays the same tensor (add, expand ...).
        # A plain loop: a comprehension costs a call of its own, per node.
        results = []
        for o in outs:
            if o is None:
                results.append(None)
            elif o is grad:
                results.append(grads[0])
            else:  # _wrap inline: once per gradient
                t = _new(Tensor)
                t._data = o
                results.append(t)
        return results

    def __call__(self, *grads):
        """``grad_fn(*grad_outputs)``: the rule run directly, in the current grad mode and
        without hooks, as PyTorch's nodes are callable: the gradients for ``next_functions``
        as a tuple, or the one gradient of a node with a single edge."""
        _check_call(self, grads)
        n = len(self.next_functions)
        outs = None
        if any(g is not None for g in grads):
            needs = [fn is not None for fn, _ in self.next_functions]
            outs = self.apply(list(grads), needs)
        outs = tuple(outs) if outs is not None else (None,) * n
        return outs[0] if n == 1 else outs

    def check_saved(self) -> None:
        self._saved.unpack(self._name)

    def release(self) -> None:
        """Drop the saved values, keeping only shapes and dtypes (see ``SavedTensors``)."""
        self._saved.release(self._name)

    def describe_saved(self) -> list:
        """``(what, tensor_or_None, shape)`` per saved tensor; after release the tensor is
        None. ``what`` is ``input i``, ``result`` or ``result j``."""
        saved = self._saved
        freed = saved.released
        out = [
            (f"input {i}", None if freed else a, tuple(a._data.shape))
            if isinstance(a, Tensor)
            else (f"input {i}", None, tuple(a.shape))  # kept by a saved tensors pack hook
            for i, a in enumerate(saved.values)
            if isinstance(a, (Tensor, _Packed)) and saved.is_saved(i)
        ]
        result = saved.output
        if saved.holds_output:
            if type(result) is tuple:
                out.extend((f"result {j}", None, tuple(r.shape)) for j, r in enumerate(result))
            else:
                out.append(("result", None, tuple(result.shape)))
        return out

    @property
    def _saves_freed(self) -> bool:
        return self._saved.released


class OpNode(_OpNode):
    """``_OpNode`` as a class that takes attributes: each op's node class derives from it
    (``named``), and the ``_saved_<name>`` properties are set on it (``show_saved``)."""

    __slots__ = ()

    @classmethod
    def named(cls, name: str) -> type:
        """The node class for grad_fns named ``name``: as in PyTorch, each kind of node has a
        class of its own (``type(y.grad_fn).__name__ == "MulBackward0"``)."""
        node_class = _NODE_CLASSES.get(name)
        if node_class is None:
            short = name.rsplit("::", 1)[-1]
            node_class = _NODE_CLASSES[name] = type(
                short, (cls,), {"__slots__": (), "__module__": "builtins"}
            )
        return node_class

    @classmethod
    def show_saved(cls, name: str, raw: bool = True) -> None:
        """Give op nodes PyTorch's attribute ``_saved_<name>``: what the node's op saved under
        that name (AttributeError where its op saves nothing so named). A property per name,
        not ``__getattr__``, which would slow every attribute read of every node. The op's
        names come with its rule: ``backward.saved_names``, ``{name: (what, index)}``.
        ``raw``: a saved value (not sizes or dims), also ``_raw_saved_<name>``."""
        attr = "_saved_" + name
        if attr not in cls.__dict__:
            setattr(cls, attr, property(lambda node: node._read_save(name)))
        if raw and "_raw" + attr not in cls.__dict__:
            # ``_raw_saved_<name>``: the save itself, whose hooks can be set (SavedTensor).
            setattr(cls, "_raw" + attr, property(lambda node: SavedTensor(node, name)))
