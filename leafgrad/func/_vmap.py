"""``vmap``: run a function written for one example on a whole batch, once.

The mapped dims of the inputs move to the front of BatchedTensors (``_batched.py``) of a
new vmap level; the function runs once on them, every primitive applying its batching rule
(``ops/_batch*.py``), and the batch dims of the outputs move to ``out_dims``.
"""

from __future__ import annotations

import functools

from .. import _random
from .._batched import STATE, VmapLevel, batched, is_batched_at, next_level
from .._engine.grad_mode import count_special
from .._tensor import Tensor
from ..ops.joining import cat
from ._pytree import _is_namedtuple, tree_flatten, tree_unflatten

_RANDOMNESS = ("error", "different", "same")


def _name(func) -> str:
    return getattr(func, "__name__", repr(func))


def _broadcast_dims(dims, tree, caller: str, what: str, leaves: list) -> None:
    """One dim per leaf of ``tree``: ``dims`` is an int/None for a whole subtree, or a
    container of the same kind and length as ``tree`` (recursively)."""
    if dims is None or (isinstance(dims, int) and not isinstance(dims, bool)):
        leaves.extend([dims] * len(tree_flatten(tree)[0]))
        return
    same_kind = (
        isinstance(dims, (tuple, list))
        and isinstance(tree, (tuple, list))
        and (type(dims) is type(tree) or (isinstance(dims, tuple) and _is_namedtuple(tree)))
        and len(dims) == len(tree)
    ) or (isinstance(dims, dict) and isinstance(tree, dict) and dims.keys() == tree.keys())
    if not same_kind:
        if not isinstance(dims, (tuple, list, dict)):
            raise ValueError(
                f"{caller}: expected `{what}` to be int or a (potentially nested) tuple matching "
                f"the structure of inputs, got: {type(dims)}."
            )
        raise ValueError(
            f"{caller}: {what} is not compatible with the structure of `inputs`: {what} is "
            f"{dims!r} but the inputs have {_describe(tree)}."
        )
    if isinstance(dims, dict):
        for k in tree:
            _broadcast_dims(dims[k], tree[k], caller, what, leaves)
    else:
        for d, t in zip(dims, tree):
            _broadcast_dims(d, t, caller, what, leaves)


def _describe(tree) -> str:
    if isinstance(tree, dict):
        return f"a dict with keys {list(tree)}"
    if isinstance(tree, (tuple, list)):
        return f"a {type(tree).__name__} of length {len(tree)}"
    return f"a {type(tree).__name__}"


def _check(randomness, chunk_size) -> None:
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` mapped over dim ``in_dims`` of its inputs, as ``torch.func.vmap``.

    ``in_dims``: an int (every input), None (not mapped), or a pytree prefix of the
    positional arguments (tuples, lists, dicts) of ints and Nones; keyword arguments are
    not mapped. ``out_dims`` likewise for the outputs (None: an output that is the same for
    every example). ``randomness``: random ops inside raise ('error'), draw per example
    ('different') or once for the batch ('same'). ``chunk_size``: run that many examples at
    a time and concatenate (less memory, same result).
    """
    _check(randomness, chunk_size)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        caller = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
        if isinstance(in_dims, (list, dict)) or not (
            in_dims is None or isinstance(in_dims, (int, tuple))
        ):
            raise ValueError(
                f"{caller}: expected `in_dims` to be int or a (potentially nested) tuple "
                f"matching the structure of inputs, got: {type(in_dims)}."
            )
        if in_dims is None:
            raise ValueError(
                f"{caller}: expected `in_dims` to be int or a (potentially nested) tuple "
                f"matching the structure of inputs, got: {type(in_dims)}."
            )
        if isinstance(in_dims, tuple) and len(in_dims) != len(args):
            raise ValueError(
                f"{caller}: in_dims is not compatible with the structure of `inputs`: in_dims "
                f"has {len(in_dims)} elements but {len(args)} positional inputs were given."
            )
        leaves, spec = tree_flatten(args)
        dims: list = []
        _broadcast_dims(in_dims, args, caller, "in_dims", dims)
        size, moved = None, []
        for x, d in zip(leaves, dims):
            if d is None:
                moved.append(None)
                continue
            if not isinstance(x, Tensor):
                raise ValueError(
                    f"{caller}: Got in_dim={d} for an input but the input is of type "
                    f"{type(x)}. We cannot vmap over non-Tensor arguments, please use None as "
                    "the respective in_dim"
                )
            n = x.dim()
            if not -n <= d < n:
                raise ValueError(
                    f"{caller}: Got in_dim={d} for some input, but that input is a Tensor of "
                    f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}."
                )
            d = d % n
            moved.append(d)
            if size is None:
                size = x.shape[d]
            elif x.shape[d] != size:
                sizes = [x.shape[dd] for x, dd in zip(leaves, moved) if dd is not None]
                raise ValueError(
                    "vmap: Expected all tensors to have the same size in the mapped dimension, "
                    f"got sizes {sizes} for the mapped dimension"
                )
        if size is None:
            raise ValueError(
                f"{caller}: at least one input must be a Tensor mapped over a dim (in_dims "
                "other than None)"
            )
        if chunk_size is None or chunk_size >= size:
            return _run(func, leaves, moved, spec, kwargs, size, randomness, out_dims)
        chunks = []
        # PyTorch restarts the generator at each chunk for 'same': every chunk draws alike
        state = _random.get_rng_state() if randomness == "same" else None
        for start in range(0, size, chunk_size):
            if state is not None:
                _random.set_rng_state(state)
            stop = min(start + chunk_size, size)
            part = [
                x if d is None else x.narrow(d, start, stop - start) for x, d in zip(leaves, moved)
            ]
            chunks.append(_run(func, part, moved, spec, kwargs, stop - start, randomness, out_dims))
        return _concatenate(chunks, out_dims)

    return wrapped


def _run(func, leaves, dims, spec, kwargs, size, randomness, out_dims):
    level = VmapLevel(next_level(), size, randomness)
    inputs = [
        x if d is None else batched(x.movedim(d, 0) if d else x, level.level)
        for x, d in zip(leaves, dims)
    ]
    active = STATE.active
    if not active:
        count_special(True)
    active.append(level)
    try:
        output = func(*tree_unflatten(inputs, spec), **kwargs)
    finally:
        active.pop()
        if not active:
            count_special(False)
    out_leaves, out_spec = tree_flatten(output)
    odims: list = []
    _broadcast_out_dims(out_dims, output, func, odims)
    results = []
    for o, d in zip(out_leaves, odims):
        if d is None:  # passed through as it is, a non-Tensor too (as PyTorch)
            if is_batched_at(o, level.level):
                raise ValueError(
                    f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor "
                    "when out_dim is None"
                )
            results.append(o)
            continue
        if not isinstance(o, Tensor):
            raise ValueError(
                f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                f"{type(o)}. Did you mean to set out_dims= to None for output?"
            )
        value = o._value if is_batched_at(o, level.level) else _expanded(o, size)
        n = value.dim()
        if not -n <= d < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
            )
        results.append(value.movedim(0, d) if d % n else value)
    return tree_unflatten(results, out_spec)


def _expanded(o: Tensor, size: int) -> Tensor:
    """An output the same for every example, repeated along a new batch dim."""
    return o.unsqueeze(0).expand((size,) + tuple(o.shape))


def _broadcast_out_dims(out_dims, output, func, odims: list) -> None:
    caller = f"vmap({_name(func)}, ..., out_dims={out_dims})"
    try:
        _broadcast_dims(out_dims, output, caller, "out_dims", odims)
    except ValueError as exc:
        raise ValueError(str(exc).replace("in_dims", "out_dims")) from None


def _concatenate(chunks: list, out_dims):
    """The per-chunk outputs joined along their batch dims."""
    spec = tree_flatten(chunks[0])[1]
    odims: list = []
    _broadcast_dims(out_dims, chunks[0], "vmap", "out_dims", odims)
    columns = zip(*(tree_flatten(c)[0] for c in chunks))
    joined = []
    for parts, d in zip(columns, odims):
        joined.append(parts[0] if d is None else cat(list(parts), d))
    return tree_unflatten(joined, spec)
