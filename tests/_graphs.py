"""A gradient's graph as node names, to compare with PyTorch's."""


def node_names(fn, depth: int):
    """``(name, [children])`` of a node down to ``depth`` levels (None for no node), the
    last level as names alone."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return fn.name(), [node_names(child, depth - 1) for child, _ in fn.next_functions]


def third_order(m, fn, values, dtype: str):
    """``fn(m, x)``'s graph and its first three derivatives' (of ``sum(y^3)``, then of
    ``sum(g^2)``, then of ``sum(h)``) in library ``m``: ``(graphs, arrays)`` to compare."""
    x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
    y = fn(m, x)
    (g,) = m.autograd.grad((y * y * y).sum(), x, create_graph=True)
    (h,) = m.autograd.grad((g * g).sum(), x, create_graph=True)
    (k,) = m.autograd.grad(h.sum(), x)
    graphs = node_names(y.grad_fn, 2), node_names(g.grad_fn, 4), node_names(h.grad_fn, 3)
    return graphs, [t.detach().numpy() for t in (y, g, h, k)]


def assert_matches(ours, theirs, rtol: float) -> None:
    """``(graphs, arrays)`` from two libraries: the same graphs, and arrays of the same dtype
    and shape equal to ``rtol``."""
    import numpy as np  # why: only the comparisons need NumPy

    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol)


def names_to_leaves(fn) -> list:
    """Every node below ``fn`` (itself included) as ``(depth, name)``, depth first in edge
    order, None for an absent edge: a whole graph to compare with PyTorch's."""
    out, stack = [], [(fn, 0)]
    while stack:
        node, depth = stack.pop()
        out.append((depth, None if node is None else node.name()))
        if node is not None:
            stack.extend((n, depth + 1) for n, _ in reversed(node.next_functions))
    return out
