"""Adam's step over a whole parameter group at once, on one flat array per state buffer.

PyTorch's single-tensor Adam runs about ten ATen kernels per parameter; NumPy's calls cost
1-2 us each whatever their size, so a PINN's 18 small parameters spend ~240 us a step in
call overhead (PyTorch 2.13: ~380 us). Here each group's ``exp_avg``, ``exp_avg_sq`` (and
``max_exp_avg_sq``) are views into one flat array per buffer and its ``step`` counts views
into one array, so the update is the same NumPy operations once over the concatenated
gradients: ~50 us. Every operation is elementwise and in the per-parameter path's order, so
the results are bit-identical to it (and to PyTorch's single-tensor kernels, as that path);
each state tensor and parameter gets the version bumps its in-place updates would give.

The state stays PyTorch's: one tensor per parameter and buffer in ``optimizer.state``, each
its own storage to ``untyped_storage()`` and ``storage_offset()`` (its array reaches the flat
one through a memoryview, where ``_storage.storage_array`` stops). The flat path runs while
those tensors hold the arrays it gave them; state it did not make (loaded, or from steps of
the per-parameter path) it adopts where nobody else can see the move (``_adoptable``); for
the rest (parameters without a gradient, a tensor ``lr``, a step that records, state others
hold) the per-parameter path runs.
"""

from __future__ import annotations

import numpy as np

from .. import zeros_like
from .._engine import grad_mode
from .._engine.accumulation import _COUNTS_ARE_EXACT
from .._engine.saved import write_watchers
from ._arrays import _PLAIN_TYPES, _written
from ._ownership import own_array
from ._update import _step_count_tensor

_grad_state = grad_mode._state
_SPECIAL = grad_mode.SPECIAL
_FLAT = "_flat_adam_state"  # the optimizer attribute holding each group's _FlatState


class _FlatState:
    """One group's flat buffers, the state tensors viewing them and the parameters' layout."""

    __slots__ = ("arrays", "buffers", "grads", "params", "slices", "steps", "tensors")

    def __init__(self, params: list, names: tuple, optimizer) -> None:
        dtype = params[0]._data.dtype
        sizes = [p._data.size for p in params]
        ends = np.cumsum(sizes).tolist()
        self.slices = [slice(e - s, e) for s, e in zip(sizes, ends)]
        self.params = list(params)
        total = ends[-1] if ends else 0
        self.grads = np.empty(total, dtype)
        self.buffers = {name: np.zeros(total, dtype) for name in names}
        self.tensors = {name: [] for name in ("step", *names)}
        self.arrays = {name: [] for name in ("step", *names)}
        self.steps = None
        for i, p in enumerate(params):
            state = optimizer.state[p]
            step = state.get("step")
            if step is None:
                step = state["step"] = _step_count_tensor()
            if self.steps is None:
                self.steps = np.zeros(len(params), step._data.dtype)
            self._hold("step", step, _own_view(self.steps, slice(i, i + 1), ()))
            for name in names:
                t = state.get(name)
                if t is None:
                    t = state[name] = zeros_like(p)
                self._hold(name, t, _own_view(self.buffers[name], self.slices[i], p._data.shape))

    def _hold(self, name: str, t, array: np.ndarray) -> None:
        """Make ``array`` (zeros, in the flat buffer) ``t``'s array, with ``t``'s values."""
        array[...] = t._data
        t._data = array
        self.tensors[name].append(t)
        self.arrays[name].append(array)

    def current(self, optimizer, params: list, names: tuple) -> bool:
        """Whether ``params`` are this state's, in order, and their state its views still."""
        if not _same(params, self.params):
            return False
        tensors, arrays = self.tensors, self.arrays
        if len(tensors) != 1 + len(names):
            return False
        for i, p in enumerate(params):
            if p._data.shape != arrays["exp_avg"][i].shape:  # ``p.data = ...`` replaced it
                return False
            state = optimizer.state.get(p)
            if state is None:
                return False
            for name in tensors:
                t = state.get(name)
                if t is not tensors[name][i] or t._data is not arrays[name][i]:
                    return False
        return True


def _adoptable(optimizer, params: list, names: tuple) -> bool:
    """Whether the flat buffers may hold ``params``' state: none yet (then made there), or
    (loaded from a checkpoint, made by the per-parameter path) exactly Adam's keys, each a
    plain contiguous tensor of its parameter's shape and dtype (``step``: 0-d, one dtype
    for all) whose array nothing else refers to, so that moving it into the buffers (its
    values copied, the tensor kept) changes nothing anyone could see."""
    states = [optimizer.state.get(p) for p in params]
    if not any(states):
        return True
    if not _COUNTS_ARE_EXACT:  # where reference counts are not exact, none is adopted
        return False
    keys = {"step", *names}
    step_dtype = None
    for p, state in zip(params, states):
        if not state or state.keys() != keys:
            return False
        for name, t in state.items():
            shape, dtype = ((), step_dtype) if name == "step" else (p._data.shape, p._data.dtype)
            if not own_array(t, shape) or (dtype is not None and t._data.dtype != dtype):
                return False
            if name == "step":
                if t._data.dtype.kind != "f":
                    return False
                step_dtype = t._data.dtype
    return True


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _own_view(flat: np.ndarray, part: slice, shape: tuple) -> np.ndarray:
    """``flat[part]`` in ``shape``, through a memoryview: an array that writes into ``flat``
    but is a storage of its own to leafgrad (``_storage.storage_array`` stops at it)."""
    return np.frombuffer(memoryview(flat)[part], dtype=flat.dtype).reshape(shape)


def _plain(p) -> bool:
    """Whether ``p`` and its gradient are plain C-ordered float arrays of one dtype and shape
    that the step may write in place (as ``_arrays._update_forms`` asks per parameter)."""
    a, grad = p._data, p.grad
    if type(p) not in _PLAIN_TYPES or p._is_inference or type(a) is not np.ndarray:
        return False
    if not a.flags.writeable or not a.flags.c_contiguous or a.dtype.kind != "f":
        return False
    if type(grad) not in _PLAIN_TYPES or grad._is_inference:
        return False
    g = grad._data
    # ``==`` after ``is``: an array made elsewhere (a compiled kernel) may carry a dtype
    # object equal to NumPy's own but not it
    return (
        type(g) is np.ndarray and (g.dtype is a.dtype or g.dtype == a.dtype) and g.shape == a.shape
    )


def _usable(group: dict, params: list, lr, weight_decay) -> bool:
    if group.get("differentiable") or _grad_state.enabled or _SPECIAL[0] or write_watchers:
        return False
    if type(lr) is not float and type(lr) is not int:
        return False
    if not params or len(params) != len(group["params"]):
        return False
    dtype = params[0]._data.dtype
    for p in params:
        if not _plain(p) or (p._data.dtype is not dtype and p._data.dtype != dtype):
            return False
    return True


def step(optimizer, group: dict, params: list, lr, beta1, beta2, eps, weight_decay, amsgrad):
    """Adam's update of ``params`` (every one of ``group``'s, each with a gradient) on flat
    arrays; False, having done nothing, where the per-parameter path must run instead."""
    if not _usable(group, params, lr, weight_decay):
        return False
    names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if amsgrad else ("exp_avg", "exp_avg_sq")
    flats = optimizer.__dict__.setdefault(_FLAT, {})
    flat = flats.get(id(group))
    if flat is None or not flat.current(optimizer, params, names):
        if not _adoptable(optimizer, params, names):
            flats.pop(id(group), None)
            return False  # state that others may hold the arrays of: leave it as it is
        flat = flats[id(group)] = _FlatState(params, names, optimizer)
    steps = flat.steps
    np.add(steps, 1, out=steps)
    count = float(steps[0])
    if len(steps) > 1 and not (steps == steps[0]).all():  # (not after this path's own steps)
        np.subtract(steps, 1, out=steps)
        return False
    grads = flat.grads
    np.concatenate([p.grad._data.reshape(-1) for p in params], out=grads)
    if group["maximize"]:
        np.negative(grads, out=grads)
    decay = None  # decoupled weight decay's factor on the parameters (AdamW)
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            decay = 1 - lr * weight_decay
        else:
            values = np.concatenate([p._data.reshape(-1) for p in params])
            np.add(grads, np.multiply(values, weight_decay), out=grads)
    buffers = flat.buffers
    exp_avg, exp_avg_sq = buffers["exp_avg"], buffers["exp_avg_sq"]
    # The per-parameter forms (_arrays._OnArrays), in their order.
    weight = 1 - beta1
    if abs(weight) < 0.5:
        np.add(exp_avg, np.multiply(np.subtract(grads, exp_avg), weight), out=exp_avg)
    else:
        np.subtract(grads, np.multiply(np.subtract(grads, exp_avg), 1 - weight), out=exp_avg)
    np.multiply(exp_avg_sq, beta2, out=exp_avg_sq)
    np.add(exp_avg_sq, np.multiply(np.multiply(grads, 1 - beta2), grads), out=exp_avg_sq)
    bias_correction1 = 1 - beta1**count
    bias_correction2 = 1 - beta2**count
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2**0.5
    second = exp_avg_sq
    if amsgrad:
        second = buffers["max_exp_avg_sq"]
        np.maximum(second, exp_avg_sq, out=second)
    denom = np.add(np.divide(np.sqrt(second), bias_correction2_sqrt), eps)
    update = np.divide(np.multiply(exp_avg, -step_size), denom, out=denom)
    for p, s in zip(params, flat.slices):
        a = p._data
        if decay is not None:
            np.multiply(a, decay, out=a)
        np.add(a, update[s].reshape(a.shape), out=a)
        _written(p, 1 if decay is None else 2)
    tensors = flat.tensors
    for t in tensors["step"]:
        _written(t, 1)
    for t in tensors["exp_avg"]:
        _written(t, 1)
    for t in tensors["exp_avg_sq"]:
        _written(t, 2)  # mul_ then addcmul_
    if amsgrad:
        for t in tensors["max_exp_avg_sq"]:
            _written(t, 1)
    return True
