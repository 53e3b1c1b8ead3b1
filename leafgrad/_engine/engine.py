"""The one backward traversal shared by ``backward`` and ``autograd.grad``."""

from __future__ import annotations

import heapq

from .._tensor import Tensor, _wrap
from . import grad_mode
from .graph import AccumulateGrad, Node


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _collect(roots: list) -> tuple[dict, list]:
    """Dependency counts of every node reachable from ``roots``, and a post-order."""
    deps: dict = {}
    seen: set = set()
    order: list = []
    stack = [(n, False) for n in roots]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    stack.append((nxt, False))
    return deps, order


def _to_execute(order: list, targets: set) -> tuple[set, set]:
    """Nodes that must run to deliver gradients to ``targets`` (order is children-first),
    and those plus the targets: the nodes a gradient must be sent to.

    A target itself need not run: its gradient is captured before it would.
    """
    execute: set = set()
    reaches: set = set(targets)
    for node in order:
        if any(n in reaches for n, _ in node.next_functions if n is not None):
            execute.add(node)
            reaches.add(node)
    return execute, reaches


def _run_tensor_pre_hooks(node: Node, buffer: list) -> None:
    hooks = node._tensor_pre_hooks
    if type(node) is AccumulateGrad:
        # A leaf keeps its hooks itself: its accumulator lives only while a graph uses it.
        leaf_hooks = node.variable._backward_hooks
        hooks = {0: leaf_hooks} if leaf_hooks else None
    if hooks:
        for nr, fns in hooks.items():
            if buffer[nr] is None:
                continue
            for fn in list(fns.values()):
                new = fn(buffer[nr])
                if new is not None:
                    _check_hook_result(node, buffer[nr], new)
                    buffer[nr] = new
    retain = node._retain_grad_hooks
    if retain:
        for nr, fn in retain.items():
            if buffer[nr] is not None:
                fn(buffer[nr])


def _check_hook_result(node: Node, old, new) -> None:
    if not isinstance(new, Tensor):
        raise TypeError(f"a hook on a tensor of {node.name()} returned {type(new).__name__}, expected a Tensor or None")
    if new._data.shape != old._data.shape or new._data.dtype != old._data.dtype:
        raise RuntimeError(
            f"a hook on a tensor of {node.name()} returned a gradient of shape "
            f"{list(new._data.shape)} and dtype {new.dtype}; expected shape "
            f"{list(old._data.shape)} and dtype {old.dtype}"
        )


def accumulate_grad(var: Tensor, grad: Tensor, create_graph: bool) -> None:
    """Add ``grad`` into ``var.grad`` (detached unless ``create_graph``), then run its hooks."""
    if not create_graph:
        grad = grad.detach()
    old = var._grad
    if old is None:
        # Own the memory: never alias a gradient that someone else may modify.
        var._grad = grad if create_graph else _wrap(grad._data.copy())
    elif create_graph or grad_mode.is_grad_enabled():
        var._grad = old + grad
    else:
        var._grad = _wrap(old._data + grad._data)
    hooks = var._post_accumulate_hooks
    if hooks:
        for fn in list(hooks.values()):
            fn(var)


def _validate(node: Node, i: int, grad) -> Tensor:
    if not isinstance(grad, Tensor):
        raise TypeError(
            f"{node.name()} returned {type(grad).__name__} as gradient {i}; "
            "expected a Tensor or None"
        )
    return grad


def execute(
    roots: list,
    root_grads: list,
    *,
    keep_graph: bool,
    create_graph: bool,
    capture: list | None = None,
) -> list:
    """Run backward from ``roots`` (``(node, output_nr)`` pairs) seeded with ``root_grads``.

    Without ``capture`` every reachable node runs and leaves accumulate into ``.grad``
    (``backward``). With it, only nodes on a path to a captured edge run, nothing is
    accumulated, and the gradients arriving at those edges are returned (``grad``).
    """
    root_nodes = [n for n, _ in roots]
    deps, order = _collect(root_nodes)
    needed = wanted = None
    if capture is not None:
        needed, wanted = _to_execute(order, {n for n, _ in capture})
    captured = [None] * (len(capture) if capture else 0)
    capture_at: dict = {}
    for i, (n, nr) in enumerate(capture or ()):
        capture_at.setdefault(n, []).append((nr, i))

    buffers: dict = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.num_outputs
        buf[nr] = _add(buf[nr], g)

    ready = [(-n.sequence_nr, id(n), n) for n in buffers if deps.get(n, 0) == 0]
    heapq.heapify(ready)
    queued = {n for _, _, n in ready}
    with grad_mode.set_grad_enabled(create_graph):
        while ready:
            node = heapq.heappop(ready)[2]
            buffer = buffers.pop(node, None) or [None] * node.num_outputs
            _run_tensor_pre_hooks(node, buffer)
            if node._pre_hooks:
                for fn in list(node._pre_hooks.values()):
                    new = fn(tuple(buffer))
                    if new is not None:
                        buffer = list(new)
            if node in capture_at:
                for nr, i in capture_at[node]:
                    captured[i] = buffer[nr]
            if isinstance(node, AccumulateGrad):
                if needed is None and buffer[0] is not None:
                    accumulate_grad(node.variable, buffer[0], create_graph)
                continue
            runs = needed is None or node in needed
            nexts = node.next_functions
            outs = None
            if runs and any(g is not None for g in buffer):
                needs = [
                    n is not None and (wanted is None or n in wanted) for n, _ in nexts
                ]
                if any(needs):
                    outs = node.apply(buffer, needs)
                    if node._post_hooks:
                        for fn in list(node._post_hooks.values()):
                            new = fn(tuple(outs), tuple(buffer))
                            if new is not None:
                                outs = list(new)
            if runs and not keep_graph:
                node.release()
            for i, (nxt, nr) in enumerate(nexts):
                if nxt is None:
                    continue
                if outs is not None and outs[i] is not None:
                    g = _validate(node, i, outs[i])
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt.num_outputs
                    buf[nr] = _add(buf[nr], g)
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0 and nxt not in queued:
                    queued.add(nxt)
                    heapq.heappush(ready, (-nxt.sequence_nr, id(nxt), nxt))
    return captured
