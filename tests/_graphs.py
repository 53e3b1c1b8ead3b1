"""A gradient's graph as node names, to compare with PyTorch's."""


def node_names(fn, depth: int):
    """``(name, [children])`` of a node down to ``depth`` levels (None for no node), the
    last level as names alone."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return fn.name(), [node_names(child, depth - 1) for child, _ in fn.next_functions]
