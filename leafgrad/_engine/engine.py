"""The one backward traversal shared by ``backward`` and ``autograd.grad``."""

from __future__ import annotations

import functools
import heapq
import itertools
import threading

from .._quiet import QUIET, QUIET_STATE
from .._tensor import Tensor
from . import anomaly, grad_mode, reentrant
from .accumulation import accumulate_first, add_gradients
from .grad_mode import SPECIAL
from .graph import NOT_PLAIN, AccumulateGrad, Node
from .plan import Plan, plan_backward
from .profiling import STATE as PROFILING

try:
    import cython  # compiled: Cython's own (typed locals read node fields directly, engine.pxd)
except ImportError:
    from .. import _cython_pure as cython

_task_ids = itertools.count()


class _Tasks(threading.local):
    def __init__(self) -> None:
        # The backward calls running in this thread (a hook may start one), innermost last:
        # (id, plan, roots, whether grad() captures), for register_multi_grad_hook.
        self.stack: list = []


_tasks = _Tasks()


def current_graph_task_id() -> int:
    """The id of the innermost backward call running in this thread (-1 outside one)."""
    stack = _tasks.stack
    return stack[-1][0] if stack else -1


def checkpoint_valid() -> bool:
    """Whether the running backward call may run a reentrant checkpoint's backward: it is
    a plain ``backward()`` (not ``grad()``, not ``backward(inputs=...)``), or none runs."""
    stack = _tasks.stack
    if not stack:
        return True
    _, plan, _, captures = stack[-1]
    return not captures and plan.to_run is None


def will_engine_execute_node(node: Node) -> bool:
    """Whether the running backward call runs ``node`` (or, under ``grad()``, captures at
    it). RuntimeError outside a backward call, and for a leaf's accumulator under ``grad()``
    (as in PyTorch)."""
    if not _tasks.stack:
        raise RuntimeError(
            "will_engine_execute_node: no backward call is running; call it from a hook"
        )
    _, plan, roots, captures = _tasks.stack[-1]
    if plan.to_run is None:
        return node in plan.deps or any(node is root for root, _ in roots)
    if captures and node in plan.capture_at:
        if type(node) is AccumulateGrad:
            raise RuntimeError(
                "asked whether autograd.grad() runs the AccumulateGrad node of a leaf it "
                "returns the gradient of: it captures the gradient there instead (not supported, "
                "as in PyTorch)"
            )
        return True
    return node in plan.to_run


@cython.locals(node=Node, nxt=Node, buffers=dict, deps=dict, ready=list, needs=list)
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

    ``capture`` and ``inputs`` (edges) choose the mode, see ``plan_backward``: ``backward()``
    with neither, ``backward(inputs=...)``, or ``grad()``, which returns the gradients that
    reached the ``capture`` edges. Nodes run in topological order (among the ready ones, the
    most recently created first): each sums the gradients that arrived for its outputs, runs
    its hooks and its rule, and sends the results down its edges; leaves accumulate them into
    ``.grad``. Without ``keep_graph`` each node releases its saved tensors once it has run.
    """
    if len(_tasks.stack) >= reentrant.PER_THREAD:  # deep reentrant backward: a fresh stack
        return reentrant.in_fresh_thread(
            functools.partial(
                execute,
                roots,
                root_grads,
                keep_graph=keep_graph,
                create_graph=create_graph,
                capture=capture,
                inputs=inputs,
            )
        )
    plan = plan_backward([n for n, _ in roots], capture, inputs)
    captured = [None] * (len(capture) if capture else 0)
    buffers = _seed(roots, root_grads)
    tick = itertools.count().__next__  # ties (leaves' sinks) go first come, first served
    # (Loops, not comprehensions, in this function: a comprehension would make its variables
    # closure cells, slower to read in the loop below.)
    ready = []
    for n in buffers:
        if n not in plan.deps:
            ready.append((_priority(n), tick(), n))
    heapq.heapify(ready)
    stack = _tasks.stack
    stack.append((next(_task_ids), plan, roots, capture is not None))
    to_run = plan.to_run
    deps, to_feed, capture_at = plan.deps, plan.to_feed, plan.capture_at
    pop, push = heapq.heappop, heapq.heappush
    # Plain: nothing is recorded, so rules that can run on the arrays themselves do. NumPy
    # quiet and plain mode are turned on once for a run of such nodes (``quiet`` holds the
    # token) and off again before anything else runs: hooks, custom Functions, rules on
    # tensors and accumulation see neither.
    plain = not create_graph
    state = grad_mode._state
    quiet = None
    enabled = state.enabled  # grad mode: create_graph's inside (set_grad_enabled's work, inline)
    state.enabled = create_graph  # a bool: the entry makes it one
    try:
        node = None
        while True:
            if node is None:  # else: the one node the last one made ready (see below)
                if not ready:
                    break
                node = pop(ready)[2]
            grads = buffers.pop(node, None) or [None] * node.num_outputs
            # Which edges want a gradient (a plain loop: a comprehension is a call of its
            # own, per node).
            needs = []
            if to_feed is None:
                for n, _ in node.next_functions:
                    needs.append(n is not None)
            else:
                for n, _ in node.next_functions:
                    needs.append(n in to_feed)  # (None never is)
            if (
                plain
                and grads[0] is not None
                and not SPECIAL[0]
                and node._post_hooks is None
                and node._pre_hooks is None
                and node._tensor_pre_hooks is None
                and node._retain_grad_hooks is None
                and type(node) is not AccumulateGrad
                and (to_run is None or node in to_run)
                and not (capture_at and node in capture_at)
            ):
                # ``_call_rule``'s common case, inline (this runs for most nodes): a
                # gradient arrived, no hooks, the rule on the arrays.
                if True in needs:
                    if quiet is None:
                        state.plain = True
                        quiet = QUIET.set(QUIET_STATE)
                    outs = node.apply_on_arrays(grads, needs)
                    if outs is NOT_PLAIN:
                        quiet = _loud(state, quiet)
                        outs = node.apply(grads, needs)
                else:
                    outs = None
                    node.check_saved()
                if not keep_graph:
                    node.release()
            elif to_run is None or node in to_run:
                if quiet is not None:
                    quiet = _loud(state, quiet)
                # Capture, then PyTorch's order: tensor pre-hooks (then retain_grad), node
                # pre-hooks, the rule or the accumulation (then post-accumulate-grad
                # hooks), node post-hooks; every hook runs even when no gradient arrived
                # (it then sees None).
                if capture_at and node in capture_at:  # before the node's own hooks
                    _capture(node, grads, plan, captured)
                if type(node) is AccumulateGrad:
                    outs = _accumulate(node, grads, create_graph)
                else:
                    if node._tensor_pre_hooks or node._retain_grad_hooks:
                        _run_tensor_pre_hooks(node, grads)
                    if node._pre_hooks:
                        grads = _run_pre_hooks(node, grads)
                    if SPECIAL[0] and PROFILING.recorder is not None:
                        outs = _profiled_rule(node, grads, needs)
                    else:
                        outs = _call_rule(node, grads, needs, plain and not SPECIAL[0])
                if not keep_graph:
                    node.release()
            else:
                if quiet is not None:
                    quiet = _loud(state, quiet)
                outs = None
                if node in plan.hooks_only:
                    _run_tensor_pre_hooks(node, grads)
                    if node in plan.capture_at:
                        _capture(node, grads, plan, captured)
            # Send the results down the node's edges, and queue the children it was the
            # last to wait for (also when it computed nothing for them). Inline: this
            # runs for every node. A child that is the only node ready runs next without
            # the queue (a chain: most nodes); PyTorch's engine would pick it too.
            single = None
            i = -1
            for nxt, nr in node.next_functions:
                i += 1
                if nxt is None or nxt not in deps:  # not in deps: older than every target
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
                        buf[nr] = g if old is None else add_gradients(old, g)
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    if single is None and not ready:
                        single = nxt
                        continue
                    if single is not None:  # a second one: both queue, in this order
                        push(ready, (_priority(single), tick(), single))
                        single = None
                    push(ready, (_FIRST if nxt._runs_first else -nxt.sequence_nr, tick(), nxt))
            node = single
            # Hold no gradient here: a leaf takes a gradient's memory only if nothing else
            # refers to it (accumulate_grad).
            g = old = None
    finally:
        if quiet is not None:
            _loud(state, quiet)
        state.enabled = enabled
        stack.pop()
    return captured


def _profiled_rule(node: Node, grads: list, needs: list) -> list | None:
    """``_call_rule`` timed for the running profiler, under PyTorch's two event names."""
    recorder = PROFILING.recorder
    name = node.name()
    outer = recorder.open("autograd::engine::evaluate_function: " + name)
    try:
        return recorder.timed(name, _call_rule, node, grads, needs, False)
    finally:
        recorder.close(outer)


def _loud(state, quiet) -> None:
    """Plain mode and NumPy's quiet off again (``quiet``: the token of turning it on)."""
    state.plain = False
    QUIET.reset(quiet)


def _accumulate(node: AccumulateGrad, grads: list, create_graph: bool) -> None:
    """A leaf's sink: its tensor hooks, the node's pre-hooks, accumulation, the leaf's
    post-accumulate-grad hooks, the node's post hooks (``fn((), grad_outputs)``)."""
    leaf = node._variable()
    if node._tensor_pre_hooks or node._retain_grad_hooks or (leaf is not None and leaf._leaf_hooks):
        _run_tensor_pre_hooks(node, grads)
    if node._pre_hooks:
        grads = _run_pre_hooks(node, grads)
    if leaf is not None:
        if grads[0] is not None:
            accumulate_first(leaf, grads, create_graph)
        if leaf._post_accumulate_hooks:
            for fn in list(leaf._post_accumulate_hooks.values()):
                fn(leaf)
    if node._post_hooks:
        _run_post_hooks(node, (), grads)
    return None


@cython.locals(node=Node)
def _priority(node: Node) -> float:
    """The ready node run first has the least: the newest node, except that PyTorch numbers
    leaves' accumulators and nodes that only raise (NotImplemented) after every other node,
    so they run as soon as they are ready (and a backward that reaches such a node before a
    leaf's accumulator raises before filling that leaf's .grad)."""
    return _FIRST if node._runs_first else -node.sequence_nr


_FIRST = -float("inf")


def _seed(roots: list, root_grads: list) -> dict:
    """The gradient buffers of the roots: one slot per output, seeds summed."""
    buffers: dict = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.num_outputs
        buf[nr] = _add(buf[nr], g)
    return buffers


def _capture(node: Node, grads: list, plan: Plan, captured: list) -> None:
    """``grad()``: keep the gradients arriving at the node's captured edges."""
    for nr, position in plan.capture_at[node]:
        captured[position] = grads[nr]


def _call_rule(node: Node, grads: list, needs: list, plain: bool = False) -> list | None:
    """The node's rule and post hooks: gradients for its edges, or None if it computes none
    (no gradient arrived, or no edge leads where one is needed: ``needs``, per edge).

    A custom Function's backward runs even when no gradient arrived (it sees zeros, or None
    after ``ctx.set_materialize_grads(False)``), as in PyTorch.
    """
    outs = None
    if not (grads[0] is None if len(grads) == 1 else all(g is None for g in grads)) or (
        node._runs_without_grads
    ):
        if True in needs:
            if plain:  # then no special mode is on, anomaly mode included
                outs = node.apply_plain(grads, needs)
                if outs is NOT_PLAIN:
                    outs = node.apply(grads, needs)
            elif SPECIAL[0] and anomaly.state.enabled:
                outs = _apply_watched(node, grads, needs)
            else:
                outs = node.apply(grads, needs)
        else:
            node.check_saved()
    else:
        # PyTorch's nodes unpack their saves before looking at the gradients, so a freed
        # or modified save raises even where no gradient is computed.
        node.check_saved()
    if node._post_hooks:
        if outs is None:
            outs = [None] * len(node.next_functions)
        outs = _run_post_hooks(node, tuple(outs), grads)
    return outs


def _run_post_hooks(node: Node, grad_inputs: tuple, grad_outputs: list) -> list:
    """``fn(grad_inputs, grad_outputs)`` for each post hook; each may replace grad_inputs."""
    grad_outputs = tuple(grad_outputs)
    for fn in list(node._post_hooks.values()):
        new = fn(grad_inputs, grad_outputs)
        if new is not None:
            grad_inputs = _hook_values(fn, new, len(grad_inputs))
    return list(grad_inputs)


def _hook_values(fn, new, expected: int) -> tuple:
    """A node hook's replacement values, checked for their count."""
    new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
    if len(new) != expected:
        raise RuntimeError(
            f"hook '{getattr(fn, '__name__', fn)}' has returned an incorrect number of values "
            f"(got {len(new)}, but expected {expected})"
        )
    return new


def _apply_watched(node: Node, buffer: list, needs: list) -> list:
    """``node.apply`` in anomaly mode: name the forward code on errors and NaN results."""
    try:
        outs = node.apply(buffer, needs)
        if anomaly.state.check_nan:
            anomaly.check_outputs(node, outs)
    except Exception:  # NaN included: PyTorch warns with the forward trace for it too
        anomaly.report_error(node)
        raise
    return outs


def _run_pre_hooks(node: Node, grads: list) -> list:
    """The node's pre-hooks, each may replace all of its output gradients."""
    for fn in list(node._pre_hooks.values()):
        new = fn(tuple(grads))
        if new is not None:
            grads = list(_hook_values(fn, new, len(grads)))
    return grads


def _run_tensor_pre_hooks(node: Node, buffer: list) -> None:
    hooks = node._tensor_pre_hooks
    if type(node) is AccumulateGrad:
        # A leaf keeps its hooks itself: its accumulator lives only while a graph uses it.
        leaf = node.variable
        hooks = {0: leaf._leaf_hooks} if leaf is not None and leaf._leaf_hooks else None
    if hooks:
        # Called with None too where no gradient arrived for that output, as in PyTorch.
        for nr, fns in hooks.items():
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
    if old is None:
        raise RuntimeError(
            f"a hook on a tensor of {node.name()} returned a gradient where none arrived: "
            "can't replace a None gradient with a non-None value"
        )
    if not isinstance(new, Tensor):  # PyTorch's words, then whose hook
        raise TypeError(
            f"expected Variable, but hook returned '{type(new).__name__}' (a hook on a tensor of "
            f"{node.name()})"
        )
    if new._data.shape != old._data.shape or new._data.dtype != old._data.dtype:
        raise RuntimeError(
            f"a hook on a tensor of {node.name()} returned a gradient of shape "
            f"{list(new._data.shape)} and dtype {new.dtype}; expected shape "
            f"{list(old._data.shape)} and dtype {old.dtype}"
        )


def _validate(node: Node, i: int, grad) -> Tensor:
    if not isinstance(grad, Tensor):
        raise TypeError(
            f"{node.name()} returned {type(grad).__name__} as gradient {i}; "
            "expected a Tensor or None"
        )
    return grad


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b
