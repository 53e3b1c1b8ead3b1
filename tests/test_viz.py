"""leafgrad.viz: DOT text of the graph, the text tree, and render() as an optional extra.

The DOT output is read back with a small parser of node and edge lines (and with pydot too,
when it is installed), then checked node by node and edge by edge.
"""

import re
import shutil
import sys
import types

import pytest

import leafgrad
from leafgrad import viz

# ----- a tiny DOT reader: `id [k=v, ...];` and `a -> b [k=v, ...];` lines -----

_ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^,\]\s]+)')
_NODE = re.compile(r"^\s*(\w+)\s*\[(.*)\];$")
_EDGE = re.compile(r"^\s*(\w+)\s*->\s*(\w+)\s*(?:\[(.*)\])?;$")


def _unquote(value: str) -> str:
    if value.startswith('"'):
        return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value[1:-1])
    return value


def parse_dot(text: str):
    """``(nodes, edges)``: ``{id: attrs}`` and ``[(src, dst, attrs)]`` in file order."""
    lines = text.strip().splitlines()
    assert lines[0] == "digraph autograd {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if line.strip().startswith(("graph ", "node ", "edge ")):
            continue
        edge = _EDGE.match(line)
        if edge:
            attrs = {k: _unquote(v) for k, v in _ATTR.findall(edge.group(3) or "")}
            edges.append((edge.group(1), edge.group(2), attrs))
            continue
        node = _NODE.match(line)
        assert node, f"not a node or edge line: {line!r}"
        assert node.group(1) not in nodes, f"node {node.group(1)} declared twice"
        nodes[node.group(1)] = {k: _unquote(v) for k, v in _ATTR.findall(node.group(2))}
    for src, dst, _ in edges:
        assert src in nodes and dst in nodes, f"edge {src} -> {dst} to an undeclared node"
    return nodes, edges


def by_label(nodes: dict) -> dict:
    """``{label: id}`` of every node but saved tensors (whose labels may repeat)."""
    out = {}
    for nid, attrs in nodes.items():
        if nid.startswith("saved"):
            continue
        assert attrs["label"] not in out, f"label {attrs['label']!r} is not unique"
        out[attrs["label"]] = nid
    return out


def graph_edges(edges) -> list:
    """The next_functions edges (saved-tensor links are dashed)."""
    return [(s, d) for s, d, a in edges if a.get("style") != "dashed"]


def lines(*rows: str) -> str:
    return "\n".join(rows)


def saved_of(nodes, edges, nid) -> list:
    return sorted(nodes[s]["label"] for s, d, a in edges if d == nid and a.get("style") == "dashed")


def mlp():
    leafgrad.manual_seed(0)
    x = leafgrad.randn(4, 3)
    W = leafgrad.randn(3, 2, requires_grad=True)
    b = leafgrad.zeros(2, requires_grad=True)
    h = x @ W + b
    h.retain_grad()
    loss = leafgrad.tanh(h).sum()
    return x, W, b, h, loss


# ----- to_dot -----


def test_to_dot_small_mlp_nodes_edges_params_and_saved_shapes():
    _, W, b, _, loss = mlp()
    nodes, edges = parse_dot(viz.to_dot(loss, params={"W": W, "b": b}))
    ids = by_label(nodes)
    fn_labels = {
        "SumBackward0",
        "TanhBackward0",
        "AddBackward0\nretains grad",
        "MmBackward0",
    }
    leaves = {"W\n[3, 2]", "b\n[2]"}
    assert fn_labels | leaves | {"output\n[]"} <= set(ids)
    assert {nodes[ids[k]]["fillcolor"] for k in leaves} == {"lightblue"}
    assert {nodes[ids[k]]["fillcolor"] for k in fn_labels} == {"lightgrey"}
    assert nodes[ids["output\n[]"]]["fillcolor"] == "darkolivegreen1"

    expected = {
        ("output\n[]", "SumBackward0"),
        ("SumBackward0", "TanhBackward0"),
        ("TanhBackward0", "AddBackward0\nretains grad"),
        ("AddBackward0\nretains grad", "MmBackward0"),
        ("AddBackward0\nretains grad", "b\n[2]"),
        ("MmBackward0", "W\n[3, 2]"),
    }
    got = [(nodes[s]["label"], nodes[d]["label"]) for s, d in graph_edges(edges)]
    assert sorted(got) == sorted(expected)

    # Saved tensors with their shapes, as PyTorch saves them: x needs no grad but is saved
    # (W's gradient reads it), W is not (x's gradient is not wanted); add saves nothing.
    assert saved_of(nodes, edges, ids["MmBackward0"]) == ["saved input 0\n[4, 3]"]
    assert saved_of(nodes, edges, ids["AddBackward0\nretains grad"]) == []
    assert saved_of(nodes, edges, ids["TanhBackward0"]) == ["saved result\n[4, 2]"]
    saved = [n for n in nodes if n.startswith("saved")]
    assert saved and {nodes[n]["fillcolor"] for n in saved} == {"orange"}

    # The retained tensor is marked on its node.
    retained = nodes[ids["AddBackward0\nretains grad"]]
    assert retained["color"] == "forestgreen" and retained["penwidth"] == "2"


def test_to_dot_after_backward_marks_freed_nodes_and_keeps_shapes():
    _, W, b, _, loss = mlp()
    loss.backward()
    nodes, edges = parse_dot(viz.to_dot(loss, params={"W": W, "b": b}))
    ids = by_label(nodes)
    mm = ids["MmBackward0\n(saved tensors freed)"]
    assert nodes[mm]["style"] == "filled,dashed"
    assert saved_of(nodes, edges, mm) == ["freed input 0\n[4, 3]"]
    assert "SumBackward0\n(saved tensors freed)" in ids
    assert all(nodes[n]["label"].startswith("freed") for n in nodes if n.startswith("saved"))


def test_to_dot_edges_follow_next_functions_one_per_entry():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    nodes, edges = parse_dot(viz.to_dot(b))
    ids = by_label(nodes)
    assert graph_edges(edges) == [
        ("out0", ids["MulBackward0"]),
        (ids["MulBackward0"], ids["leaf\n[1]"]),
        (ids["MulBackward0"], ids["leaf\n[1]"]),
    ]


def test_to_dot_shared_nodes_of_several_outputs_appear_once():
    a = leafgrad.tensor([3.0], requires_grad=True)
    h = a * 2.0
    y1, y2 = h.sin(), h.cos()
    nodes, edges = parse_dot(viz.to_dot(y1, y2))
    labels = [n["label"] for n in nodes.values() if not n["label"].startswith("saved")]
    assert sorted(labels) == sorted(
        ["output 0\n[1]", "output 1\n[1]", "SinBackward0", "CosBackward0", "MulBackward0",
         "leaf\n[1]"]
    )  # fmt: skip
    ids = by_label(nodes)
    into_mul = [s for s, d in graph_edges(edges) if d == ids["MulBackward0"]]
    assert sorted(into_mul) == sorted([ids["SinBackward0"], ids["CosBackward0"]])


def test_to_dot_of_a_leaf_and_of_a_constant():
    W = leafgrad.zeros(3, 2, requires_grad=True)
    nodes, edges = parse_dot(viz.to_dot(W, params={"W": W}))
    assert nodes == {"leaf0": {"label": "W\n[3, 2]", "fillcolor": "lightblue"}}
    assert edges == []

    c = leafgrad.tensor([5.0])
    nodes, edges = parse_dot(viz.to_dot(c * c))
    assert nodes == {
        "out0": {"label": "output\n[1]\nrequires_grad=False (no graph)", "fillcolor": "white"}
    }
    assert edges == []


def test_to_dot_root_that_retains_grad_is_marked():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    nodes, _ = parse_dot(viz.to_dot(b))
    assert nodes["out0"]["label"] == "output\n[1]\nretains grad"
    assert nodes["fn0"]["label"] == "MulBackward0\nretains grad"


def test_to_dot_root_leaf_is_the_same_box_as_its_accumulator():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * 2.0
    nodes, edges = parse_dot(viz.to_dot(b, a, params={"a": a}))
    ids = by_label(nodes)
    assert sorted(ids) == sorted(["output 0\n[1]", "MulBackward0", "a\n[1]"])
    assert saved_of(nodes, edges, ids["MulBackward0"]) == []  # saves the number 2.0 only
    assert (ids["MulBackward0"], ids["a\n[1]"]) in graph_edges(edges)


def test_to_dot_escapes_quotes_and_backslashes_in_names():
    w = leafgrad.zeros(2, requires_grad=True)
    name = 'layer"1"\\w'
    nodes, _ = parse_dot(viz.to_dot((w * 2.0).sum(), params={name: w}))
    assert f"{name}\n[2]" in by_label(nodes)


def test_to_dot_is_deterministic():
    _, W, _, _, loss = mlp()
    assert viz.to_dot(loss, params={"W": W}) == viz.to_dot(loss, params={"W": W})


def test_to_dot_rejects_bad_arguments():
    a = leafgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="at least one Tensor"):
        viz.to_dot()
    with pytest.raises(TypeError, match="takes Tensors"):
        viz.to_dot([1.0])
    with pytest.raises(TypeError, match="dict"):
        viz.to_dot(a * 2.0, params=[("a", a)])


def test_to_dot_is_read_the_same_by_pydot():
    pydot = pytest.importorskip("pydot")
    _, W, b, _, loss = mlp()
    text = viz.to_dot(loss, params={"W": W, "b": b})
    ours_nodes, ours_edges = parse_dot(text)
    (graph,) = pydot.graph_from_dot_data(text)
    theirs = {n.get_name() for n in graph.get_nodes()} - {"node", "graph", "edge"}
    assert theirs == set(ours_nodes)
    assert len(graph.get_edges()) == len(ours_edges)


# ----- tree -----


def test_tree_of_a_small_mlp():
    _, W, b, _, loss = mlp()
    assert viz.tree(loss, params={"W": W, "b": b}) == lines(
        "output []",
        "└─ SumBackward0",
        "   └─ TanhBackward0  saved: result [4, 2]",
        "      └─ AddBackward0  [retains grad]",
        "         ├─ MmBackward0  saved: input 0 [4, 3]",
        "         │  └─ AccumulateGrad: W [3, 2]",
        "         └─ AccumulateGrad: b [2]",
    )
    assert viz.tree(loss, saved=False) == lines(
        "output []",
        "└─ SumBackward0",
        "   └─ TanhBackward0",
        "      └─ AddBackward0  [retains grad]",
        "         ├─ MmBackward0",
        "         │  └─ AccumulateGrad: leaf [3, 2]",
        "         └─ AccumulateGrad: leaf [2]",
    )


def test_tree_of_the_spec_product_before_and_after_backward():
    a = leafgrad.tensor([3.0], requires_grad=True)
    b = a * a
    b.retain_grad()
    assert viz.tree(b, params={"a": a}) == (
        "output [1]  [retains grad]\n"
        "└─ MulBackward0  [retains grad]  saved: input 0 (a) [1], input 1 (a) [1]\n"
        "   └─ AccumulateGrad: a [1]  (x2)"
    )
    b.backward()
    assert viz.tree(b, params={"a": a}) == (
        "output [1]  [retains grad]\n"
        "└─ MulBackward0  [retains grad]  [saved tensors freed]  freed: input 0 [1], input 1 [1]\n"
        "   └─ AccumulateGrad: a [1]  (x2)"
    )


def test_tree_names_a_shared_node_once():
    a = leafgrad.tensor([3.0], requires_grad=True)
    h = a * 2.0
    y = h.sin() + h.cos()
    assert viz.tree(y, saved=False) == lines(
        "output [1]",
        "└─ AddBackward0",
        "   ├─ SinBackward0",
        "   │  └─ MulBackward0",
        "   │     └─ AccumulateGrad: leaf [1]",
        "   └─ CosBackward0",
        "      └─ MulBackward0  (shared, see above)",
    )


def test_tree_of_leaves_and_constants():
    a = leafgrad.tensor([3.0], requires_grad=True)
    assert viz.tree(a, params={"a": a}) == "a [1]  (leaf: gradients accumulate into its .grad)"
    assert viz.tree(leafgrad.tensor([5.0])) == "output [1]  (requires_grad=False: no graph)"


def test_tree_of_a_deep_graph_does_not_recurse():
    x = leafgrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    lines = viz.tree(y, saved=False).splitlines()
    assert len(lines) == 3002
    assert lines[-1].endswith("└─ AccumulateGrad: leaf [1]")


# ----- render -----


def test_render_without_graphviz_package_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz -> ImportError
    a = leafgrad.tensor([3.0], requires_grad=True)
    with pytest.raises(ImportError) as info:
        viz.render(a * a, path=tmp_path / "g.svg")
    message = str(info.value)
    assert "pip install graphviz" in message
    assert "apt-get install graphviz" in message
    assert "the Python package `graphviz`" in message
    assert "to_dot()" in message
    assert not (tmp_path / "g.svg").exists()


def _fake_graphviz(calls, missing_dot=False):
    module = types.ModuleType("graphviz")

    class ExecutableNotFound(RuntimeError):
        pass

    class Source:
        def __init__(self, source):
            self.source = source

        def pipe(self, format):
            if missing_dot:
                raise ExecutableNotFound("failed to execute 'dot'")
            calls.append((self.source, format))
            return f"<{format}>".encode()

    module.Source = Source
    module.ExecutableNotFound = ExecutableNotFound
    return module


def test_render_without_dot_program_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "graphviz", _fake_graphviz([], missing_dot=True))
    a = leafgrad.tensor([3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="the program `dot`") as info:
        viz.render(a * a, path=tmp_path / "g.png")
    assert "pip install graphviz" in str(info.value)


def test_render_writes_the_format_of_the_suffix_or_the_one_asked(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setitem(sys.modules, "graphviz", _fake_graphviz(calls))
    _, W, _, _, loss = mlp()
    out = viz.render(loss, path=tmp_path / "g.png", params={"W": W})
    assert out == str(tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes() == b"<png>"
    assert calls == [(viz.to_dot(loss, params={"W": W}), "png")]
    viz.render(loss, path=tmp_path / "g", format="pdf")
    assert (tmp_path / "g").read_bytes() == b"<pdf>"
    viz.render(loss, path=str(tmp_path / "plain"))
    assert calls[-1][1] == "svg"


def test_render_with_real_graphviz(tmp_path):
    pytest.importorskip("graphviz")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    _, W, b, _, loss = mlp()
    path = viz.render(loss, path=tmp_path / "g.svg", params={"W": W, "b": b})
    with open(path) as f:
        text = f.read()
    assert "<svg" in text and "MmBackward0" in text


def test_viz_is_importable_from_the_package():
    assert leafgrad.viz is viz
    assert viz.__all__ == ["render", "to_dot", "tree"]
