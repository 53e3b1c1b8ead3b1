"""Seeing the graph: Graphviz DOT text, rendered pictures, and a text tree for terminals.

What is drawn, for the tensors given:

- each given tensor (green), with an arrow to its ``grad_fn``;
- ``grad_fn`` nodes (grey), named as PyTorch names them (``MulBackward0``); arrows follow
  ``next_functions``, the way gradients flow, from the output down to the leaves;
- leaves (blue): user-created tensors that require grad, reached through their
  ``AccumulateGrad`` node, shown by name when ``params`` names them
  (``params=dict(model.named_parameters())``);
- saved tensors (orange, dashed link) with their shapes: what a node holds for its backward;
  after a backward without ``retain_graph=True`` only their shapes remain (white, "freed");
- "retains grad" on nodes whose output tensor had ``retain_grad()`` called.

``to_dot`` and ``tree`` need nothing beyond leafgrad; ``render`` needs the optional
``graphviz`` Python package and Graphviz's ``dot`` program (``pip install leafgrad[viz]``).
"""

from __future__ import annotations

from pathlib import Path

from ._tensor import Tensor
from .autograd.explain import (
    _children,
    _is_accumulator,
    _is_freed,
    _node_name,
    _retains_output,
    _saved,
    _shape,
    _walk,
)

__all__ = ["render", "to_dot", "tree"]

INSTALL_HELP = (
    "leafgrad.viz.render() draws with Graphviz, an optional extra that is not installed: "
    "{missing}. Install the Python package with `pip install graphviz` (or "
    "`pip install leafgrad[viz]`) and the Graphviz program `dot` from your system's package "
    "manager (`apt-get install graphviz`, `brew install graphviz`, `conda install graphviz`, "
    "or https://graphviz.org/download/). Without them, leafgrad.viz.to_dot() gives the DOT "
    "text and leafgrad.viz.tree() a text view."
)

_COLORS = {
    "root": "darkolivegreen1",
    "fn": "lightgrey",
    "leaf": "lightblue",
    "saved": "orange",
    "freed": "white",
    "constant": "white",
}


def _check_tensors(tensors: tuple, op: str) -> None:
    if not tensors:
        raise TypeError(f"{op}() needs at least one Tensor")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}() takes Tensors, got {type(t).__name__}")


def _names(params) -> dict:
    """``id(tensor) -> name`` for the tensors of ``params`` (a dict name -> tensor)."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise TypeError(
            "params must be a dict of name -> Tensor, e.g. dict(model.named_parameters()); "
            f"got {type(params).__name__}"
        )
    return {id(v): str(k) for k, v in params.items()}


def _root_label(t: Tensor, i: int, count: int, names: dict) -> str:
    if id(t) in names:
        return names[id(t)]
    if t.grad_fn is None and t._requires_grad:
        return "leaf"
    return "output" if count == 1 else f"output {i}"


def _leaf_label(node, names: dict) -> str:
    var = node.variable
    if var is None:
        return "leaf (no longer alive)"
    return f"{names.get(id(var), 'leaf')}\n{_shape(var._data.shape)}"


def _saved_label(what: str, tensor, shape, freed: bool, names: dict) -> str:
    name = f": {names[id(tensor)]}" if tensor is not None and id(tensor) in names else ""
    return f"{'freed' if freed else 'saved'} {what}{name}\n{_shape(shape)}"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(**attrs) -> str:
    parts = []
    for key, value in attrs.items():
        parts.append(f"{key}={_quote(value) if key == 'label' else value}")
    return "[" + ", ".join(parts) + "]"


def to_dot(*tensors: Tensor, params: dict | None = None) -> str:
    """Graphviz DOT text of the autograd graph behind ``tensors``.

    ``params``: name -> tensor (e.g. ``dict(model.named_parameters())``) to label leaves and
    saved tensors by name. Node ids are stable for a given graph: ``out<i>`` for the given
    tensors, ``fn<k>`` for grad_fn nodes, ``leaf<k>`` for leaves, ``saved<k>_<j>`` for saved
    tensors. Edges go from a node to each entry of its ``next_functions`` (one per entry, so
    ``a * a`` has two edges to the leaf ``a``).
    """
    _check_tensors(tensors, "to_dot")
    names = _names(params)
    lines = [
        "digraph autograd {",
        "  graph [rankdir=TB];",
        '  node [shape=box, style=filled, fontname="Helvetica", fontsize=11];',
    ]
    ids: dict = {}  # id(node), or id(variable) for a leaf -> DOT id
    counts = {"fn": 0, "leaf": 0}

    def leaf_id(key) -> str:
        if key not in ids:
            ids[key] = f"leaf{counts['leaf']}"
            counts["leaf"] += 1
        return ids[key]

    def node_id(node) -> str:
        if _is_accumulator(node):
            var = node.variable
            return leaf_id(id(var) if var is not None else id(node))
        if id(node) not in ids:
            ids[id(node)] = f"fn{counts['fn']}"
            counts["fn"] += 1
        return ids[id(node)]

    roots = []
    for i, t in enumerate(tensors):
        label = _root_label(t, i, len(tensors), names)
        shape = _shape(t._data.shape)
        if t.grad_fn is not None:
            text = f"{label}\n{shape}" + ("\nretains grad" if t._retains_grad else "")
            lines.append(f"  out{i} {_attrs(label=text, fillcolor=_COLORS['root'])};")
            lines.append(f"  out{i} -> {node_id(t.grad_fn)};")
            roots.append(t.grad_fn)
        elif t._requires_grad:
            key = leaf_id(id(t))
            text = f"{label}\n{shape}"
            lines.append(f"  {key} {_attrs(label=text, fillcolor=_COLORS['leaf'])};")
        else:
            text = f"{label}\n{shape}\nrequires_grad=False (no graph)"
            lines.append(f"  out{i} {_attrs(label=text, fillcolor=_COLORS['constant'])};")

    drawn_leaves = {ids[id(t)] for t in tensors if t.grad_fn is None and t._requires_grad}
    for node in _walk(roots):
        nid = node_id(node)
        if _is_accumulator(node):
            if nid not in drawn_leaves:
                drawn_leaves.add(nid)
                text = _leaf_label(node, names)
                lines.append(f"  {nid} {_attrs(label=text, fillcolor=_COLORS['leaf'])};")
            continue
        freed = _is_freed(node)
        text = _node_name(node)
        style = "filled"
        extra = {}
        if _retains_output(node):
            text += "\nretains grad"
            extra = {"color": "forestgreen", "penwidth": 2}
        if freed:
            text += "\n(saved tensors freed)"
            style = '"filled,dashed"'
        lines.append(
            f"  {nid} {_attrs(label=text, style=style, fillcolor=_COLORS['fn'], **extra)};"
        )
        for j, (what, tensor, shape) in enumerate(_saved(node)):
            sid = f"saved{nid[2:]}_{j}"
            text = _saved_label(what, tensor, shape, freed, names)
            if freed:
                attrs = _attrs(label=text, style='"filled,dashed"', fillcolor=_COLORS["freed"])
            else:
                attrs = _attrs(label=text, fillcolor=_COLORS["saved"])
            lines.append(f"  {sid} {attrs};")
            lines.append(f"  {sid} -> {nid} [style=dashed, arrowhead=none];")
        for nxt, _ in node.next_functions:
            if nxt is not None:
                lines.append(f"  {nid} -> {node_id(nxt)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(*tensors: Tensor, path, params: dict | None = None, format: str | None = None) -> str:
    """Draw the graph behind ``tensors`` into the file ``path``; returns the path written.

    ``format`` (``"svg"``, ``"png"``, ``"pdf"``, ...) defaults to the suffix of ``path``,
    else SVG. The file is written exactly at ``path``. Raises ImportError when the
    ``graphviz`` Python package is missing and RuntimeError when Graphviz's ``dot`` program
    is, both saying how to install them.
    """
    fmt = format or Path(path).suffix.lstrip(".").lower() or "svg"
    source = to_dot(*tensors, params=params)
    try:
        import graphviz  # why: graphviz is an optional extra (pip install leafgrad[viz])
    except ImportError as exc:
        raise ImportError(INSTALL_HELP.format(missing="the Python package `graphviz`")) from exc
    not_found = getattr(graphviz, "ExecutableNotFound", None)
    try:
        data = graphviz.Source(source).pipe(format=fmt)
    except Exception as exc:
        if not_found is not None and isinstance(exc, not_found):
            raise RuntimeError(INSTALL_HELP.format(missing="the program `dot`")) from exc
        raise
    Path(path).write_bytes(data)
    return str(path)


def _tree_text(node, names: dict, saved: bool) -> str:
    if _is_accumulator(node):
        var = node.variable
        if var is None:
            return "AccumulateGrad: a leaf no longer alive"
        return f"AccumulateGrad: {names.get(id(var), 'leaf')} {_shape(var._data.shape)}"
    text = _node_name(node)
    if _retains_output(node):
        text += "  [retains grad]"
    freed = _is_freed(node)
    if freed:
        text += "  [saved tensors freed]"
    if saved:
        items = _saved(node)
        if items:
            parts = []
            for what, tensor, shape in items:
                name = (
                    f" ({names[id(tensor)]})" if tensor is not None and id(tensor) in names else ""
                )
                parts.append(f"{what}{name} {_shape(shape)}")
            text += ("  freed: " if freed else "  saved: ") + ", ".join(parts)
    return text


def tree(*tensors: Tensor, params: dict | None = None, saved: bool = True) -> str:
    """An indented text tree of the graph behind ``tensors``, for ``print()`` in a terminal.

    Each grad_fn node lists its children (its distinct ``next_functions``; ``(x2)`` when an
    input is used twice). A node reached again is not expanded again. ``saved=False`` leaves
    out the shapes of saved tensors.
    """
    _check_tensors(tensors, "tree")
    names = _names(params)
    lines: list = []
    shown: set = set()
    for i, t in enumerate(tensors):
        label = _root_label(t, i, len(tensors), names)
        head = f"{label} {_shape(t._data.shape)}"
        if t.grad_fn is None:
            if t._requires_grad:
                head += "  (leaf: gradients accumulate into its .grad)"
            else:
                head += "  (requires_grad=False: no graph)"
            lines.append(head)
            continue
        if t._retains_grad:
            head += "  [retains grad]"
        lines.append(head)
        stack = [(t.grad_fn, "", True, 1)]
        while stack:
            node, prefix, last, uses = stack.pop()
            text = _tree_text(node, names, saved)
            if uses > 1:
                text += f"  (x{uses})"
            again = id(node) in shown and not _is_accumulator(node)
            if again:
                text = f"{_node_name(node)}  (shared, see above)"
            lines.append(prefix + ("└─ " if last else "├─ ") + text)
            if again:
                continue
            shown.add(id(node))
            kids = _children(node)
            counts = [sum(1 for n, _ in node.next_functions if n is k) for k in kids]
            child_prefix = prefix + ("   " if last else "│  ")
            for j in range(len(kids) - 1, -1, -1):
                stack.append((kids[j], child_prefix, j == len(kids) - 1, counts[j]))
    return "\n".join(lines)
