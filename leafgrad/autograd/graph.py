"""The backward graph from Python, as ``torch.autograd.graph``: nodes and their hooks,
gradient edges, hooks over several tensors, and version counters.

    edge = get_gradient_edge(y)          # where y's gradient enters the graph
    grad(loss, edge)                     # the same as grad(loss, y)
    register_multi_grad_hook((a, b), fn) # fn([grad_a, grad_b]) once both are computed
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from .._engine import engine as _engine
from .._engine.graph import GradientEdge, Node, RemovableHandle, gradient_edge
from .._tensor import Tensor


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


__all__ = [
    "Node", "GradientEdge", "get_gradient_edge", "increment_version",
    "register_multi_grad_hook",
]  # fmt: skip
