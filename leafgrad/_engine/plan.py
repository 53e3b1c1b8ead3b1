"""What one backward call will do, worked out by a single walk of the graph."""

from __future__ import annotations

from operator import attrgetter

from .graph import Node

try:
    import cython  # compiled: Cython's own (typed locals read node fields directly, plan.pxd)
except ImportError:
    from .. import _cython_pure as cython

_age = attrgetter("sequence_nr")


class Plan:
    """The part of the graph one backward call uses.

    - ``deps``: for each node reached from the roots, how many edges lead into it: it runs
      once that many gradients have arrived.
    - ``to_run``: the nodes whose hooks and rule run (None: every node reached).
    - ``to_feed``: the nodes a gradient must be sent to (None: every node reached); a rule
      computes gradients only for edges into these.
    - ``capture_at``: node -> ``[(output_nr, position)]`` where ``grad()`` takes the
      gradient arriving at an input's edge, to return it at ``position``.
    - ``hooks_only``: nodes that do not run but whose tensor hooks still do: the captured
      nodes of ``grad()`` (hooks apply before the capture), the roots of ``backward(inputs=)``
      (PyTorch runs an output's own retain_grad hook even when nothing below it is needed).
    """

    __slots__ = ("capture_at", "deps", "hooks_only", "to_feed", "to_run")

    def __init__(self, deps, to_run=None, to_feed=None, capture_at=None, hooks_only=()):
        self.deps = deps
        self.to_run = to_run
        self.to_feed = to_feed
        self.capture_at = capture_at or {}
        self.hooks_only = hooks_only


def plan_backward(roots: list, capture: list | None = None, inputs: list | None = None) -> Plan:
    """The plan for a backward from ``roots`` (nodes) in one of three modes.

    - Neither ``capture`` nor ``inputs``: every node reached runs and leaves accumulate
      (``backward()``).
    - ``inputs`` (edges): the nodes of those edges and the nodes on a path to them run
      (``backward(inputs=...)``).
    - ``capture`` (edges): only the nodes on a path to a captured edge run, and nothing
      accumulates (``grad()``). A captured node runs only if it leads to another one.
    """
    if capture is None and inputs is None:
        return Plan(_walk(roots, None)[0])
    targets = {n for n, _ in (capture if capture is not None else inputs) if n is not None}
    deps, leads = _walk(roots, targets)
    to_feed = leads | targets
    if capture is None:
        return Plan(deps, to_feed, to_feed, hooks_only=set(roots))
    capture_at: dict = {}
    for position, (node, nr) in enumerate(capture):
        capture_at.setdefault(node, []).append((nr, position))
    return Plan(deps, leads, to_feed, capture_at, hooks_only=capture_at)


@cython.locals(node=Node, nxt=Node, deps=dict, seen=set, stack=list, leads=set, reaches=set)
def _walk(roots: list, targets: set | None) -> tuple[dict, set | None]:
    """Edges into each node reached from ``roots``, and (given ``targets``) the nodes with a
    path to a target: one walk of the graph, iterative (graphs can be deep).

    A node's edges lead only to nodes made before it (sequence numbers grow). So the walk
    stops at nodes older than every target, which lead to no target: the history behind the
    targets (earlier training steps, say) is never walked, as PyTorch prunes with its
    topological numbers. And the nodes walked, taken oldest first, come children before
    parents: one pass in that order finds which of them lead to a target.
    """
    if targets is None:
        return _count_edges(roots), None
    deps: dict = {}
    oldest = min(t.sequence_nr for t in targets) if targets else -1
    seen: set = set()
    stack = list(roots)
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if node in seen:
            continue
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt.sequence_nr >= oldest:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    push(nxt)
    leads = set()  # nodes with a path to a target
    reaches = set(targets)  # targets, and nodes leading there
    for node in sorted(seen, key=_age):
        for nxt, _ in node.next_functions:
            if nxt in reaches:
                leads.add(node)
                reaches.add(node)
                break
    return deps, leads


@cython.locals(node=Node, nxt=Node, deps=dict, seen=set, stack=list)
def _count_edges(roots: list) -> dict:
    """``_walk`` without targets (``backward()``): the edges into each node reached from
    ``roots``. Order does not matter here, so each node is pushed once, when first reached."""
    deps: dict = {}
    seen: set = set()  # the nodes walked (a root may also be reached from another root)
    stack = list(roots)
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if node in seen:
            continue
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    push(nxt)
    return deps
