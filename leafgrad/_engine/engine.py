"""The one backward traversal shared by ``backward`` and ``autograd.grad``."""

from __future__ import annotations

import heapq

import numpy as np

from .._tensor import Tensor, _wrap
from . import anomaly, grad_mode
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


def _count_deps(roots: list) -> dict:
    """Dependency counts only: all a plain ``backward()`` needs (no post-order)."""
    deps: dict = {}
    seen = set(roots)
    stack = list(seen)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return deps


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
        leaf = node.variable
        hooks = {0: leaf._backward_hooks} if leaf is not None and leaf._backward_hooks else None
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
        raise TypeError(
            f"a hook on a tensor of {node.name()} returned {type(new).__name__}, "
            "expected a Tensor or None"
        )
    if new._data.shape != old._data.shape or new._data.dtype != old._data.dtype:
        raise RuntimeError(
            f"a hook on a tensor of {node.name()} returned a gradient of shape "
            f"{list(new._data.shape)} and dtype {new.dtype}; expected shape "
            f"{list(old._data.shape)} and dtype {old.dtype}"
        )


def accumulate_grad(var: Tensor, grad: Tensor, create_graph: bool) -> None:
    """Add ``grad`` into ``var.grad`` as PyTorch's AccumulateGrad does, then run its hooks.

    Without ``create_graph`` the first gradient is stored as a detached copy and later ones
    are added *in place*, so a ``.grad`` tensor the user holds sees the new total. With it
    the gradient keeps its graph: a copy first (recorded as CopyBackwards, as PyTorch's
    copy into a fresh tensor is), then ``old + grad`` (a new tensor).
    """
    old = var._grad
    if create_graph:
        if old is None:
            var._grad = _wrap(np.empty(grad._data.shape, var._data.dtype)).copy_(grad)
        else:
            var._grad = old + grad
    elif old is None:
        # Own the memory: never alias a gradient that someone else may modify.
        var._grad = _wrap(grad._data.copy())
    else:
        data = old._data
        add = grad._data
        if data.flags.writeable and data.shape == add.shape and data.dtype == add.dtype:
            np.add(data, add, out=data)
            old._bump_version()
        else:  # e.g. a read-only broadcast view assigned to .grad by the user
            var._grad = _wrap(data + add)
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


def _apply_watched(node: Node, buffer: list, needs: list) -> list:
    """``node.apply`` in anomaly mode: name the forward code on errors and NaN results."""
    try:
        outs = node.apply(buffer, needs)
    except Exception:
        anomaly.report_error(node)
        raise
    if anomaly.state.check_nan:
        anomaly.check_outputs(node, outs)
    return outs


def execute(
    roots: list,
    root_grads: list,
    *,
    keep_graph: bool,
    create_graph: bool,
    capture: list | None = None,
    inputs: list | None = None,
) -> list:
    """Run backward from ``roots`` (``(node, output_nr)`` pairs) seeded with ``root_grads``.

    - Neither ``capture`` nor ``inputs``: every reachable node runs and leaves accumulate
      into ``.grad`` (``backward()``).
    - ``inputs`` (edges): only the nodes of those edges and the nodes on a path to them run;
      leaves among them accumulate, non-leaves through their retain_grad hooks
      (``backward(inputs=...)``).
    - ``capture`` (edges): only nodes on a path to a captured edge run, nothing accumulates,
      and the gradients arriving at those edges are returned (``grad()``). As in PyTorch, a
      captured node that does not run has its tensor hooks applied before the capture; one
      that also runs (it leads to another captured edge) is captured before its hooks.
    """
    root_nodes = [n for n, _ in roots]
    root_set = set(root_nodes)
    needed = wanted = None
    if capture is None and inputs is None:
        deps = _count_deps(root_nodes)
    else:
        deps, order = _collect(root_nodes)
    if capture is not None:
        needed, wanted = _to_execute(order, {n for n, _ in capture})
    elif inputs is not None:
        targets = {n for n, _ in inputs if n is not None}
        needed, wanted = _to_execute(order, targets)
        needed |= targets
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
    pop, push = heapq.heappop, heapq.heappush
    with grad_mode.set_grad_enabled(create_graph):
        while ready:
            node = pop(ready)[2]
            buffer = buffers.pop(node, None) or [None] * node.num_outputs
            runs = needed is None or node in needed
            has_tensor_hooks = (
                node._tensor_pre_hooks or node._retain_grad_hooks or type(node) is AccumulateGrad
            )
            if capture_at and node in capture_at:
                if has_tensor_hooks and not runs:
                    _run_tensor_pre_hooks(node, buffer)
                for nr, i in capture_at[node]:
                    captured[i] = buffer[nr]
            if not runs:
                outs = None
                if inputs is not None and has_tensor_hooks and node in root_set:
                    # PyTorch still runs an output's own hooks (retain_grad) when inputs=
                    # leaves nothing below it to compute.
                    _run_tensor_pre_hooks(node, buffer)
            else:
                if has_tensor_hooks:
                    _run_tensor_pre_hooks(node, buffer)
                if node._pre_hooks:
                    for fn in list(node._pre_hooks.values()):
                        new = fn(tuple(buffer))
                        if new is not None:
                            buffer = list(new)
                if type(node) is AccumulateGrad:
                    leaf = node.variable
                    if buffer[0] is not None and leaf is not None:
                        accumulate_grad(leaf, buffer[0], create_graph)
                    continue
                outs = None
                if (
                    buffer[0] is not None
                    if len(buffer) == 1
                    else any(g is not None for g in buffer)
                ):
                    if wanted is None:
                        needs = [n is not None for n, _ in node.next_functions]
                    else:
                        needs = [n is not None and n in wanted for n, _ in node.next_functions]
                    if True in needs:
                        if anomaly.state.enabled:
                            outs = _apply_watched(node, buffer, needs)
                        else:
                            outs = node.apply(buffer, needs)
                        if node._post_hooks:
                            for fn in list(node._post_hooks.values()):
                                new = fn(tuple(outs), tuple(buffer))
                                if new is not None:
                                    outs = list(new)
                if not keep_graph:
                    node.release()
            i = -1
            for nxt, nr in node.next_functions:
                i += 1
                if nxt is None:
                    continue
                if outs is not None:
                    g = outs[i]
                    if g is not None:
                        if type(g) is not Tensor:
                            _validate(node, i, g)
                        buf = buffers.get(nxt)
                        if buf is None:
                            buf = buffers[nxt] = [None] * nxt.num_outputs
                        old = buf[nr]
                        buf[nr] = g if old is None else old + g
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0 and nxt not in queued:
                    queued.add(nxt)
                    push(ready, (-nxt.sequence_nr, id(nxt), nxt))
    return captured
