"""vmap by a loop over the examples, for functions whose index or key arguments pick values
per example (``x[idx]``, ``x[idx] = v``, ``index_select``, ``bincount`` ...).

Their index is read as NumPy values before any primitive runs, so a primitive-level rule
never sees that it is batched (and a batched tensor's values are unreadable one example at a
time). When an index argument is batched, the function runs once per example, on each
batched argument's example (a view of its batch value, so in-place writes land there and
autograd records the selects) and the results are stacked: PyTorch's own fallback for ops
without a batching rule does the same.
"""

from __future__ import annotations

import functools
import inspect

from .._batched import BatchedTensor, batched
from .._engine.grad_mode import SPECIAL


def _batched_in(value) -> list:
    if type(value) is BatchedTensor:
        return [value]
    if isinstance(value, (tuple, list)):
        return [v for v in value if type(v) is BatchedTensor]
    return []


def _holds_batched(entries: tuple) -> bool:
    for v in entries:
        if type(v) is BatchedTensor:
            return True
    return False


def batched_check(fn, names: tuple):
    """A test ``(args, kwargs) -> bool``: whether an argument of ``fn`` named in ``names`` is
    batched (a tensor, or a key tuple holding one), found by position or keyword without
    binding the signature (these decorators wrap hot paths such as ``x[key]``)."""
    parameters = list(inspect.signature(fn).parameters)
    where = tuple((parameters.index(name), name) for name in names)

    def any_batched(args, kwargs) -> bool:
        for position, name in where:
            value = args[position] if position < len(args) else kwargs.get(name)
            if type(value) is BatchedTensor or (type(value) is tuple and _holds_batched(value)):
                return True
        return False

    return any_batched


def _example(value, level: int, i: int):
    """Example ``i`` of ``value`` at ``level`` (entries of a key tuple too); others as they are."""
    if type(value) is BatchedTensor:
        return value._value[i] if value._level == level else value
    if isinstance(value, (tuple, list)) and any(type(v) is BatchedTensor for v in value):
        return type(value)(_example(v, level, i) for v in value)
    return value


def loops_over_examples(
    op: str, indices: tuple, inplace: str | None = None, refuse_masks: bool = False
):
    """Decorate ``fn`` to run per example when one of the arguments named in ``indices`` (a
    tensor, or a key tuple holding tensors) is batched. ``inplace``: the argument ``fn``
    writes into, which must then be batched at the same level (as in PyTorch).
    ``refuse_masks``: a batched bool (or uint8) index is PyTorch's error, its result's shape
    depending on the values."""

    def decorate(fn):
        signature = inspect.signature(fn)
        any_batched = batched_check(fn, indices)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            # (No special mode anywhere: no vmap level, so nothing is batched; as in op
            # dispatch, which reads the same count first.)
            if not SPECIAL[0] or not any_batched(args, kwargs):
                return fn(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            if arguments.get("out") is not None:
                raise RuntimeError(f"vmap: {op}() with out= is not supported under vmap")
            if refuse_masks:
                _refuse_masks(arguments, indices)
            found = [t for value in arguments.values() for t in _batched_in(value)]
            level = max(t._level for t in found)
            size = next(t._value.shape[0] for t in found if t._level == level)
            if inplace is not None:
                target = arguments[inplace]
                if type(target) is not BatchedTensor or target._level != level:
                    raise RuntimeError(
                        f"vmap: {op}(self, ...) is not possible because there exists a Tensor "
                        "`other` in extra_args that has more elements than `self`. This "
                        "happened due to `other` being vmapped over but `self` not being "
                        "vmapped over in a vmap. Please try to use out-of-place operators "
                        "instead of in-place."
                    )
            outs = [
                wrapper(**{k: _example(v, level, i) for k, v in arguments.items()})
                for i in range(size)
            ]  # nested vmaps: once per level
            if inplace is not None:
                return outs[0] if outs[0] is None else arguments[inplace]
            return _stacked(outs, level)

        return wrapper

    return decorate


def per_example(op, args, params, level):
    """A primitive's batching rule by the same loop: ``op`` on each example of its batched
    operands (the others as they are), the results stacked (ops without a composite)."""
    size = next(a._value.shape[0] for a in args if _at(a, level))
    outs = [op(*(a._value[i] if _at(a, level) else a for a in args), **params) for i in range(size)]
    return _stacked(outs, level)


def _at(a, level: int) -> bool:
    return type(a) is BatchedTensor and a._level == level


def _refuse_masks(arguments: dict, indices: tuple) -> None:
    for name in indices:
        for t in _batched_in(arguments[name]):
            if t._data.dtype.kind == "b" or t._data.dtype == "uint8":
                raise RuntimeError(
                    "vmap: We do not support batching operators that can support dynamic "
                    "shape. Attempting to batch over indexing with a boolean mask. Use "
                    "torch.where(mask, x, y) instead."
                )


def _stacked(outs: list, level: int):
    from .joining import stack  # why: joining imports slicing, which uses this module

    first = outs[0]
    if isinstance(first, tuple):
        parts = [batched(stack([o[k] for o in outs]), level) for k in range(len(first))]
        return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
    return batched(stack(outs), level)


__all__: list = []
