"""``explain(t)``: a plain-language account of a tensor's place in autograd.

It says whether ``t`` is a leaf and why, whether backward will fill ``t.grad``, whether the
graph behind ``t`` is live or was freed by a backward without ``retain_graph=True``, and the
``grad_fn`` chain down to the leaves. The helpers here (node names, leaves, saved tensors)
are shared with ``leafgrad.viz``.

Why a leaf that does not require grad is one is read from a marker set where tensors are
made: ``"created"`` by the factories (``tensor``, ``zeros``, ``randn``, ``Tensor(...)``),
``"detach"`` by ``detach()`` and ``"no_grad"`` by the op machinery for a result computed in
no-grad mode from inputs that require grad. A tensor without a marker was computed by an op
that recorded nothing: none of its inputs requires grad, or the op has no gradient.
"""

from __future__ import annotations

import re

from .._engine.graph import AccumulateGrad
from .._tensor import Tensor

__all__ = ["explain"]

_CHAIN_BUDGET = 16  # grad_fn nodes spelled out in the chain; the rest become "..."


# ----------------------------------------------------------------------------- shared helpers
def _shape(shape) -> str:
    return str([int(s) for s in shape])


def _node_name(node) -> str:
    """``MulBackward0``; an accumulator is ``AccumulateGrad`` without the C++ namespace."""
    return node.name().rsplit("::", 1)[-1]


def _op_name(node) -> str:
    """The forward op a backward node belongs to: ``MulBackward0`` -> ``mul``."""
    return re.sub(r"Backwards?\d*$", "", _node_name(node)).lower() or _node_name(node)


def _is_accumulator(node) -> bool:
    return isinstance(node, AccumulateGrad)


def _children(node) -> list:
    """The distinct nodes of ``node.next_functions``, in order (None edges skipped)."""
    out, seen = [], set()
    for nxt, _ in node.next_functions:
        if nxt is not None and id(nxt) not in seen:
            seen.add(id(nxt))
            out.append(nxt)
    return out


def _is_freed(node) -> bool:
    return bool(getattr(node, "_saves_freed", False))


def _saved(node) -> list:
    """``(what, tensor_or_None, shape)`` for each tensor a node holds for its backward.

    ``what`` is ``input i`` or ``result``; after a release only the shapes remain, and the
    tensor is None.
    """
    return node.describe_saved()


def _retains_output(node) -> bool:
    """Whether an output tensor of ``node`` had ``retain_grad()`` called on it."""
    return bool(getattr(node, "_retain_grad_hooks", None))


def _walk(roots: list) -> list:
    """Every node reachable from ``roots``, each once, in depth-first pre-order (iterative)."""
    order, seen = [], set()
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(reversed(_children(node)))
    return order


def _leaf_text(node) -> str:
    var = node.variable
    if var is None:
        return "AccumulateGrad(a leaf no longer alive)"
    return f"AccumulateGrad(a leaf of shape {_shape(var._data.shape)})"


def grad_fn_chain(node, budget: int = _CHAIN_BUDGET) -> str:
    """``MulBackward0 -> AccumulateGrad(a leaf of shape [1])``; branches in parentheses.

    A node reached a second time is named, not expanded again; after ``budget`` nodes the
    rest is ``...`` and the total count follows (recursion is bounded by the budget).
    """
    expanded: set = set()
    left = [budget]
    cut = [False]

    def render(n) -> str:
        if _is_accumulator(n):
            return _leaf_text(n)
        name = _node_name(n)
        if id(n) in expanded:
            return f"{name} (shared, as above)"
        expanded.add(id(n))
        kids = _children(n)
        if not kids:
            return name
        if left[0] <= 0:
            cut[0] = True
            return f"{name} -> ..."
        left[0] -= 1
        if len(kids) == 1:
            return f"{name} -> {render(kids[0])}"
        return f"{name} -> ({', '.join(render(k) for k in kids)})"

    text = render(node)
    if cut[0]:
        text += f" ({len(_walk([node]))} nodes in all; print(leafgrad.viz.tree(t)) shows them)"
    return text


# ----------------------------------------------------------------------------- the account
def _leaf_line(t: Tensor) -> str:
    fn = t.grad_fn
    mark = getattr(t, "_provenance", None)
    if fn is not None:
        return (
            f"no: it was computed by the op {_op_name(fn)} (grad_fn {_node_name(fn)}) from "
            "inputs of which at least one requires grad, so autograd recorded how to "
            "differentiate it."
        )
    if t._requires_grad:
        if mark == "detach":
            return (
                "yes: it was produced by detach() (or .data), which cuts it off from the graph "
                "it came from, and was then set to require grad, so gradients stop here."
            )
        if mark == "created":
            return (
                "yes: it was created by the user (not computed by an op) and requires grad, "
                "so gradients stop here: a variable, like a network's weights."
            )
        return (
            "yes: it has no grad_fn (no recorded op made it) and it requires grad, so "
            "gradients stop here."
        )
    if mark == "created":
        return (
            "yes: it was created by the user (not computed by an op) and does not require "
            "grad: to autograd it is a constant, like input data."
        )
    if mark == "detach":
        return (
            "yes: it was produced by detach() (or .data): it shares the data of the tensor it "
            "came from but is cut off from its graph, and does not require grad."
        )
    if mark == "no_grad":
        return (
            "yes, by convention: every tensor with requires_grad=False is a leaf. It was "
            "computed in no-grad mode (no_grad, inference_mode or set_grad_enabled(False)), "
            "so no graph was recorded even though an input requires grad."
        )
    return (
        "yes, by convention: every tensor with requires_grad=False is a leaf. It was "
        "computed only from tensors that need no grad (or by an op without a gradient, "
        "such as a comparison; gradients made by backward() or grad() without "
        "create_graph=True are such tensors too), so autograd treats it as a constant."
    )


def _requires_grad_line(t: Tensor) -> str:
    if t.grad_fn is not None:
        return "True, inherited from the inputs of the op that computed it."
    if t._requires_grad:
        return "True, set on this leaf (requires_grad=True or requires_grad_())."
    return "False."


def _current_grad(g) -> str:
    if g is None:
        return "currently None"
    text = f"currently a tensor of shape {_shape(g._data.shape)}"
    if g.grad_fn is not None:
        text += " that has a graph of its own (backward ran with create_graph=True)"
    return text


def _grad_line(t: Tensor) -> str:
    if not t._requires_grad:
        return (
            "never filled: it does not require grad. Call requires_grad_() on a leaf to make "
            "it a variable that gradients reach."
        )
    if t.grad_fn is None:
        return (
            "filled by backward(): gradients accumulate (add up) into it over calls; "
            f"{_current_grad(t._grad)}."
        )
    if t._retains_grad:
        return (
            "filled by backward() because retain_grad() was called on this non-leaf; "
            f"{_current_grad(t._grad)}."
        )
    return (
        "not filled by backward(): it is not a leaf and only leaves keep their gradient "
        "(reading .grad warns and gives None). Call retain_grad() on it before backward(), "
        "or use autograd.grad(output, this_tensor)."
    )


def _graph_line(t: Tensor) -> str:
    fn = t.grad_fn
    if fn is None:
        if t._requires_grad:
            return (
                "a leaf: any graph computed from it ends at its AccumulateGrad node, which "
                "adds the incoming gradient into .grad."
            )
        return "not part of any graph: ops on it record nothing unless another input requires grad."
    nodes = _walk([fn])
    freed = [n for n in nodes if _is_freed(n)]
    if _is_freed(fn):
        names = ", ".join(dict.fromkeys(_node_name(n) for n in freed))
        return (
            "freed: a backward() or autograd.grad() without retain_graph=True already went "
            f"through it and released the saved tensors of {names}. Going through it again "
            "raises RuntimeError; pass retain_graph=True to the earlier call to keep them."
        )
    if freed:
        names = ", ".join(dict.fromkeys(_node_name(n) for n in freed))
        return (
            f"partly freed: its own node is live, but {names} further down released their "
            "saved tensors in an earlier backward without retain_graph=True, so a backward "
            "that needs them raises RuntimeError."
        )
    return (
        "live: its nodes still hold their saved tensors, so backward() or autograd.grad() "
        "can go through it; the first call without retain_graph=True frees them."
    )


def explain(t: Tensor) -> str:
    """A short plain-language account of ``t``: leaf or not and why, its ``.grad``, its graph.

    Raises TypeError for anything but a Tensor.
    """
    if not isinstance(t, Tensor):
        raise TypeError(f"explain() takes a Tensor, got {type(t).__name__}")
    lines = [
        f"Tensor of shape {_shape(t._data.shape)}, dtype {t.dtype}",
        f"- leaf: {_leaf_line(t)}",
        f"- requires_grad: {_requires_grad_line(t)}",
        f"- .grad: {_grad_line(t)}",
        f"- graph: {_graph_line(t)}",
    ]
    if t.grad_fn is not None:
        lines.append(f"- grad_fn chain: {grad_fn_chain(t.grad_fn)}")
    elif t._requires_grad:
        shape = _shape(t._data.shape)
        lines.append(
            f"- grad_fn chain: none; gradients arrive at AccumulateGrad(a leaf of shape {shape})"
        )
    return "\n".join(lines)
