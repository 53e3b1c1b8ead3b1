"""The backward graph from Python, as ``torch.autograd.graph``: nodes and their hooks,
gradient edges, hooks over several tensors, and version counters.

    edge = get_gradient_edge(y)          # where y's gradient enters the graph
    grad(loss, edge)                     # the same as grad(loss, y)
    register_multi_grad_hook((a, b), fn) # fn([grad_a, grad_b]) once both are computed

    with saved_tensors_hooks(pack, unpack):  # what backward keeps: pack(t), then unpack
        loss = model(x)
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence

from .._engine import engine as _engine
from .._engine import saved as _saved
from .._engine.graph import GradientEdge, Node, RemovableHandle, gradient_edge
from .._tensor import Tensor, _wrap


def _grad_fn_or_accumulator(t) -> Node:
    """The node a gradient for ``t`` (a Tensor or GradientEdge) enters."""
    if isinstance(t, GradientEdge):
        return t.node
    node = gradient_edge(t)[0]
    if node is None:
        raise AssertionError(
            "expected a tensor that requires grad (it has neither a grad_fn nor an "
            "AccumulateGrad node)"
        )
    return node


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge where ``tensor``'s gradient enters the graph: ``grad(loss, edge)`` equals
    ``grad(loss, tensor)``. RuntimeError if ``tensor`` does not require grad."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "get_gradient_edge: this tensor does not require grad, so no gradient edge leads "
            "to it; create it with requires_grad=True"
        )
    return GradientEdge(_grad_fn_or_accumulator(tensor), tensor.output_nr)


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Mark ``tensor`` (or each of several) as modified in place, for writes autograd does
    not see (through ``.numpy()``, say): backward then refuses values saved before."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    for t in tensors:
        if not t._is_inference:  # inference tensors have no version counter in PyTorch
            t._bump_version()


class _MultiHandle(RemovableHandle):
    """Removes the per-tensor hooks of one ``register_multi_grad_hook`` together."""

    def __init__(self, handles: tuple) -> None:
        super().__init__({})
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(
    tensors: Sequence[Tensor],
    fn: Callable,
    *,
    mode: str = "all",
) -> RemovableHandle:
    """A hook over several tensors at once.

    ``mode="all"``: ``fn(grads)`` once per backward call, after the gradients of all the
    tensors that call computes (None for the others: not in its graph, or not needed for its
    ``inputs``). ``mode="any"``: ``fn(grad)`` with the first of those gradients. Returns a
    handle whose ``remove()`` removes it.
    """
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"register_multi_grad_hook: mode must be one of {modes}, got {mode!r}")
    if mode == "all":
        return _MultiHandle(_all_hooks(tuple(tensors), fn))
    ran: set = set()

    @functools.wraps(fn)
    def first(grad) -> None:
        task = _current_task("register_multi_grad_hook")
        if task in ran:
            return
        ran.add(task)
        fn(grad)

    return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))


def _all_hooks(tensors: tuple, fn: Callable) -> tuple:
    nodes = [_grad_fn_or_accumulator(t) for t in tensors]
    counts: dict = {}  # backward call -> (calls so far, calls expected)
    buffers: dict = {}  # backward call -> the gradients so far

    def hook_for(i: int):
        def hook(grad) -> None:
            task = _current_task("register_multi_grad_hook")
            if task not in counts:
                expected = sum(map(_engine.will_engine_execute_node, nodes))
                counts[task] = [0, expected]
                buffers[task] = [None] * len(tensors)
            buffers[task][i] = grad
            count = counts[task]
            count[0] += 1
            if count[0] == count[1]:
                grads = buffers.pop(task)
                del counts[task]
                fn(grads)

        return hook

    return tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors))


def _current_task(caller: str) -> int:
    task = _engine.current_graph_task_id()
    if task == -1:
        raise AssertionError(f"{caller}: expected this hook to be called inside a backward call")
    return task


# ----- saved tensors hooks -----


class saved_tensors_hooks:
    """Pack and unpack hooks for every tensor saved for backward inside the block.

    ``pack_hook(tensor)`` runs when an op (or ``ctx.save_for_backward``) saves ``tensor``
    and may return anything; backward keeps that instead of the tensor, and calls
    ``unpack_hook(packed)`` whenever it needs the value, which must give a Tensor equal to
    the original (e.g. pack to a NumPy copy, unpack back). The innermost block's hooks
    apply. Packed values are not version-checked.
    """

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _saved.push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc) -> None:
        _saved.pop_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept on the CPU: every leafgrad tensor already is, so the values are
    kept as they are (``pin_memory`` is accepted and has no effect)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t, lambda t: t)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Inside, using saved tensors hooks raises RuntimeError(``error_message``); so does
    entering while hooks are in use."""
    previous = _saved.disable_hooks(error_message)
    try:
        yield
    finally:
        _saved.disable_hooks(previous)


# ----- allow_mutation_on_saved_tensors -----

_mutation_context_open = False


class _Handle:
    """What a saved tensor is packed to under ``allow_mutation_on_saved_tensors``."""


class _AllowMutationOnSavedContext:
    """The state of one ``allow_mutation_on_saved_tensors`` block: saved tensors, and the
    clones made of those that were about to be modified in place.

    As PyTorch does, a write finds the saved tensors it changes by the address of the
    written tensor's first element and its version: a view starting at the same address
    (``b.view(...)``, ``b[:2]``) clones ``b``; one starting further in does not.
    """

    def __init__(self) -> None:
        self.original: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.cloned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.handles: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.aliases: dict = {}  # (address, version) -> {(id, address, version)}

    def clear(self) -> None:
        self.original.clear()
        self.cloned.clear()
        self.handles.clear()
        self.aliases.clear()

    def pack(self, tensor: Tensor) -> _Handle:
        where = (tensor.data_ptr(), tensor._version)
        key = (id(tensor), *where)
        handle = self.handles.get(key)
        if handle is None:  # the same tensor at the same version is saved once
            handle = _Handle()
            self.handles[key] = handle
            self.original[handle] = tensor
        self.aliases.setdefault(where, set()).add(key)
        return handle

    def unpack(self, handle: _Handle) -> Tensor:
        if not _mutation_context_open or not (handle in self.cloned or handle in self.original):
            raise AssertionError(
                "backward ran outside the allow_mutation_on_saved_tensors block in which its "
                "graph was recorded; run forward and backward inside the same block"
            )
        return self.cloned[handle] if handle in self.cloned else self.original[handle]

    def before_write(self, tensor: Tensor) -> None:
        """Clone the saved tensors ``tensor`` aliases, at the version they were saved."""
        for key in self.aliases.get((tensor.data_ptr(), tensor._version), ()):
            handle = self.handles.get(key)
            if handle is None or handle in self.cloned:
                continue  # freed by a backward already, or cloned already
            original = self.original.pop(handle)
            self.cloned[handle] = _wrap(original._data.copy())


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Inside, modifying a tensor saved for backward in place is allowed: it is cloned first,
    so backward (which must run inside the same block) sees the values it saved.

    Yields the block's state (cleared on exit). RuntimeError if nested.
    """
    global _mutation_context_open
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        if _mutation_context_open:
            raise RuntimeError("allow_mutation_on_saved_tensors blocks cannot be nested")
        _mutation_context_open = True
        _saved.write_watchers.append(ctx.before_write)
        try:
            yield ctx
        finally:
            _saved.write_watchers.remove(ctx.before_write)
            ctx.clear()
            _mutation_context_open = False


__all__ = [
    "Node", "GradientEdge", "get_gradient_edge", "increment_version",
    "register_multi_grad_hook", "saved_tensors_hooks", "save_on_cpu",
    "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors",
]  # fmt: skip
