"""How views follow in-place changes, as PyTorch's do.

Writing through a view rebases the view's base onto a ``CopySlices`` node (``copy_slices``).
Then every live view sharing the written tensor's version counter gets its history
regenerated from its base's: an ``AsStridedBackward0`` node (``view_replay``), as PyTorch
names the grad_fn it regenerates. PyTorch regenerates lazily, when the view's grad_fn is
next read; doing it at the write (``refresh_views``) gives the same graphs and keeps the
reads (every op reads its inputs' grad_fn) free of checks. The views PyTorch refuses to
regenerate (outputs of unbind/split, views made in no-grad or inference mode, views a custom
Function returned) become ``_InvalidatedView``s whose grad_fn raises, as PyTorch's does.
"""

from __future__ import annotations

import re

import numpy as np

from .._engine import grad_mode
from .._engine.hooks import move_retain_grad
from .._memory_format import contiguous_format
from .._tensor import Tensor, _wrap
from ._optable import Generic, Linear
from ._primitive import primitive
from ._tangents import tangent_sum

_state = grad_mode._state


def _index_key(key):
    """Unwrap tensors inside an index so NumPy can use it."""
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, list):
        return np.asarray([k._data if isinstance(k, Tensor) else k for k in key])
    return key


def _region(array: np.ndarray, view_fn) -> np.ndarray:
    """The part of ``array`` that ``view_fn`` selects, as a writable NumPy view."""
    with grad_mode.no_grad():
        region = view_fn(_wrap(array))._data
    if not np.may_share_memory(region, array):
        raise RuntimeError("internal: a view function returned a copy, not a view")
    if not region.flags.writeable and array.flags.writeable and not _may_repeat(region):
        # NumPy marks anything made from a broadcast (an expand) read-only, even a part of
        # it that repeats no element (``x.expand(2, n)[0]``); PyTorch writes through it.
        # (One that repeats elements stays read-only: writes into it are refused.)
        region = _writable_view(region)
    return region


def _may_repeat(region: np.ndarray) -> bool:
    """Whether two elements of ``region`` may be one memory location: False where each
    dimension's stride clears the span of the smaller ones (no overlap possible)."""
    span = region.itemsize
    for stride, n in sorted((abs(st), n) for st, n in zip(region.strides, region.shape) if n > 1):
        if stride < span:
            return True
        span += (n - 1) * stride
    return False


def _writable_view(view: np.ndarray) -> np.ndarray:
    """``view`` again (same memory, shape and strides), writable: built on the array that
    owns the memory, which is writable here."""
    owner = view
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    offset = view.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return np.ndarray(view.shape, view.dtype, buffer=owner, offset=offset, strides=view.strides)


def _replayed_on(grad, view_fn):
    """``view_fn(grad)``; where the view function places the view by storage positions
    (``as_strided``), on a C-contiguous copy of ``grad`` owning its memory, as the base it
    was made from (PyTorch's CopySlices replays it on a fresh tensor too). A gradient may be
    a broadcast (a sum's) or a view of a larger array, whose storage is another."""
    if getattr(view_fn, "reads_storage", False):
        if isinstance(grad, Tensor):
            grad = grad.clone(memory_format=contiguous_format)
        else:
            grad = np.array(grad, order="C")
    return view_fn(grad)


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
    plain_rules=True,
)


def _embed_region_forward(src, *, shape, view_fn):
    out = np.zeros(shape, dtype=src.dtype)
    region = _region(out, view_fn)
    if _may_repeat(region):
        # A broadcast view, or overlapping windows (unfold): several of its elements are one
        # element of the base; sum them.
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
    (lambda grad, src, result, *, shape, view_fn: _replayed_on(grad, view_fn),),
    node_name="EmbedRegionBackward0",
    dtype_rule="keep",
    kind=Linear(),
    plain_rules=True,
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
        lambda grad, base, src, result, *, view_fn: _replayed_on(grad, view_fn),
    ),
    kind=Generic(jvp=_copy_slices_jvp),
    node_name="torch::autograd::CopySlices",
    dtype_rule="keep",
    plain_rules=True,
)


_BACKWARD = re.compile(r"Backward\d*$")


def _view_write_error(view: Tensor, op: str, indirect: bool = False) -> RuntimeError:
    """The RuntimeError PyTorch raises for a view it will not give a new history; its
    sentences lead (PyTorch's tests match them), then what to do in our words."""
    kind = view._view_meta[0]
    changed = (
        "its base or another view of its base has been modified inplace"
        if indirect
        else "is being modified inplace"
    )
    fn = view.__dict__.get("grad_fn")  # not the property: an invalidated view's raises
    # PyTorch names the view's node without its "Backward0" suffix ("Output 0 of Unbind").
    who = "" if fn is None else f"Output {view._output_nr} of {_BACKWARD.sub('', fn.name())}"
    if kind in ("no_grad", "inference") or fn is None:
        prefix = (
            "A view was created in"
            if fn is None
            else f"{who} is a view of a view which was created in"
        )
        if kind == "inference":
            head = f"{prefix} inference mode and {changed} in normal mode."
        else:  # a custom Function's view made without recording says "no_grad" too
            head = f"{prefix} no_grad mode and {changed} with grad mode enabled."
    else:
        head = f"{who} is a view and {changed}."
    if kind == "custom_function":
        why = (
            " This view was created inside a custom Function (or because an input was returned "
            "as-is), whose backward the view/in-place machinery would bypass, giving wrong "
            "gradients, so this is forbidden. Clone the output of the custom Function first."
        )
    elif kind == "multi_output":
        why = (
            " This view is the output of a function that returns multiple views. Such "
            "functions do not allow the output views to be modified inplace. Use an "
            "out-of-place op instead (or clone() the view first)."
        )
    else:
        block = "no_grad" if kind == "no_grad" else "inference_mode"
        why = (
            " Whether the change should be recorded is ambiguous, so this is forbidden. Make "
            f"the view and the in-place change both inside the {block} block (not recorded) "
            "or both outside it (recorded)."
        )
    return RuntimeError(head + why)


def _set_history(tensor: Tensor, grad_fn, output_nr: int) -> None:
    """``tensor`` is now computed by ``grad_fn``; a retained gradient follows it there."""
    old_fn, old_nr = tensor.grad_fn, tensor._output_nr
    tensor.grad_fn = grad_fn
    tensor._output_nr = output_nr
    tensor._requires_grad = grad_fn is not None
    if tensor._retains_grad and old_fn is not None:
        move_retain_grad(tensor, old_fn, old_nr)


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
                view._requires_grad = view._requires_grad or base._requires_grad
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
