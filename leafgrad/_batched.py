"""Batched tensors for ``vmap``: one Tensor object per example-shaped view of a batch.

A ``BatchedTensor`` of vmap level ``L`` stands for one example of ``_value``, a Tensor whose
dim 0 is level L's batch (``_value`` may itself be batched at an outer level, so nested
vmaps nest these). The user sees per-example facts (``shape``, ``dim()``, ``dtype``): its
``_data`` is a stand-in array of the example's shape (``_stand_in.py``) whose values cannot
be read, so code that would compute on them raises instead of using something wrong. Every
primitive that meets a BatchedTensor runs its batching rule (``ops/_batch*.py``) on the
``_value``s; autograd and forward-mode tangents live on the ``_value``s, so derivatives of
the batched computation are the per-example derivatives.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass

import numpy as np

from ._engine.grad_mode import count_special
from ._stand_in import CONTROL_FLOW_ERROR, ITEM_ERROR, stand_in
from ._tensor import Tensor, _normalize_dim, _wrap


@dataclass
class VmapLevel:
    """One active vmap: its level number, batch size and randomness mode."""

    level: int
    size: int
    randomness: str
    # jacfwd's vmap over its basis batches tangents only: primals stay unbatched at it
    tangent_only: bool = False


class _Levels(threading.local):
    # threading.local runs __init__ in every thread: like grad mode, a new thread starts
    # outside every vmap, and one thread's vmap does not batch another thread's ops.
    def __init__(self) -> None:
        self.active: list = []  # this thread's active vmap levels, outermost first


STATE = _Levels()  # read by every primitive call: STATE.active
_levels = itertools.count(1)


def next_level() -> int:
    """A new vmap level: larger than every active one (inner levels are larger)."""
    return next(_levels)


def current_level() -> VmapLevel | None:
    active = STATE.active
    return active[-1] if active else None


_DATA_ERROR = (
    "vmap: accessing `data` under vmap transform is not allowed (as in PyTorch); use "
    "detach() instead"
)
_REQUIRES_GRAD_ERROR = (
    "vmap: requires_grad_() (or torch.autograd.functional.*) inside a vmapped function is not "
    "supported, as in PyTorch; use the transforms (leafgrad.func.grad, vjp, jacrev ...) or "
    "make the tensor require grad outside the vmapped function"
)


class BatchedTensor(Tensor):
    """One example of ``_value`` (whose dim 0 is the batch of vmap level ``_level``)."""

    def __repr__(self) -> str:
        inner = repr(self._value).replace("\n", "\n    ")
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n    {inner}\n)"

    # autograd facts are the value's: the graph is recorded on the values
    @property
    def _requires_grad(self) -> bool:
        return self._value._requires_grad

    @_requires_grad.setter
    def _requires_grad(self, value: bool) -> None:
        self._value._requires_grad = value

    @property
    def grad_fn(self):
        return self._value.grad_fn

    @grad_fn.setter
    def grad_fn(self, node) -> None:
        self._value.grad_fn = node

    @property
    def _tangents(self):
        return self._value._tangents

    @_tangents.setter
    def _tangents(self, value) -> None:
        self._value._tangents = value

    @property
    def _version_counter(self):
        return self._value._version_counter

    @_version_counter.setter
    def _version_counter(self, value) -> None:
        self._value._version_counter = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        raise RuntimeError(_REQUIRES_GRAD_ERROR)

    @property
    def requires_grad(self) -> bool:
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        raise RuntimeError(_REQUIRES_GRAD_ERROR)

    def detach(self) -> Tensor:
        return batched(self._value.detach(), self._level)

    @property
    def data(self) -> Tensor:
        raise RuntimeError(_DATA_ERROR)

    @data.setter
    def data(self, value) -> None:
        raise RuntimeError(_DATA_ERROR)

    def backward(self, *args, **kwargs):
        raise RuntimeError(
            "vmap: backward() on a batched tensor is not supported (as in PyTorch); use "
            "leafgrad.func.grad or leafgrad.autograd.grad inside the vmapped function"
        )

    # an example's layout is its part of the value's memory (as PyTorch reports under vmap)
    def stride(self, dim: int | None = None):
        strides = self._value.stride()[1:]
        if dim is None:
            return strides
        return strides[_normalize_dim(dim, len(strides), "stride")]

    def storage_offset(self) -> int:
        return self._value.storage_offset()

    def item(self):
        raise RuntimeError(ITEM_ERROR)

    __float__ = __int__ = __index__ = item

    def __bool__(self) -> bool:
        raise RuntimeError(CONTROL_FLOW_ERROR)

    def tolist(self):
        raise RuntimeError(
            "vmap: tolist() cannot read the values of a batched tensor (as in PyTorch)"
        )

    def numpy(self, *, force: bool = False):
        raise RuntimeError("vmap: numpy() cannot read the values of a batched tensor")

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("vmap: a batched tensor cannot be converted to a NumPy array")


def batched(value: Tensor, level: int) -> BatchedTensor:
    """The BatchedTensor of level ``level`` whose examples are ``value``'s dim-0 slices."""
    t = object.__new__(BatchedTensor)
    t.__dict__["_value"] = value
    t.__dict__["_level"] = level
    t.__dict__["_data"] = stand_in(value.shape[1:], value._data.dtype)
    return t


def is_batched_at(t, level: int) -> bool:
    return type(t) is BatchedTensor and t._level == level


def physical(t):
    """The plain Tensor under every batching level of ``t`` (``t`` itself if not batched)."""
    while type(t) is BatchedTensor:
        t = t._value
    return t


def levels_of(t) -> tuple:
    """The vmap levels ``t`` is batched at, innermost first."""
    out = []
    while type(t) is BatchedTensor:
        out.append(t._level)
        t = t._value
    return tuple(out)


def level_size(level: int) -> int:
    for lv in STATE.active:
        if lv.level == level:
            return lv.size
    raise RuntimeError(f"vmap: level {level} is not active; a batched tensor escaped its vmap")


def with_levels(t: Tensor, levels: tuple) -> Tensor:
    """``t`` batched at exactly ``levels`` (innermost first): the levels it lacks are added by
    expanding along them (no copy). Raises if ``t`` has a level not in ``levels``."""
    if not levels:
        if type(t) is BatchedTensor:
            raise RuntimeError(
                f"vmap: internal: a tensor batched at level {t._level} was unexpected"
            )
        return t
    top = levels[0]
    if type(t) is BatchedTensor and t._level == top:
        return batched(with_levels(t._value, levels[1:]), top)
    if type(t) is BatchedTensor and t._level > top:
        raise RuntimeError(f"vmap: internal: a tensor batched at level {t._level} was unexpected")
    inner = with_levels(t, levels[1:])
    size = level_size(top)
    return batched(inner.unsqueeze(0).expand((size,) + tuple(inner.shape)), top)


def rewrap(value: Tensor, levels: tuple) -> Tensor:
    """The plain ``value`` (batch dims of ``levels`` in front, outermost first) as batched."""
    for level in reversed(levels):
        value = batched(value, level)
    return value


def lower(t: Tensor, levels: tuple) -> Tensor:
    """``t`` as seen under ``levels`` (innermost first): a tensor over their plain value (their
    batch dims in front, outermost first), batched at the levels of ``t`` not among them."""
    extra = sorted(set(levels_of(t)) - set(levels))
    if not extra:
        return physical(with_levels(t, levels))
    ascending = sorted(set(extra) | set(levels))
    value = physical(with_levels(t, tuple(reversed(ascending))))
    order = [ascending.index(lv) for lv in extra + sorted(levels)]
    return rewrap(_permuted(value, order), tuple(reversed(extra)))


def lift(t: Tensor, levels: tuple) -> Tensor:
    """The inverse of ``lower``: ``t`` over the plain value of ``levels``, maybe batched at
    other levels, as the tensor batched at all of them."""
    extra = sorted(levels_of(t))
    if not extra:
        return rewrap(t, levels)
    if set(extra) & set(levels):
        raise RuntimeError(
            f"vmap: internal: a tensor under vmap levels {levels} is batched at one of them"
        )
    ascending = sorted(set(extra) | set(levels))
    inner = sorted(levels)
    value = physical(t)
    order = [extra.index(lv) if lv in extra else len(extra) + inner.index(lv) for lv in ascending]
    return rewrap(_permuted(value, order), tuple(reversed(ascending)))


def _permuted(value: Tensor, order: list) -> Tensor:
    """``value`` with its leading dims in ``order`` (the rest as they are)."""
    if order == sorted(order):
        return value
    return value.permute(order + list(range(len(order), value.dim())))


def tangent_only_levels() -> set:
    """The active vmap levels at which only tangents are batched (jacfwd's)."""
    return {lv.level for lv in STATE.active if lv.tangent_only}


def union_levels(*tensors) -> tuple:
    """Every level any of ``tensors`` is batched at, innermost first."""
    seen = set()
    for t in tensors:
        seen.update(levels_of(t))
    return tuple(sorted(seen, reverse=True))


def requires_grad_leaf(t: Tensor) -> Tensor:
    """``t.requires_grad_()`` that also works on a batched ``t`` (for the transforms)."""
    physical(t).requires_grad_()
    return t


def batch_map(fn, batched_args: tuple, size: int, others: tuple = ()):
    """``fn(*examples, *others)`` for every example at once: ``batched_args`` have the batch as
    dim 0, ``others`` are passed as they are. ``fn`` returns a Tensor, None, or a tuple of
    them; each Tensor comes back with the batch as dim 0 (expanded if it does not depend on
    the batch). What autograd.functional's vectorize=True, is_grads_batched and batched
    gradcheck are built on."""
    level = VmapLevel(next_level(), size, "error")
    args = tuple(batched(a, level.level) for a in batched_args)
    active = STATE.active
    if not active:
        count_special(True)
    active.append(level)
    try:
        out = fn(*args, *others)
    finally:
        active.pop()
        if not active:
            count_special(False)
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    results = []
    for o in outs:
        if o is None:
            results.append(None)
        elif type(o) is BatchedTensor and o._level == level.level:
            results.append(o._value)
        else:
            results.append(o.unsqueeze(0).expand((size,) + tuple(o.shape)))
    return results[0] if single else tuple(results)


def map_values(fn, *tensors: Tensor) -> Tensor:
    """``fn(*arrays)`` for tensors that may be batched: a constant computed from values in
    NumPy (a permutation from pivots ...) for every example at once. ``fn`` must treat
    leading dims as batch dims; the result is batched like the inputs (no gradient)."""
    levels = union_levels(*tensors)
    if not levels:
        return _wrap(fn(*(t._data for t in tensors)))
    arrays = [physical(with_levels(t, levels))._data for t in tensors]
    return rewrap(_wrap(fn(*arrays)), levels)


def all_values(t: Tensor) -> np.ndarray:
    """The values of every example of ``t`` (its own if unbatched), for checks over them all."""
    return physical(t)._data
