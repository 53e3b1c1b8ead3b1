"""In-place ops (``add_``, ``x[i] = v``, ``+=`` ...) as out-of-place ops written back.

Every in-place op computes its out-of-place result with the usual graph, writes the values
into the target's memory, bumps the version counter the target shares with its views, and
moves the target's history onto the new node. Writing through a view rebases the view's
base onto a ``CopySlices`` node, so gradients flow as PyTorch's do; then every live view of
that memory gets its history regenerated (``view_history``).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._batched import BatchedTensor, levels_of, physical, with_levels
from .._engine import grad_mode
from .._engine.forward import reading_before_write
from .._engine.forward import state as _forward
from .._engine.forward import suspended as forward_suspended
from .._engine.grad_mode import SPECIAL
from .._engine.saved import before_write, write_watchers
from .._exposure import exports, public
from .._random import inplace_draw, normal_values, uniform_values
from .._storage import same_view
from .._tensor import Tensor, _wrap, _zeros_like
from .._warn import warn_at_user
from ._batch_loop import loops_over_examples
from ._copy_slices import CopySlices, folds
from ._inputs import fill_number, guard_indices
from ._optable import Generic, Linear
from ._plain import operand, values_of
from ._primitive import primitive
from .broadcast import sum_to
from .conversion import clone_
from .slicing import _sequence_as_tuple
from .view_history import (
    _index_key,
    _set_history,
    _view_write_error,
    copy_slices,
    refresh_views,
    zero_region,
)

_state = grad_mode._state


def _overwrite_forward(target, src):
    return np.broadcast_to(src, target.shape).astype(target.dtype, copy=True)


def _overwrite_jvp(tt, ts, target, src, result):
    if ts is not None:
        return ts.expand(target._data.shape)
    # Forward mode: overwritten by a constant, the target's tangent is zero there.
    return None if tt is None else _zeros_like(tt)


def no_gradient(grad, *args, **params):
    """Zeros of ``grad``'s shape: what overwritten values get, as PyTorch's ``zeros_like``
    (``grad * 0`` would keep NaN and inf coming from downstream); arrays in a plain rule."""
    return operand(np.zeros_like(values_of(grad)), grad)


def _overwrite(name, overload, node_name):
    """An op replacing the target's values: they get no gradient, the source gets it summed
    to its shape. One per grad_fn name PyTorch records."""
    return primitive(
        name,
        _overwrite_forward,
        (
            no_gradient,
            lambda grad, target, src, result: grad,
        ),
        kind=Generic(jvp=_overwrite_jvp),
        overload=overload,
        node_name=node_name,
        dtype_rule="keep",
        broadcast=True,
        scalars=True,
        plain_rules=True,
    )


def _fill_forward(target, *, value):
    return np.full(target.shape, value, dtype=target.dtype)


def _fill_jvp(tt, target, result, *, value):
    return None if tt is None else _zeros_like(tt)  # overwritten by a constant


def _fill_with_number(name, overload, node_name):
    """An op replacing the target's values by the number ``value``: one input, so its node
    has the target's edge alone, as PyTorch's."""
    return primitive(
        name,
        _fill_forward,
        (no_gradient,),
        kind=Generic(jvp=_fill_jvp),
        overload=overload,
        node_name=node_name,
        dtype_rule="keep",
        plain_rules=True,
    )


overwrite = _overwrite("overwrite", "", "torch::autograd::CopyBackwards")  # copy_
_fill_scalar = _fill_with_number("fill", "Scalar", "FillBackward2")  # fill_ with a number
_fill_tensor = _overwrite("fill", "Tensor", "FillBackward3")  # fill_ with a 0-d tensor
_zero = _fill_with_number("zero", "", "ZeroBackward0")


def _leaf_error(op: str, what: str) -> RuntimeError:
    """PyTorch's words (``what``: "a leaf Variable" or "a view of a leaf Variable"), then
    ours."""
    return RuntimeError(
        f"{what} that requires grad is being used in an in-place operation. ({op} with grad "
        "mode on: update it inside torch.no_grad(), as optimisers do, or use the out-of-place "
        "op.)"
    )


def _check_target(target: Tensor, op: str) -> None:
    if not isinstance(target, Tensor):
        raise TypeError(f"{op}: expected a Tensor to modify, got {type(target).__name__}")
    if target._is_inference and not _state.inference:
        raise RuntimeError(
            f"{op}: an inference tensor (made under inference_mode) cannot be modified in place "
            "outside inference mode; modify a clone() instead"
        )
    base = target._base
    if _state.enabled and (target._requires_grad or (base is not None and base._requires_grad)):
        if target._view_meta is not None:
            raise _view_write_error(target, op)
        # PyTorch's test: the base is a leaf, and the view or the base requires grad (the
        # base may not, any more: detach_() made it a leaf; its views still do).
        if base is not None and base.grad_fn is None:
            raise _leaf_error(op, "a view of a leaf Variable")
        if target.grad_fn is None:
            raise _leaf_error(op, "a leaf Variable")


def _fit_to_target(target: Tensor, out: Tensor, op: str) -> Tensor:
    if out._data.dtype != target._data.dtype:
        if not _dtype.casts_to(out._data.dtype, target._data.dtype):
            raise RuntimeError(
                f"{op}: the result type {out.dtype} can't be cast to the tensor's dtype "
                f"{target.dtype} in place; convert the tensor first (e.g. .float())"
            )
        out = out.to(target.dtype)
    if out._data.shape != target._data.shape:
        try:
            shape = np.broadcast_shapes(out._data.shape, target._data.shape)
        except ValueError:
            shape = None
        if shape != target._data.shape:
            raise RuntimeError(
                f"output with shape {list(target._data.shape)} doesn't match the broadcast shape "
                f"{list(out._data.shape)} ({op}: an in-place op cannot change the shape of its "
                "target)"
            )
        out = out.expand(target._data.shape)
    return out


def _detach_saved_target(out: Tensor, target: Tensor) -> None:
    """Keep the pre-write value of ``target`` where the op saved it as its first input.

    As in PyTorch, ``y.mul_(z)`` still gives ``z`` the gradient of the original ``y``; a
    second reference (``y.mul_(y)``) stays the modified tensor, so backward raises. PyTorch
    saves ``self.clone()``, recorded (CloneBackward0) where ``self`` requires grad: a
    second derivative differentiates through that clone.
    """
    node = out.grad_fn
    if node.saved_input(0) is not target:
        return
    if target._requires_grad and _state.enabled:
        snap = clone_(target)
    else:
        snap = _wrap(target._data.copy(), target._requires_grad)
        snap.grad_fn, snap._output_nr = target.grad_fn, target._output_nr
    node.replace_saved_input(0, snap)


def original_self(target: Tensor) -> Tensor:
    """``target``'s values now, with its history and tangents, in a tensor of its own (its own
    version counter): what PyTorch's in-place rules read as ``original_self``."""
    if type(target) is BatchedTensor or (target._requires_grad and target.grad_fn is None):
        # A leaf that requires grad is written only with grad mode off, where nothing records
        # its reads; a copy would be another leaf. Batched values are written physically.
        return target
    copy = _wrap(target._data.copy(), target._requires_grad)
    copy.grad_fn, copy._output_nr = target.grad_fn, target._output_nr
    if target._tangents:
        # Tangents of their own (PyTorch clones original_self's tangent too): the write
        # then copies the new tangent into the target's (see _written_tangents).
        copy._tangents = {level: t.clone() for level, t in target._tangents.items()}
    copy._jet = target._jet
    return copy


def value_to_write(target: Tensor, fn, *args, **kwargs) -> Tensor:
    """``fn(target, *args, **kwargs)``, the value an in-place op writes into ``target``; in
    forward mode its JVP rules read ``target`` from before the write (``original_self``)."""
    if not _forward.levels:
        return fn(target, *args, **kwargs)
    with reading_before_write(target, original_self):
        return fn(target, *args, **kwargs)


def _write_through(target: np.ndarray, src: np.ndarray, op: str) -> bool:
    """Write ``src`` into a read-only part of an expanded tensor whose elements are distinct
    memory (``x.expand(3, 4)[:, 0]``), as PyTorch writes through to the memory it shares;
    False (nothing written) where elements overlap or the memory itself is read-only.

    ``fill_`` and ``zero_`` write one value everywhere, so PyTorch lets them overlap."""
    if op not in ("fill_", "zero_") and _overlaps(target):
        return False
    try:
        target.flags.writeable = True  # NumPy allows it only where the memory is writable
    except ValueError:
        return False
    try:
        np.copyto(target, src)
    finally:
        target.flags.writeable = False  # later writes are checked again (add_ after fill_)
    return True


def _overlaps(target: np.ndarray) -> bool:
    """Whether elements of ``target`` share memory (a dimension expanded by stride 0)."""
    return any(stride == 0 and n > 1 for stride, n in zip(target.strides, target.shape))


def apply_inplace(target: Tensor, out: Tensor, op: str) -> Tensor:
    """Write ``out`` into ``target`` and give ``target`` its history; returns ``target``."""
    if type(target) is BatchedTensor or type(out) is BatchedTensor:
        return _apply_inplace_batched(target, out, op)
    out = _fit_to_target(target, out, op)
    if target._view_meta is not None and _state.enabled and out._requires_grad:
        raise _view_write_error(target, op)  # another input requires grad, not the view
    if out.grad_fn is not None:
        _detach_saved_target(out, target)
    if write_watchers:  # allow_mutation_on_saved_tensors: clone saved values first
        before_write(target)
    try:
        np.copyto(target._data, out._data)
    except ValueError as exc:
        if not _write_through(target._data, out._data, op):
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                f"operation ({op}: {exc})."
            ) from None
    counter = target._shared_version_counter()
    counter[0] += 1
    recording = _state.enabled and (out._requires_grad or target._requires_grad)
    if recording or out._tangents or out._jet is not None:
        if target._base is None:
            _take_history(target, out, recording)
        else:
            _rebase_view(target, target._base, out, recording)
    if len(counter) > 1:
        refresh_views(counter)
    return target


def _apply_inplace_batched(target: Tensor, out: Tensor, op: str) -> Tensor:
    """Under vmap: write the values, each batched alike (PyTorch refuses to write a batched
    result into a tensor that is not batched at that level: it has room for one example)."""
    levels = levels_of(target)
    extra = set(levels_of(out)) - set(levels)
    if extra:
        raise RuntimeError(
            f"vmap: {op}(self, *extra_args) is not possible because self is not batched at a "
            "vmap level its result is (its result would need one value per example, but self "
            f"has room for one: shape {list(target.shape)}). Use the out-of-place op, or make "
            "self batched (e.g. self = self.expand(...) of a batched tensor, or clone() inside "
            "the vmapped function from a batched value)"
        )
    out = _fit_to_target(target, out, op)
    apply_inplace(physical(target), physical(with_levels(out, levels)), op)
    return target


def _take_history(target: Tensor, out: Tensor, recording: bool) -> None:
    if out._tangents:  # forward mode: the new value's tangent
        target._tangents = _written_tangents(target._tangents, out._tangents)
    target._jet = out._jet  # Taylor mode: the new value's coefficients
    if not recording:
        return
    _set_history(target, out.grad_fn, out._output_nr)
    if out.grad_fn is not None:
        out.grad_fn.saved_result_moved_to(target)


def _written_tangents(old: dict | None, new: dict) -> dict:
    """A written tensor's tangents: at each level where it had one, that tensor with the new
    tangent copied into it, as PyTorch's in-place ops do (a tangent read before the write,
    and the views of it, see the new values); elsewhere the new tangent. A tangent that
    cannot take the values as they are (another shape or dtype, read-only or overlapping
    memory, a leaf that requires grad) is replaced instead."""
    tangents = dict(new)
    for level, before in (old or {}).items():
        t = new.get(level)
        if t is None or t is before:
            continue
        data = before._data
        if (
            data.shape == t._data.shape
            and data.dtype == t._data.dtype
            and data.flags.writeable
            and not _overlaps(data)
            and not (before._requires_grad and before.grad_fn is None)
        ):
            with forward_suspended(level):
                copy_(before, t)
            tangents[level] = before
    return tangents


def _rebase_view(view: Tensor, base: Tensor, out: Tensor, recording: bool) -> None:
    """The base now holds ``out`` where the view looks: record that (CopySlices). The view
    itself is regenerated from the base with the other views (``refresh_views``)."""
    rebased = copy_slices(base, out, view_fn=view._view_fn)
    if recording and out.grad_fn is not None:
        # The op's saved output (exp_'s result) now lives in the view: a later in-place
        # change of the view or its base invalidates it, as in PyTorch.
        out.grad_fn.saved_result_moved_to(view)
    if rebased._tangents:
        base._tangents = _written_tangents(base._tangents, rebased._tangents)
    base._jet = rebased._jet
    if recording:
        node = rebased.grad_fn
        if folds(out.grad_fn, out, view):  # PyTorch's CopySlices holds the op's node
            node = CopySlices(node.next_functions[0], out.grad_fn, view._view_fn)
        _set_history(base, node, 0)


def inplace(fn, name: str):
    """The in-place method ``name`` (e.g. ``add_``) of the out-of-place ``fn``."""

    def method(self, *args, **kwargs):
        _check_target(self, name)
        return apply_inplace(self, value_to_write(self, fn, *args, **kwargs), name)

    method.__name__ = method.__qualname__ = name
    return method


@public(function=False)
def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into this tensor; gradients flow to ``src``."""
    _check_target(self, "copy_")
    if isinstance(src, Tensor) and src._data.dtype != self._data.dtype:
        src = src.to(_dtype.from_numpy_dtype(self._data.dtype))
    return apply_inplace(self, overwrite(self, src), "copy_")


@public(function=False)
def fill_(self: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"fill_: only a 0-dim tensor value is allowed, got shape {list(value._data.shape)}"
            )
        _check_target(self, "fill_")
        if value._data.dtype != self._data.dtype:
            value = value.to(_dtype.from_numpy_dtype(self._data.dtype))
        return apply_inplace(self, _fill_tensor(self, value), "fill_")
    _check_target(self, "fill_")
    value = self._data.dtype.type(fill_number(value, self, "fill_"))
    if _records_nothing(self):
        return _filled(self, value)
    return apply_inplace(self, _fill_scalar(self, value=value), "fill_")


@public(function=False)
def zero_(self: Tensor) -> Tensor:
    _check_target(self, "zero_")
    if _records_nothing(self):  # (``p.grad.zero_()``, ``zero_grad(set_to_none=False)``)
        return _filled(self, 0)
    return apply_inplace(self, _zero(self, value=self._data.dtype.type(0)), "zero_")


def _records_nothing(target: Tensor) -> bool:
    """Whether filling ``target`` with a number is all ``apply_inplace`` would do: it does not
    require grad (then no history changes), no special mode (vmap, forward or jet levels, the
    profiler) nor saved-tensor watcher is on, and its memory is writeable (an expanded view's
    is not: ``apply_inplace`` refuses or writes it through)."""
    data = target._data
    return (
        not target._requires_grad
        and not SPECIAL[0]
        and not write_watchers
        and target._tangents is None
        and target._jet is None
        and type(data) is np.ndarray
        and data.flags.writeable
    )


def _filled(target: Tensor, value) -> Tensor:
    """``target`` filled with ``value`` in place, its version bumped (``apply_inplace``'s
    work where nothing is recorded: 5.8 -> ~1 us for a (20, 20) gradient's ``zero_()``)."""
    target._data.fill(value)
    counter = target._shared_version_counter()
    counter[0] += 1
    if len(counter) > 1:
        refresh_views(counter)
    return target


# Index kinds that select a view (PyTorch's basic indexing).
_BASIC_INDEX = (int, slice, type(Ellipsis), type(None), np.int64, np.int32)


def _index_put_forward(x, value, *, key):
    out = x.copy()
    out[_index_key(key)] = value
    return out


def _index_put_value_grad(grad, x, value, result, *, key):
    # A plain rule's array reads the key as NumPy does, as the forward writes it.
    taken = grad[_index_key(key)] if type(grad) is np.ndarray else grad[key]
    return sum_to(taken, value.shape)


def _index_put_target_grad(grad, x, value, result, *, key):
    return zero_region(grad, key=key)


index_put = primitive(
    "index_put",
    _index_put_forward,
    (_index_put_target_grad, _index_put_value_grad),
    node_name="IndexPutBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
)


def _index_put_accumulate_forward(x, value, *, key):
    out = x.copy()
    np.add.at(out, _index_key(key), value)  # repeated positions add up
    return out


# index_put(accumulate=True): PyTorch's one node too (IndexPutBackward0).
index_put_accumulate = primitive(
    "index_put",
    _index_put_accumulate_forward,
    (lambda grad, x, value, result, *, key: grad, _index_put_value_grad),
    overload="accumulate",
    node_name="IndexPutBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
)


def _frozen_index(k):
    """One index of an advanced ``__setitem__`` as it is now (index arrays copied)."""
    if type(k) is Tensor:
        return _wrap(k._data.copy())
    if type(k) is np.ndarray:
        return k.copy()
    if type(k) is list and not k:  # PyTorch's [] selects nothing (NumPy's would be floats)
        return np.zeros(0, np.int64)
    return k


@public(function=False, method=("__setitem__",))
@loops_over_examples("__setitem__", ("key",), inplace="self", refuse_masks=True)
def setitem(self: Tensor, key, value) -> None:
    """``self[key] = value`` for every index kind ``__getitem__`` takes.

    As in PyTorch, a basic index (ints, 0-d integer tensors, slices, ``...``, None) writes
    into the view it selects (``fill_`` for a number or a 0-d tensor into more, else
    ``copy_``), so the tensor's history is ``CopySlices`` (or the fill or copy itself when the
    index selects it all); other indices record ``index_put``, into the view the basic ones
    among them select when that is not the whole tensor (``CopySlices`` again).
    """
    _check_target(self, "__setitem__")
    if isinstance(key, list) and _sequence_as_tuple(key):
        # the same legacy rule (and warning) as __getitem__: a short list of slices, None,
        # ... or sequences is a tuple of indices, not one index array
        warn_at_user(
            "indexing with a non-tuple sequence of indices is deprecated; use x[tuple(seq)]",
        )
        key = tuple(key)
    if not isinstance(value, Tensor):
        if self._data.dtype.char != "e":  # PyTorch writes inf for 1e39 into float16 only
            value = fill_number(value, self, "__setitem__")
        value = _wrap(np.asarray(value, dtype=self._data.dtype))
    elif value._data.dtype != self._data.dtype:
        value = value.to(_dtype.from_numpy_dtype(self._data.dtype))
    keys = key if type(key) is tuple else (key,)
    keys = tuple(_as_basic(k) for k in keys)
    if all(type(k) in _BASIC_INDEX for k in keys):
        whole = all(k is Ellipsis or k == slice(None) for k in keys)
        target = self if whole else self[key]
        if type(target) is not BatchedTensor and _overlaps(target._data):
            # PyTorch copies the value in (a number too), and copy_ refuses overlap
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor "
                f"refers to a single memory location (__setitem__ at {key!r} of an expanded "
                f"tensor, strides {list(target.stride())}). Please clone() the tensor before "
                "performing the operation."
            )
        if value._data.ndim == 0 and target._data.ndim != 0:
            fill_(target, value)
        else:
            if value._data.shape != target._data.shape:
                value = _without_leading_ones(value)
            copy_(target, value)
        return
    split = _basic_part(keys)
    if split is not None:
        basic, advanced = split
        view = self[basic]
        if same_view(view._data, self._data):
            target = self
        else:  # PyTorch's index_put into that view: CopySlices on self
            target, keys = view, advanced
    else:
        target = self
    _index_put_into(target, keys, _without_leading_ones(value))
    guard_indices(self, keys)  # index tensors: the backward refuses them once changed


def _without_leading_ones(value: Tensor) -> Tensor:
    """``value`` viewed without its leading dims of size 1, as PyTorch's ``__setitem__``
    reads it (``x[0] = row[None]`` writes the row)."""
    shape = value._data.shape
    ones = 0
    while ones < len(shape) and shape[ones] == 1:
        ones += 1
    return value.view(shape[ones:]) if ones else value


def _as_basic(k):
    """A 0-d integer tensor index as the int PyTorch reads it as (a basic index)."""
    if type(k) is Tensor and k._data.ndim == 0 and k._data.dtype.kind in "iu":
        return int(k._data)
    return k


def _basic_part(keys):
    """``(basic, advanced)``: ``keys``' basic indices with every advanced one as full slices
    over the dims it indexes, and the index of the view ``basic`` selects that leaves the
    advanced ones to do; None for a bool index (a new dim PyTorch adds its own way)."""
    basic, advanced = [], []
    for k in keys:
        if type(k) in (bool, np.bool_) or (type(k) is Tensor and k._data.ndim == 0):
            return None
        if type(k) in _BASIC_INDEX:
            basic.append(k)
            if k is Ellipsis:
                advanced.append(k)
            elif k is None or type(k) is slice:
                advanced.append(slice(None))
            continue  # an int: its dim is gone from the view
        array = k._data if type(k) is Tensor else np.asarray(k)
        basic.extend([slice(None)] * (array.ndim if array.dtype == np.bool_ else 1))
        advanced.append(k)
    return tuple(basic), tuple(advanced)


def _index_put_into(self: Tensor, keys: tuple, value: Tensor) -> None:
    """``self[keys] = value`` for an index with advanced parts, recorded as index_put."""
    # The index arrays as they are now: the backward reads them, and PyTorch's never sees a
    # later in-place change of an index tensor (its backward refuses to run then).
    key = tuple(_frozen_index(k) for k in keys)
    try:
        out = index_put(self, value, key=key)
    except (IndexError, ValueError, TypeError) as exc:
        # An index out of range is an IndexError; a value that does not broadcast to what
        # the index selects is PyTorch's RuntimeError (NumPy's ValueError or TypeError).
        raise (IndexError if isinstance(exc, IndexError) else RuntimeError)(
            f"__setitem__: cannot assign a value of shape {list(value._data.shape)} to index "
            f"{key!r} of a tensor of shape {list(self._data.shape)}: {exc}"
        ) from None
    apply_inplace(self, out, "__setitem__")


def _random_fill(name, draw):
    @public(function=False, method=(name,))
    def method(self, *args, generator=None, **kwargs):
        # A write as copy_ is: a leaf that requires grad refuses, the old values get zero.
        _check_target(self, name)
        dtype = self._data.dtype  # PyTorch's transforms depend on it (float32's 24 bits)
        values = inplace_draw(self, draw, generator, name, dtype, *args, **kwargs)
        return apply_inplace(self, overwrite(self, values), name)

    method.__name__ = name
    return method


uniform_ = _random_fill(
    "uniform_",
    lambda rng, shape, dtype, a=0.0, b=1.0: uniform_values(rng, shape, dtype, a, b),
)
normal_ = _random_fill(
    "normal_",
    lambda rng, shape, dtype, mean=0.0, std=1.0: normal_values(
        rng, shape, dtype, float(mean), float(std)
    ),
)

# The in-place twins of out-of-place ops (add_, __iadd__ ...) are declared with those ops
# (``public(inplace=True)``); ops/__init__.py makes each with ``inplace``.
__all__ = exports(globals())
