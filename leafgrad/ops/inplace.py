"""In-place ops (``add_``, ``x[i] = v``, ``+=`` ...) as out-of-place ops written back.

Every in-place op computes its out-of-place result with the usual graph, writes the values
into the target's memory, bumps the version counter the target shares with its views, and
moves the target's history onto the new node. Writing through a view rebases the view's
base onto a ``CopySlices`` node, so gradients flow as PyTorch's do.

Then every live view sharing that version counter gets its history regenerated from its
base's: an ``AsStridedBackward0`` node, as PyTorch names the grad_fn it regenerates. PyTorch
regenerates lazily, when the view's grad_fn is next read; doing it here, at the write, gives
the same graphs and keeps the reads (every op reads its inputs' grad_fn) free of checks. The
views PyTorch refuses to regenerate (outputs of unbind/split, views made in no-grad or
inference mode) become ``_InvalidatedView``s whose grad_fn raises, as PyTorch's does.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._batched import BatchedTensor, levels_of, physical, with_levels
from .._engine import grad_mode
from .._engine.hooks import move_retain_grad
from .._engine.saved import before_write, write_watchers
from .._exposure import exports, public
from .._random import inplace_draw
from .._tensor import Tensor, _wrap
from ._optable import Generic, Linear
from ._primitive import primitive
from ._tangents import tangent_sum
from .broadcast import sum_to

_state = grad_mode._state


def _region(array: np.ndarray, view_fn) -> np.ndarray:
    """The part of ``array`` that ``view_fn`` selects, as a writable NumPy view."""
    with grad_mode.no_grad():
        region = view_fn(_wrap(array))._data
    if not np.may_share_memory(region, array):
        raise RuntimeError("internal: a view function returned a copy, not a view")
    return region


def _zero_region_forward(grad, *, view_fn=None, key=None):
    out = grad.copy()
    if key is not None:
        out[_index_key(key)] = 0
    else:
        _region(out, view_fn)[...] = 0
    return out


# The gradient of the base through an in-place write: nothing reaches the overwritten part.
# The region is a view (``view_fn``) or an index (``key``); zeroing it is self-adjoint.
zero_region = primitive(
    "zero_region",
    _zero_region_forward,
    (lambda grad, g, result, **where: zero_region(grad, **where),),
    node_name="ZeroRegionBackward0",
    dtype_rule="keep",
    kind=Linear(),
)


def _embed_region_forward(src, *, shape, view_fn):
    out = np.zeros(shape, dtype=src.dtype)
    region = _region(out, view_fn)
    if any(s == 0 and n > 1 for s, n in zip(region.strides, region.shape)):
        # A broadcast view: several of its elements are one element of the base; sum them.
        where = _region(np.arange(out.size).reshape(shape), view_fn)
        np.add.at(out.reshape(-1), where.reshape(-1), np.broadcast_to(src, where.shape).ravel())
    else:
        region[...] = src
    return out


# ``src`` placed into zeros of ``shape`` where ``view_fn`` looks (summed where it looks at
# one element several times): the adjoint of the view.
embed_region = primitive(
    "embed_region",
    _embed_region_forward,
    (lambda grad, src, result, *, shape, view_fn: view_fn(grad),),
    node_name="EmbedRegionBackward0",
    dtype_rule="keep",
    kind=Linear(),
)


def _view_replay_forward(base, *, view_fn):
    return _region(base, view_fn)


# A view regenerated from its base after an in-place change (PyTorch's AsStridedBackward0):
# the part of ``base`` that ``view_fn`` selects.
view_replay = primitive(
    "view_replay",
    _view_replay_forward,
    (
        lambda grad, base, result, *, view_fn: embed_region(
            grad, shape=base._data.shape, view_fn=view_fn
        ),
    ),
    node_name="AsStridedBackward0",
    dtype_rule="keep",
    kind=Linear(),
)


def _copy_slices_jvp(tb, ts, base, src, result, *, view_fn):
    kept = None if tb is None else zero_region(tb, view_fn=view_fn)
    written = None if ts is None else embed_region(ts, shape=base._data.shape, view_fn=view_fn)
    return tangent_sum(kept, written)


def _copy_slices_forward(base, src, *, view_fn):
    return base  # the values are already written; this node only records history


copy_slices = primitive(
    "copy_slices",
    _copy_slices_forward,
    (
        lambda grad, base, src, result, *, view_fn: zero_region(grad, view_fn=view_fn),
        lambda grad, base, src, result, *, view_fn: view_fn(grad),
    ),
    kind=Generic(jvp=_copy_slices_jvp),
    node_name="CopySlices",
    dtype_rule="keep",
)


def _overwrite_forward(target, src):
    return np.broadcast_to(src, target.shape).astype(target.dtype, copy=True)


# copy_/fill_/zero_: the old values get no gradient, the source gets it summed to its shape.
overwrite = primitive(
    "overwrite",
    _overwrite_forward,
    (
        lambda grad, target, src, result: grad * 0,
        lambda grad, target, src, result: grad,
    ),
    kind=Generic(
        jvp=lambda tt, ts, target, src, result: ts if ts is None else ts.expand(target._data.shape)
    ),
    node_name="CopyBackwards",
    dtype_rule="keep",
    broadcast=True,
    scalars=True,
)


def _leaf_error(op: str, what: str) -> RuntimeError:
    return RuntimeError(
        f"{op}: {what} that requires grad is being used in an in-place operation while grad "
        "mode is on; update it inside torch.no_grad() (as optimisers do), or use the "
        "out-of-place op"
    )


def _check_target(target: Tensor, op: str) -> None:
    if not isinstance(target, Tensor):
        raise TypeError(f"{op}: expected a Tensor to modify, got {type(target).__name__}")
    if target._is_inference and not _state.inference:
        raise RuntimeError(
            f"{op}: an inference tensor (made under inference_mode) cannot be modified in place "
            "outside inference mode; modify a clone() instead"
        )
    if _state.enabled and target._requires_grad:
        if target._view_meta is not None:
            raise _view_write_error(target, op)
        base = target._base
        if base is not None and base.grad_fn is None and base._requires_grad:
            raise _leaf_error(op, "a view of a leaf Tensor")
        if target.grad_fn is None:
            raise _leaf_error(op, "a leaf Tensor")


def _view_write_error(view: Tensor, op: str, indirect: bool = False) -> RuntimeError:
    """The RuntimeError PyTorch raises for a view it will not give a new history."""
    kind, name, nr = view._view_meta
    changed = (
        "its base (or another view of its base) was modified in place"
        if indirect
        else f"{op} is modifying it in place"
    )
    if kind == "custom_function":
        why = (
            f"it is output {nr} of the custom Function {name} (made there, or an input returned "
            "as is), whose backward the view/in-place machinery would bypass, giving wrong "
            "gradients"
        )
    elif kind == "multi_output":
        why = (
            f"{name} returns several views of its input (output {nr} is this one), and their "
            "histories cannot be rewritten one by one"
        )
    else:
        mode = "no-grad" if kind == "no_grad" else "inference"
        why = (
            f"it was made by {name} in {mode} mode, so whether the change should be recorded "
            "is ambiguous"
        )
    return RuntimeError(
        f"a view is used where gradients are recorded but {changed}; PyTorch forbids this "
        f"because {why}. Use an out-of-place op, or clone() the view (or the Function's "
        "output) first"
    )


def _fit_to_target(target: Tensor, out: Tensor, op: str) -> Tensor:
    if out._data.dtype != target._data.dtype:
        if not np.can_cast(out._data.dtype, target._data.dtype, casting="same_kind"):
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
                f"{op}: the result of shape {list(out._data.shape)} cannot be written in place "
                f"into a tensor of shape {list(target._data.shape)}: an in-place op cannot "
                "change the shape of its target"
            )
        out = out.expand(target._data.shape)
    return out


def _detach_saved_target(out: Tensor, target: Tensor) -> None:
    """Keep the pre-write value of ``target`` where the op saved it as its first input.

    As in PyTorch, ``y.mul_(z)`` still gives ``z`` the gradient of the original ``y``; a
    second reference (``y.mul_(y)``) stays the modified tensor, so backward raises.
    """
    node = out.grad_fn
    if node.saved_input(0) is not target:
        return
    snap = _wrap(target._data.copy(), target._requires_grad)
    snap.grad_fn, snap._output_nr = target.grad_fn, target._output_nr
    node.replace_saved_input(0, snap)


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
        raise RuntimeError(
            f"{op}: this tensor cannot be written in place ({exc}); an expanded tensor has "
            "several elements in one memory location: clone() it first"
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
    if out._tangents:
        target._tangents = dict(out._tangents)  # forward mode: the new value's tangent
    target._jet = out._jet  # Taylor mode: the new value's coefficients
    if not recording:
        return
    _set_history(target, out.grad_fn, out._output_nr)
    if out.grad_fn is not None:
        out.grad_fn.saved_result_moved_to(target)


def _set_history(tensor: Tensor, grad_fn, output_nr: int) -> None:
    """``tensor`` is now computed by ``grad_fn``; a retained gradient follows it there."""
    old_fn, old_nr = tensor.grad_fn, tensor._output_nr
    tensor.grad_fn = grad_fn
    tensor._output_nr = output_nr
    tensor._requires_grad = grad_fn is not None
    if tensor._retains_grad and old_fn is not None:
        move_retain_grad(tensor, old_fn, old_nr)


def _rebase_view(view: Tensor, base: Tensor, out: Tensor, recording: bool) -> None:
    """The base now holds ``out`` where the view looks: record that (CopySlices). The view
    itself is regenerated from the base with the other views (``refresh_views``)."""
    rebased = copy_slices(base, out, view_fn=view._view_fn)
    if rebased._tangents:
        base._tangents = dict(rebased._tangents)
    base._jet = rebased._jet
    if recording:
        _set_history(base, rebased.grad_fn, 0)


class _InvalidatedView(Tensor):
    """A view whose base changed in place but which PyTorch will not give a new history
    (an output of unbind/split, a view made in no-grad or inference mode): reading its
    grad_fn, hence recording an op with it, raises as in PyTorch. Only such views get this
    class, so ordinary tensors read grad_fn as a plain attribute."""

    @property
    def grad_fn(self):
        raise _view_write_error(self, "", indirect=True)

    @grad_fn.setter
    def grad_fn(self, value) -> None:
        self.__dict__["grad_fn"] = value


def refresh_views(counter: list) -> None:
    """Regenerate the history of every live view listed beside ``counter`` (whose tensors
    just changed in place) from its base, and forget the views that are gone."""
    alive = []
    for ref in counter[1]:
        view = ref()
        if view is None:
            continue
        alive.append(ref)
        if type(view) is _InvalidatedView:
            continue
        base = view._base
        if base._requires_grad or view.grad_fn is not None:
            if view._view_meta is not None:
                view.__class__ = _InvalidatedView
            else:
                _regenerate(view, base)
        elif base._tangents or base._jet is not None:
            _regenerate(view, base)
    counter[1] = alive


def _regenerate(view: Tensor, base: Tensor) -> None:
    """``view``'s history (and forward-mode tangents) from its base's, whatever the grad
    mode: PyTorch regenerates when the view is next read, which may be in another mode."""
    enabled = _state.enabled
    _state.enabled = True
    try:
        fresh = view_replay(base, view_fn=view._view_fn)
    finally:
        _state.enabled = enabled
    if fresh._tangents:
        view._tangents = dict(fresh._tangents)
    view._jet = fresh._jet
    if fresh.grad_fn is not None or view.grad_fn is not None:
        _set_history(view, fresh.grad_fn, 0)


def inplace(fn, name: str):
    """The in-place method ``name`` (e.g. ``add_``) of the out-of-place ``fn``."""

    def method(self, *args, **kwargs):
        _check_target(self, name)
        return apply_inplace(self, fn(self, *args, **kwargs), name)

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
        return copy_(self, value)
    _check_target(self, "fill_")
    return apply_inplace(self, overwrite(self, self._data.dtype.type(value)), "fill_")


@public(function=False)
def zero_(self: Tensor) -> Tensor:
    return fill_(self, 0)


def _index_key(key):
    """Unwrap tensors inside an index so NumPy can use it."""
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, list):
        return np.asarray([k._data if isinstance(k, Tensor) else k for k in key])
    return key


def _index_put_forward(x, value, *, key):
    out = x.copy()
    out[_index_key(key)] = value
    return out


def _index_put_value_grad(grad, x, value, result, *, key):
    return sum_to(grad[key], value._data.shape)


def _index_put_target_grad(grad, x, value, result, *, key):
    return zero_region(grad, key=key)


index_put = primitive(
    "index_put",
    _index_put_forward,
    (_index_put_target_grad, _index_put_value_grad),
    node_name="IndexPutBackward0",
    dtype_rule="keep",
    kind=Linear(),
)


@public(function=False, method=("__setitem__",))
def setitem(self: Tensor, key, value) -> None:
    """``self[key] = value`` for every index kind ``__getitem__`` takes."""
    _check_target(self, "__setitem__")
    if not isinstance(value, Tensor):
        value = _wrap(np.asarray(value, dtype=self._data.dtype))
    elif value._data.dtype != self._data.dtype:
        value = value.to(_dtype.from_numpy_dtype(self._data.dtype))
    try:
        out = index_put(self, value, key=key)
    except (IndexError, ValueError) as exc:
        raise type(exc)(
            f"__setitem__: cannot assign a value of shape {list(value._data.shape)} to index "
            f"{key!r} of a tensor of shape {list(self._data.shape)}: {exc}"
        ) from None
    apply_inplace(self, out, "__setitem__")


def _random_fill(name, draw):
    @public(function=False, method=(name,))
    def method(self, *args, generator=None, **kwargs):
        values = inplace_draw(self, draw, generator, name, *args, **kwargs)
        with grad_mode.no_grad():
            return apply_inplace(self, values, name)

    method.__name__ = name
    return method


uniform_ = _random_fill("uniform_", lambda rng, shape, a=0.0, b=1.0: rng.uniform(a, b, shape))
normal_ = _random_fill(
    "normal_", lambda rng, shape, mean=0.0, std=1.0: rng.normal(mean, std, shape)
)

# The in-place twins of out-of-place ops (add_, __iadd__ ...) are declared with those ops
# (``public(inplace=True)``); ops/__init__.py makes each with ``inplace``.
__all__ = exports(globals())
