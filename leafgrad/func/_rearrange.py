"""``torch.func.rearrange``: einops' ``rearrange`` without einops. A pattern such as
``"b h w c -> b (h w) c"`` names the input's axes on the left and says how to permute,
split (``(h w)`` on the left, with sizes in ``axes_lengths``) and merge (``(h w)`` on the
right) them; ``...`` stands for the axes not named, ``1`` or ``()`` for an axis of size 1.
The result is a reshape and a permute, so it is differentiable and a view where it can be."""

from __future__ import annotations

import math
import re

from .._tensor import Tensor
from ..ops.joining import stack

_ELLIPSIS = "…"


class DimensionBindError(Exception):
    """The axis sizes a pattern implies do not fit the tensor (functorch.dim's error)."""


def _parse_side(text: str) -> list:
    """The side's top-level elements: a name, ``1``, ``...``, or a list (a parenthesized group)."""
    elements, group = [], None
    for token in re.findall(r"\.\.\.|\(|\)|[^\s()]+", text.replace(_ELLIPSIS, "...")):
        if token == "(":
            if group is not None:
                raise ValueError(f"Imbalanced parentheses in expression: '{text}'")
            group = []
        elif token == ")":
            if group is None:
                raise ValueError(f"Imbalanced parentheses in expression: '{text}'")
            elements.append(group)
            group = None
        else:
            if token.isdigit() and token != "1":
                raise ValueError("rearrange only supports unnamed axes of size 1")
            if token != "..." and token != "1" and not token.isidentifier():
                raise ValueError(f"Invalid axis name '{token}' in rearrange pattern '{text}'")
            (elements if group is None else group).append(token)
    if group is not None:
        raise ValueError(f"Imbalanced parentheses in expression: '{text}'")
    return elements


def _names(elements) -> list:
    flat = [n for e in elements for n in (e if isinstance(e, list) else [e])]
    return [n for n in flat if n != "1"]


def _check_duplicates(names) -> None:
    seen = set()
    for n in names:
        if n in seen and n != "...":
            raise ValueError(f"Indexing expression contains duplicate dimension '{n}'")
        seen.add(n)


def _bind_left(left, shape, axes_lengths) -> tuple[list, dict]:
    """The elementary axes of the left side (ellipsis expanded) and every axis's size."""
    ellipsis_at = [i for i, e in enumerate(left) if e == "..."]
    if any(isinstance(e, list) and "..." in e for e in left):
        raise ValueError("Ellipsis in parenthesis on the left side is not allowed")
    n_named = len(left) - len(ellipsis_at)
    if (not ellipsis_at and n_named != len(shape)) or n_named > len(shape):
        raise ValueError(
            f"Number of dimensions in pattern ({n_named}) must be equal to the number of "
            f"dimensions in the tensor ({len(shape)})"
        )
    n_ellipsis = len(shape) - n_named
    sizes, elementary, dim = dict(axes_lengths), [], 0
    for element in left:
        if element == "...":
            for k in range(n_ellipsis):
                sizes[f"{_ELLIPSIS}{k}"] = shape[dim]
                elementary.append(f"{_ELLIPSIS}{k}")
                dim += 1
            continue
        group = element if isinstance(element, list) else [element]
        size, known, unknown = shape[dim], 1, []
        for name in group:
            if name == "1":
                continue
            if name in sizes:
                known *= sizes[name]
            else:
                unknown.append(name)
        if len(unknown) > 1:
            raise DimensionBindError(
                f"cannot infer the sizes of two dimensions at once {unknown[0]} and {unknown[1]}"
            )
        if unknown:
            if known == 0 or size % known:
                raise DimensionBindError(
                    f"inferred dimension does not evenly fit into larger dimension: {size} vs "
                    f"{known} (pattern group {group})"
                )
            sizes[unknown[0]] = size // known
        elif known != size:
            raise DimensionBindError(
                f"Dimension sizes to do not match ({size} != {known}) for the pattern group {group}"
            )
        elementary += [n for n in group if n != "1"]
        dim += 1
    return elementary, sizes


def rearrange(tensor, pattern: str, **axes_lengths: int) -> Tensor:
    """``tensor`` (or a list of tensors, stacked on a new first axis) reordered by ``pattern``."""
    if isinstance(tensor, (list, tuple)):
        tensor = stack(list(tensor))
    if pattern.count("->") != 1:
        raise ValueError("Pattern must contain a single '->' separator")
    left_text, right_text = pattern.split("->")
    left, right = _parse_side(left_text), _parse_side(right_text)
    left_names, right_names = _names(left), _names(right)
    _check_duplicates(left_names)
    _check_duplicates(right_names)
    one_sided = set(left_names) ^ set(right_names)
    if one_sided:
        raise ValueError(
            f"Identifiers only on one side of rearrange expression (should be on both): {one_sided}"
        )
    unused = set(axes_lengths) - set(left_names)
    if unused:
        raise ValueError(f"Identifiers not found in rearrange expression: {unused}")
    elementary, sizes = _bind_left(left, tuple(tensor.shape), axes_lengths)
    dots = [n for n in elementary if n.startswith(_ELLIPSIS)]
    groups = []  # each output axis: the elementary axes merged into it ([] : size 1)
    for element in right:
        if element == "...":
            groups += [[n] for n in dots]
            continue
        names = []
        for name in element if isinstance(element, list) else [element]:
            names += dots if name == "..." else [] if name == "1" else [name]
        groups.append(names)
    order = [n for g in groups for n in g]
    x = tensor.reshape(*[sizes[n] for n in elementary])
    x = x.permute(*[elementary.index(n) for n in order]) if order else x
    return x.reshape(*[math.prod(sizes[n] for n in g) for g in groups])
