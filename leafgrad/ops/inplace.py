"""In-place ops (``add_``, ``x[i] = v``, ``+=`` ...) as out-of-place ops written back.

Every in-place op computes its out-of-place result with the usual graph, writes the values
into the target's memory, bumps the version counter the target shares with its views, and
moves the target's history onto the new node. Writing through a view rebases the view's
base onto a ``CopySlices`` node, so gradients flow as PyTorch's do.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._batched import BatchedTensor, levels_of, physical, with_levels
from .._engine import grad_mode
from .._engine.saved import before_write, write_watchers
from .._exposure import exports, public
from .._random import _generator
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
    _region(out, view_fn)[...] = src
    return out


# ``src`` placed into zeros of ``shape`` where ``view_fn`` looks: the adjoint of the view.
embed_region = primitive(
    "embed_region",
    _embed_region_forward,
    (lambda grad, src, result, *, shape, view_fn: view_fn(grad),),
    node_name="EmbedRegionBackward0",
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
    if _state.enabled:
        if target.grad_fn is None and target._requires_grad:
            raise _leaf_error(op, "a leaf Tensor")
        base = target._base
        if base is not None and base.grad_fn is None and base._requires_grad:
            raise _leaf_error(op, "a view of a leaf Tensor")
        # A view a custom Function returned (autograd.function): refused, as in PyTorch.
        refusal = getattr(target._view_fn, "refuses_inplace", None)
        if refusal is not None:
            raise RuntimeError(f"{op}: {refusal}")


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
    target._bump_version()
    recording = _state.enabled and (out._requires_grad or target._requires_grad)
    if not recording and not out._tangents and out._jet is None:
        return target
    if target._base is None:
        _take_history(target, out, recording)
    else:
        _rebase_view(target, target._base, out, recording)
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
    target.grad_fn = out.grad_fn
    target._output_nr = out._output_nr
    target._requires_grad = out.grad_fn is not None
    if out.grad_fn is not None:
        out.grad_fn.saved_result_moved_to(target)


def _rebase_view(view: Tensor, base: Tensor, out: Tensor, recording: bool) -> None:
    """The base now holds ``out`` where the view looks: record that (CopySlices)."""
    rebased = copy_slices(base, out, view_fn=view._view_fn)
    if rebased._tangents:
        base._tangents = dict(rebased._tangents)
    base._jet = rebased._jet
    if recording:
        base.grad_fn = rebased.grad_fn
        base._output_nr = 0
        base._requires_grad = True
    regenerated = view._view_fn(base)
    if regenerated._tangents:
        view._tangents = dict(regenerated._tangents)
    view._jet = regenerated._jet
    if recording:
        view.grad_fn = regenerated.grad_fn
        view._output_nr = regenerated._output_nr
        view._requires_grad = True


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
        rng = _generator(generator)
        with grad_mode.no_grad():
            values = _wrap(
                np.asarray(draw(rng, self._data.shape, *args, **kwargs), dtype=self._data.dtype)
            )
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
