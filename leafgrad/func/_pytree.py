"""Nested Python containers of tensors (pytrees): flatten to leaves and rebuild.

Containers are tuples, lists, dicts (in key order) and namedtuples; anything else is a leaf.
A spec is a hashable description of the nesting, so two structures compare with ``==``.
"""

from __future__ import annotations

_LEAF = "*"


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree) -> tuple[list, object]:
    """``(leaves, spec)``: the leaves in order and how they nest."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: list):
    if _is_namedtuple(tree):
        return (type(tree), tuple(_flatten(c, leaves) for c in tree))
    if isinstance(tree, (tuple, list)):
        return (type(tree), tuple(_flatten(c, leaves) for c in tree))
    if isinstance(tree, dict):
        keys = tuple(tree.keys())
        return (dict, keys, tuple(_flatten(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return _LEAF


def tree_unflatten(leaves, spec):
    """The structure ``spec`` with ``leaves`` put back in order."""
    it = iter(leaves)
    return _unflatten(it, spec)


def _unflatten(it, spec):
    if spec == _LEAF:
        return next(it)
    kind = spec[0]
    if kind is dict:
        return {k: _unflatten(it, s) for k, s in zip(spec[1], spec[2])}
    children = [_unflatten(it, s) for s in spec[1]]
    if kind is tuple or kind is list:
        return kind(children)
    return kind(*children)  # a namedtuple


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def spec_str(spec) -> str:
    """The nesting written out, e.g. ``(*, [*, *])`` or ``{'a': *}``."""
    if spec == _LEAF:
        return _LEAF
    kind = spec[0]
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {spec_str(s)}" for k, s in zip(spec[1], spec[2])) + "}"
    inner = ", ".join(spec_str(s) for s in spec[1])
    if kind is list:
        return f"[{inner}]"
    if kind is tuple:
        return f"({inner}{',' if len(spec[1]) == 1 else ''})"
    return f"{kind.__name__}({inner})"
