"""Saved tensors: what a node keeps for its backward, guarded by version counters.

One ``SavedTensors`` per node plays the part of PyTorch's SavedVariables: it records the
version each saved tensor has when saved, checks it when backward unpacks the values (an
in-place change in between raises a RuntimeError naming the node), and ``release`` drops the
values after a backward without ``retain_graph``, so that using them again raises the
RuntimeError that points to ``retain_graph=True``.

Saved tensors hooks (``autograd.graph.saved_tensors_hooks``) replace each saved tensor by
what ``pack(tensor)`` returns and give the values back through ``unpack(packed)`` each time
backward reads them, as PyTorch's do; packed values are not version-checked.
"""

from __future__ import annotations

import re
import threading

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _wrap
from . import anomaly, grad_mode

# PyTorch's words, then ours in parentheses.
FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward. ({op} released its saved tensors in the first backward() or "
    "autograd.grad(): pass retain_graph=True to that first call.)"
)

_SAVE_MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{what}]{which} is at version {now}; expected version {then} instead. Hint: "
    "{hint} ({where}; clone it before modifying it in place, or modify a copy.)"
)
_HINT = (
    "enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
_ANOMALY_HINT = (
    "the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!"
)


def _op_of(node_name: str) -> str:
    """The op a node belongs to, as PyTorch's error names it (``ExpBackward0`` -> ``Exp``)."""
    return re.sub(r"Backward\d*$", "", node_name)


def _described(data) -> str:
    """``torch.FloatTensor [3]``: a tensor as PyTorch's error describes it."""
    shape = ", ".join(str(s) for s in data.shape)
    return f"{_dtype.legacy_type_name(data.dtype)} [{shape}]"


class _HookState(threading.local):
    def __init__(self) -> None:
        self.stack: list = []  # (pack, unpack) pairs pushed in this thread, innermost last
        self.disabled = None  # the error message while saved tensors hooks are disabled


_hooks = _HookState()
# Pairs pushed in any thread: saving checks the thread's stack only if nonzero. A list, so
# that ops read it as ``PUSHED[0]`` (a module attribute read costs them more).
PUSHED = [0]


def push_hooks(pack, unpack) -> None:
    """Pack and unpack every tensor saved from now on in this thread (until ``pop_hooks``)."""
    if _hooks.disabled is not None:
        raise RuntimeError(_hooks.disabled)
    _hooks.stack.append((pack, unpack))
    PUSHED[0] += 1


def pop_hooks() -> None:
    _hooks.stack.pop()
    PUSHED[0] -= 1


def disable_hooks(message: str | None):
    """Refuse saved tensors hooks with ``message`` (None: allow them again); returns the
    previous message. RuntimeError(message) if hooks are in use in this thread now."""
    if message is not None and _hooks.stack:
        raise RuntimeError(message)
    previous = _hooks.disabled
    _hooks.disabled = message
    return previous


# Called with a tensor just before an in-place op writes into its memory (ops/inplace.py):
# allow_mutation_on_saved_tensors clones saved values there.
write_watchers: list = []


def before_write(tensor: Tensor) -> None:
    for watch in list(write_watchers):
        watch(tensor)


class _Packed:
    """A saved tensor as ``pack`` returned it, with what autograd needs to rebuild it: the
    grad_fn or accumulator it hangs from, its shape and dtype."""

    __slots__ = (
        "accumulator",
        "dtype",
        "grad_fn",
        "output_nr",
        "packed",
        "requires_grad",
        "shape",
        "unpack_hook",
    )

    def __init__(self, tensor: Tensor, pack, unpack) -> None:
        counter = tensor._shared_version_counter()
        version = counter[0]
        with grad_mode.no_grad():  # as in PyTorch, the pack hook records nothing
            self.packed = pack(tensor)
        if counter[0] != version:
            raise RuntimeError(
                "a saved tensors pack hook modified its input in place; the tensors a pack "
                "hook receives are the ones backward needs: pack a copy instead"
            )
        self.unpack_hook = unpack
        self.grad_fn = tensor.grad_fn
        self.output_nr = tensor._output_nr
        self.requires_grad = tensor._requires_grad
        self.accumulator = None
        if self.grad_fn is None and self.requires_grad:
            from .graph import gradient_edge  # why: graph imports this module

            self.accumulator = gradient_edge(tensor)[0]
        self.shape = tensor._data.shape
        self.dtype = tensor._data.dtype

    def unpack(self) -> Tensor:
        """``unpack(packed)``, carrying the saved tensor's place in the graph."""
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(
                "a saved tensors unpack hook must return a Tensor, but it returned "
                f"{type(t).__name__}"
            )
        if (
            t.grad_fn is self.grad_fn
            and t._output_nr == self.output_nr
            and t._requires_grad == self.requires_grad
            and (self.accumulator is None or t._accumulator is self.accumulator)
        ):
            return t
        out = _wrap(t._data, self.requires_grad)
        if self.grad_fn is not None:
            out.grad_fn = self.grad_fn
            out._output_nr = self.output_nr
        elif self.accumulator is not None:
            out._accumulator = self.accumulator
        return out


_HOOKS_SET = (
    "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
    "one pair of hooks is allowed at a time."
)


class SavedTensor:
    """One save of a node (``grad_fn._raw_saved_<name>``), as PyTorch's: ``register_hooks``
    packs it now and unpacks it when backward (or ``_saved_<name>``) reads it."""

    __slots__ = ("_name", "_node")

    def __init__(self, node, name: str) -> None:
        self._node, self._name = node, name

    def unpack(self):
        """The saved tensor (what ``grad_fn._saved_<name>`` gives)."""
        return self._node._read_save(self._name)

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """Keep ``pack_hook(tensor)`` instead of the tensor; backward reads
        ``unpack_hook(packed)``. One pair per save, none where saved tensors hooks packed it."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError(
                "register_hooks(): incompatible function arguments: pack_hook and unpack_hook "
                f"must be callables, got {type(pack_hook).__name__} and "
                f"{type(unpack_hook).__name__}"
            )
        node = self._node
        names = getattr(node._backward, "saved_names", None) or {}
        what, index = names.get(self._name, (None, None))
        saved = node._saved
        if saved._released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward."
            )
        if what == "output":
            saved.pack_output(self.unpack(), pack_hook, unpack_hook)
            return
        value = saved.value(index) if what == "input" and index in saved._checked else None
        if type(value) is _Packed or type(value) is _PackedHooked:
            raise RuntimeError(_HOOKS_SET)
        if not isinstance(value, Tensor):
            raise RuntimeError(
                "Calling register_hooks on a saved tensor with value None is forbidden"
            )
        saved.pack_value(index, _PackedHooked(self.unpack(), pack_hook, unpack_hook))


class _PackedHooked(_Packed):
    """A save packed by its own ``SavedTensor.register_hooks`` (not by saved tensors hooks)."""

    __slots__ = ()


def _versions(values: tuple, checked: tuple) -> list:
    """The version now of each value at the ``checked`` indices (0 for values that are not
    tensors and for untouched tensors)."""
    # A plain loop: twice as fast as a comprehension here, and this runs for every op.
    versions = []
    for i in checked:
        a = values[i]
        if type(a) is Tensor or isinstance(a, Tensor):
            counter = a._version_counter
            versions.append(0 if counter is None else counter[0])
        else:
            versions.append(0)
    return versions


# Tuples that every node of n (< 64) inputs shares: the versions of n saved tensors never
# changed, and the indices of n values all saved (more inputs: built afresh).
_ZEROS = tuple((0,) * n for n in range(64))
_ALL = tuple(tuple(range(n)) for n in range(64))


def _all(n: int) -> tuple:
    """The indices of ``n`` values, all saved."""
    return _ALL[n] if n < 64 else tuple(range(n))


# The saves PyTorch's nodes keep as int64 (dims, positions, sizes of pieces): its Python
# binding shows them as unsigned 64-bit numbers, so a negative one reads as 2**64 + value
# (``x.sum(-1).grad_fn._saved_dim == (18446744073709551615,)``). Its Scalars (alpha, min,
# value ...) show as they are.
_INT64_SAVES = frozenset(
    {"dim", "dims", "dim0", "dim1", "dim2", "index", "start", "end", "step", "diagonal",
     "offset", "k", "repeats", "shifts", "split_size", "split_sizes", "storage_offset", "size",
     "stride", "reduction"}
)  # fmt: skip


def _shown_param(value, owner: str):
    """A saved parameter as grad_fn shows it: an index array as a tensor; RuntimeError once
    backward freed it (as a freed save)."""
    if type(value) is _FreedArray or (
        isinstance(value, Tensor) and type(value._data) is _FreedArray
    ):
        raise RuntimeError(FREED_MESSAGE.format(op=owner))
    return _wrap(value) if type(value) is np.ndarray else value


def as_pytorch_shows(name: str, value):
    """``value`` as PyTorch's grad_fn shows the save ``name`` (see ``_INT64_SAVES``)."""
    if name not in _INT64_SAVES:
        return value
    if type(value) is int:
        return value + 2**64 if value < 0 else value
    if type(value) is tuple:
        return tuple(v + 2**64 if type(v) is int and v < 0 else v for v in value)
    return value


class _SavedTensors:
    """What one node saved for backward: values (Tensors or not), parameters and an output.

    ``check_versions`` says which values are saved in PyTorch's sense: True (all), False
    (none) or the indices of those (an op's declared saves). The other Tensors are kept as
    shapes and dtypes only (stand-ins shared by every node), so their arrays can be freed,
    and a rule reading their values raises, naming ``owner``. Saved values are recorded
    with the versions their tensors have now and checked when unpacked, and once released
    a second unpack raises; numbers nobody saved stay. The output is kept as arrays, since
    a Tensor whose ``grad_fn`` is the node would be a reference cycle, and is saved
    (guarded by the version counter of the tensor that holds it) or only kept for its
    shapes. Under saved tensors hooks the saved values and output are what ``pack`` made of
    them (not version-checked).

    ``from_ctx``: saved by a custom Function's ``ctx.save_for_backward``, as PyTorch does it:
    version errors name the index, and unpacking after release raises. Otherwise (the saves
    of an op) release leaves stand-ins that know only shapes and dtypes, so rules that need
    no values (add, sum, view, ...) still run a second time, as PyTorch's nodes that save
    only sizes do; reading a value through a stand-in raises.

    ``output`` and ``output_tensor``: as ``save_output`` takes them (an op's node passes
    them here, which spares a call per recorded op).
    """

    __slots__ = (
        "_checked",
        "_from_ctx",
        "_more_guards",
        "_output_guard",
        "_output_saved",
        "_packed",
        "_released",
        "_values",
        "_versions",
        "output",
        "output_tangents",
        "params",
    )

    def __init__(
        self,
        values: tuple,
        params: dict | None = None,
        check_versions: bool | tuple = True,
        from_ctx: bool = False,
        owner: str = "an op",
        output=None,
        output_tensor=None,
    ) -> None:
        self._setup(values, params, check_versions, from_ctx, owner, output, output_tensor)

    def _setup(self, values, params, check_versions, from_ctx, owner, output, output_tensor):
        """``__init__``'s work, returning self: an op's node makes its saves with
        ``SavedTensors.__new__(SavedTensors)._setup(...)``, cheaper than calling the class
        (one per op)."""
        # Kept lean: chained assignments, loops inline, shared tuples.
        self.params = params
        # _output_guard: (version counter, version at save); output_tangents: forward mode,
        # the output's tangents; _more_guards: a multi-output op's other saved outputs (qr's R).
        self._output_guard = self.output_tangents = self._more_guards = None
        # _output_saved: guarded, not only kept for its shapes; _packed: by saved tensors hooks.
        self._output_saved = self._released = self._packed = False
        self._from_ctx = from_ctx
        if check_versions.__class__ is not tuple:
            check_versions = _all(len(values)) if check_versions is True else ()
        if len(check_versions) < len(values):
            # The inputs whose shapes alone the rules read are not kept, so their arrays are
            # freed as soon as nothing else holds them (an add no longer keeps the product
            # before it alive), as PyTorch keeps only their sizes: each becomes a stand-in
            # that knows its shape, dtype and requires_grad only, one per kind of input
            # shared by every node. (Inline, with a counter: this runs for most ops.)
            out = []
            i = 0
            for v in values:
                if (type(v) is Tensor or isinstance(v, Tensor)) and i not in check_versions:
                    d = v._data
                    key = (d.shape, d.dtype, v._requires_grad, owner)
                    stand_in = _unsaved.get(key)
                    out.append(stand_in if stand_in is not None else _new_stand_in(_unsaved, key))
                else:
                    out.append(v)
                i += 1
            values = tuple(out)
        self._values = values
        self._checked = check_versions
        self._versions = None
        if check_versions:
            # Most saved tensors were never changed in place: their versions are a shared
            # tuple of zeros, one object fewer per node for the garbage collector to count.
            n = len(check_versions)
            versions = _ZEROS[n] if n < 64 else (0,) * n
            k = 0
            for i in check_versions:
                a = values[i]
                if type(a) is Tensor or isinstance(a, Tensor):
                    counter = a._version_counter
                    if counter is not None and counter[0]:
                        if type(versions) is tuple:
                            versions = list(versions)
                        versions[k] = counter[0]
                k += 1
            self._versions = versions
            if PUSHED[0] and _hooks.stack:
                self._pack_values()
        if output_tensor is None or PUSHED[0] or type(output_tensor) is tuple:
            self.output = None
            if output is not None:
                self.save_output(output, output_tensor)
        else:  # save_output's common case inline: one fresh output, no hooks anywhere
            self.output = output
            self._output_saved = True
            counter = output_tensor._version_counter
            if counter is None:
                counter = output_tensor._version_counter = [0]
            self._output_guard = (counter, counter[0])
        return self

    def _pack_values(self) -> None:
        """Keep what the innermost saved tensors hooks' ``pack`` makes of each saved tensor."""
        pack, unpack = _hooks.stack[-1]
        values = list(self._values)
        for i in self._checked:
            a = values[i]
            if isinstance(a, Tensor):
                values[i] = _Packed(a, pack, unpack)
                self._packed = True
        if self._packed:
            self._values = tuple(values)
            self._versions = None  # as in PyTorch, packed values are not version-checked

    def __len__(self) -> int:
        return len(self._values)

    @property
    def released(self) -> bool:
        return self._released

    @property
    def values(self) -> tuple:
        """The saved values without any check (after release: stand-ins), for display."""
        return tuple(self._values)

    def value(self, i: int):
        """The ``i``-th value, unchecked (None where there is none)."""
        return self._values[i] if i < len(self._values) else None

    def is_saved(self, i: int) -> bool:
        """Whether the ``i``-th value is saved (version-checked), not only held for shapes."""
        return i in self._checked

    @property
    def holds_output(self) -> bool:
        """Whether the output is saved (guarded), not only kept for its shapes."""
        return self._output_saved

    @property
    def holds_saves(self) -> bool:
        """Whether anything is saved in PyTorch's sense (a second backward then raises)."""
        return bool(self._checked) or self._output_saved

    def save_output(self, data, tensor: Tensor | None) -> None:
        """Keep the output arrays ``data``; ``tensor``'s version counter guards them (None:
        kept for their shapes only, not saved; under saved tensors hooks: what
        ``pack(tensor)`` returns, unguarded)."""
        if tensor is None:
            self.output = data
            return
        self._output_saved = True
        if type(tensor) is tuple:  # a multi-output op's saved outputs (Q and R)
            self._save_outputs(data, tensor)
            return
        if PUSHED[0] and _hooks.stack and type(data) is not tuple:
            pack, unpack = _hooks.stack[-1]
            self.output = _PackedOutput(_Packed(tensor, pack, unpack))
            return
        self.output = data
        counter = tensor._shared_version_counter()
        self._output_guard = (counter, counter[0])

    def _save_outputs(self, data: tuple, tensors: tuple) -> None:
        """Guard each of ``tensors`` (some of the outputs ``data``), or, under saved tensors
        hooks, keep what ``pack`` makes of each (the others are kept for their shapes)."""
        if PUSHED[0] and _hooks.stack:
            pack, unpack = _hooks.stack[-1]
            packed = {id(t._data): _PackedOutput(_Packed(t, pack, unpack)) for t in tensors}
            self.output = tuple(packed.get(id(d), d) for d in data)
            return
        self.output = data
        guards = []
        for t in tensors:
            counter = t._shared_version_counter()
            guards.append((counter, counter[0]))
        self._output_guard = guards[0]
        self._more_guards = tuple(guards[1:]) or None

    def pack_value(self, i: int, packed: _Packed) -> None:
        """Keep ``packed`` as the ``i``-th saved value (a SavedTensor's own hooks)."""
        self._values = self._values[:i] + (packed,) + self._values[i + 1 :]
        self._packed = True

    def pack_output(self, tensor: Tensor, pack, unpack) -> None:
        """Keep what ``pack`` makes of the saved output (one output)."""
        if type(self.output) is _PackedOutput:
            raise RuntimeError(_HOOKS_SET)
        if type(self.output) is tuple:
            raise RuntimeError(
                "register_hooks on one saved output of an op with several outputs is not "
                "supported; use torch.autograd.graph.saved_tensors_hooks around the op"
            )
        self.output = _PackedOutput(_PackedHooked(tensor, pack, unpack))
        self._output_guard = None

    def output_arrays(self):
        """The saved output's arrays (through the unpack hook if it was packed)."""
        output = self.output
        if type(output) is tuple:
            return tuple(o.saved.unpack()._data if type(o) is _PackedOutput else o for o in output)
        if type(output) is _PackedOutput:
            return output.saved.unpack()._data
        return output

    def guard_output_with(self, tensor: Tensor) -> None:
        """Watch ``tensor``'s version counter for the saved output (it holds those values)."""
        if self._output_saved and not self._released and type(self.output) is not _PackedOutput:
            counter = tensor._shared_version_counter()
            self._output_guard = (counter, counter[0])

    def replace(self, i: int, tensor: Tensor) -> None:
        """Save ``tensor`` as the ``i``-th value instead, at the version it has now."""
        values = self._values
        self._values = values[:i] + (tensor,) + values[i + 1 :]
        if i in self._checked and self._versions is not None:
            versions = list(self._versions)
            versions[self._checked.index(i)] = _versions((tensor,), (0,))[0]
            self._versions = versions

    def unpack(self, owner: str) -> tuple:
        """The saved values for ``owner``'s backward.

        RuntimeError if a saved tensor (or the output) was modified in place since it was
        saved, or if they were released (then the values of a node that saved nothing are
        stand-ins that know only shapes and dtypes, as PyTorch's nodes keep only sizes).
        """
        if self._released:
            if self._from_ctx or self.holds_saves:
                raise RuntimeError(FREED_MESSAGE.format(op=owner))
            return self._values  # stand-ins that know shapes only (and numbers)
        versions = self._versions
        if versions is not None:
            values = self._values
            k = 0
            for i in self._checked:
                a = values[i]
                if type(a) is Tensor or isinstance(a, Tensor):
                    counter = a._version_counter
                    if counter is not None and counter[0] != versions[k]:
                        raise self._modified(owner, i, counter[0], versions[k], a)
                k += 1
        guard = self._output_guard
        if guard is not None and guard[0][0] != guard[1]:
            raise self._modified(owner, None, guard[0][0], guard[1])
        if self._more_guards is not None:
            self._check_more_guards(owner)
        if self._packed:
            return self._unpacked()
        return self._values

    def _unpacked(self) -> tuple:
        """The values with each packed one unpacked, in the order they were packed (as
        PyTorch's nodes unpack: mul's ``other`` before its ``self``)."""
        values = list(self._values)
        order = [*self._checked, *(i for i in range(len(values)) if i not in self._checked)]
        for i in order:
            a = values[i]
            if type(a) is _Packed or type(a) is _PackedHooked:
                values[i] = a.unpack()
        return tuple(values)

    def attribute(self, name: str, names: dict | None, owner: str, result):
        """The save PyTorch names ``name`` (grad_fn's ``_saved_<name>``): a saved tensor
        (None where the guard left it unsaved; RuntimeError once modified or freed), a
        Python number operand as a 0-d tensor, or a parameter. ``names`` maps the op's
        names to ``(what, index)``, what ``"input"``, ``"output"`` or ``"param"``;
        ``result()`` builds the output tensors. AttributeError for a name not saved."""
        entry = (names or {}).get(name)
        if entry is None:
            raise AttributeError(f"{owner} saves nothing called {name!r}")
        what, index = entry
        if what == "meta":  # sizes and the like: kept after release too, as in PyTorch
            return as_pytorch_shows(name, index(self._values, self.params or {}))
        if what == "param":  # ``index``: its default
            value = (self.params or {}).get(name, index)
            if type(value) is tuple and any(
                type(v) is np.ndarray or type(v) is _FreedArray for v in value
            ):
                return tuple(_shown_param(v, owner) for v in value)  # index's indices
            return as_pytorch_shows(name, _shown_param(value, owner))
        if what == "input" and index not in self._checked:
            return None
        if self._released:
            raise RuntimeError(FREED_MESSAGE.format(op=owner))
        if what == "output":
            guard = self._output_guard
            if guard is not None and guard[0][0] != guard[1]:
                raise self._modified(owner, None, guard[0][0], guard[1])
            if self._more_guards is not None:
                self._check_more_guards(owner)
            out = result()
            return out if type(out) is not tuple else out[index]
        value = self._values[index]
        if type(value) is _Packed or type(value) is _PackedHooked:
            return value.unpack()
        if type(value) is Tensor or isinstance(value, Tensor):
            k = self._checked.index(index)
            counter = value._version_counter
            if counter is not None and counter[0] != self._versions[k]:
                raise self._modified(owner, index, counter[0], self._versions[k], value)
            return value
        return _wrap(np.asarray(value))  # PyTorch saves a number operand as a 0-d tensor

    def guard_tensors(self, tensors) -> None:
        """Refuse the backward, as for a modified saved tensor, once one of ``tensors`` is
        changed in place: an op's index tensors, whose values the op keeps as a copy where
        PyTorch saves the tensors themselves."""
        guards = []
        for t in tensors:
            counter = t._shared_version_counter()
            guards.append((counter, counter[0]))
        self._more_guards = (self._more_guards or ()) + tuple(guards)

    def _check_more_guards(self, owner: str) -> None:
        for counter, version in self._more_guards:
            if counter[0] != version:
                raise self._modified(owner, None, counter[0], version)

    def check_not_released(self, owner: str) -> None:
        """RuntimeError if these saves held anything and were released (a second backward)."""
        if self._released and self._values:
            raise RuntimeError(FREED_MESSAGE.format(op=owner))

    def _modified(self, owner: str, index, now: int, then: int, tensor=None) -> RuntimeError:
        """PyTorch's error for a saved tensor changed in place: the saved input ``tensor``
        (output ``which`` of its current node), the saved output (``index`` None: output 0
        of ``owner``), or else an index tensor the op guards."""
        if tensor is not None:
            data, fn, nr = tensor._data, tensor.grad_fn, tensor._output_nr
            which = "" if fn is None else f", which is output {nr} of {_op_of(fn.name())},"
            where = f"input {index} saved by {owner}"
        elif index is None and self.output is not None:
            data = self.output[0] if type(self.output) is tuple else self.output
            which = f", which is output 0 of {_op_of(owner)},"
            where = f"the result saved by {owner}"
        else:
            data, which, where = None, "", f"an index tensor guarded by {owner}"
        what = "an index tensor" if data is None else _described(data)
        hint = _ANOMALY_HINT if anomaly.is_anomaly_enabled() else _HINT
        return RuntimeError(
            _SAVE_MODIFIED.format(
                what=what, which=which, now=now, then=then, hint=hint, where=where
            )
        )

    def release(self, owner: str) -> None:
        """Drop the saved values once backward is done with them (idempotent).

        ``from_ctx`` saves keep nothing; an op's saves keep shapes and dtypes: each saved
        value becomes a stand-in shared by every node (see ``_FreedArray``), the inputs kept
        for their shapes only are stand-ins already, and index arrays among the parameters
        are freed too. Release runs for every node of every backward: it drops references
        and builds nothing where nothing was saved.
        """
        if self._released:
            return
        self._released = True
        self._output_guard = self._more_guards = None
        if self._from_ctx:
            self._values = (None,) * len(self._values)  # the count says something was saved
            return
        if self._checked:
            self._values = _freed_values(self._values, self._checked, owner)
        params = self.params
        if params and _any_array(params.values()):
            # Index arrays are saved values too (gather, index_select, advanced indexing).
            self.params = _released_params(params, owner)
        output = self.output
        if output is not None:
            if type(output) is tuple:
                self.output = _freed_outputs(output, owner)
            else:  # _freed's cache read inline (one output: most nodes that keep one)
                freed = _arrays.get((_FreedArray, output.shape, output.dtype, owner))
                self.output = (
                    freed if freed is not None else _freed(output.shape, output.dtype, owner)
                )


class SavedTensors(_SavedTensors):
    """``_SavedTensors``, whose fields and methods are compiled as a C type
    (``saved.pxd``, closed to new attributes), as a class that takes them."""

    __slots__ = ()


class _PackedOutput:
    """A saved output kept by a pack hook; its shape and dtype stay readable."""

    __slots__ = ("saved",)

    def __init__(self, saved: _Packed) -> None:
        self.saved = saved

    @property
    def shape(self) -> tuple:
        return self.saved.shape

    @property
    def dtype(self):
        return self.saved.dtype


class _FreedArray:
    """What a released save keeps of an array: its shape and dtype, not its values.

    A rule that needs only metadata (those of add, neg, sum, mean, view, expand, to, clone)
    still runs after release. Any use of the values (NumPy, arithmetic, methods) raises the
    RuntimeError that points to ``retain_graph=True``.
    """

    __slots__ = ("_op", "dtype", "shape")

    def __init__(self, shape: tuple, dtype, op: str) -> None:
        self.shape = shape
        self.dtype = dtype
        self._op = op

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def _freed(self, *args, **kwargs):
        raise RuntimeError(FREED_MESSAGE.format(op=self._op))

    __array__ = __array_ufunc__ = __array_function__ = _freed
    __getitem__ = __iter__ = __len__ = __bool__ = __float__ = __int__ = __index__ = _freed
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _freed
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = __abs__ = _freed
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _freed
    __hash__ = object.__hash__

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        self._freed()

    def __repr__(self) -> str:
        return f"<values of a {list(self.shape)} {self.dtype} array freed by {self._op}>"


def _any_array(values) -> bool:
    """Whether any of ``values`` holds an array (a plain loop: this runs for every node with
    parameters; most are numbers, None, strings or tuples of ints, passed over first)."""
    for v in values:
        kind = type(v)
        if kind is int or kind is bool or kind is float or kind is str or v is None:
            continue
        if _holds_array(v):
            return True
    return False


def _holds_array(value) -> bool:
    if type(value) is tuple:
        for v in value:
            if type(v) is not int and _holds_array(v):
                return True
        return False
    return isinstance(value, (np.ndarray, Tensor)) or (
        isinstance(value, tuple) and any(_holds_array(v) for v in value)
    )


def _freed_outputs(outputs: tuple, op: str) -> tuple:
    return tuple(_freed(r.shape, r.dtype, op) for r in outputs)


def _released_params(params: dict, op: str) -> dict:
    """``params`` with their arrays freed. (This and ``_freed_outputs`` are functions of
    their own: a comprehension in ``release`` would make ``owner`` a closure cell, made on
    every call.)"""
    return {k: _release_param(v, op) for k, v in params.items()}


def _release_param(value, op: str):
    if isinstance(value, np.ndarray):
        return _FreedArray(value.shape, value.dtype, op)
    if isinstance(value, Tensor):
        return _wrap(_FreedArray(value._data.shape, value._data.dtype, op))
    if isinstance(value, tuple):
        return tuple(_release_param(v, op) for v in value)
    return value


def _freed_values(values: tuple, saved: tuple, owner: str) -> tuple:
    """``values`` once released: each saved one (``saved``: indices) replaced by a stand-in
    that knows only its shape and dtype (the others are stand-ins or numbers already)."""
    out = list(values)
    for i in saved:
        v = out[i]
        if type(v) is Tensor or isinstance(v, Tensor):
            key = (v._data.shape, v._data.dtype, v._requires_grad, owner)
        elif isinstance(v, _Packed):
            key = (v.shape, v.dtype, v.requires_grad, owner)
        else:
            out[i] = _freed_number(v, owner)
            continue
        stand_in = _released.get(key)
        out[i] = stand_in if stand_in is not None else _new_stand_in(_released, key)
    return tuple(out)


def _freed(shape: tuple, dtype, owner: str) -> _FreedArray:
    """The (shared) freed array of ``shape`` and ``dtype`` for ``owner``'s saves."""
    return _freed_array(_FreedArray, shape, dtype, owner)


def _freed_array(kind: type, shape: tuple, dtype, owner: str):
    key = (kind, shape, dtype, owner)
    array = _arrays.get(key)
    if array is None:
        if len(_arrays) > _CACHE_SIZE:
            _arrays.clear()
        array = _arrays[key] = kind(shape, dtype, owner)
    return array


def _new_stand_in(cache: dict, key: tuple) -> Tensor:
    """The Tensor for ``cache``'s ``key``: ``(shape, dtype, requires_grad, owner)``."""
    shape, dtype, requires_grad, owner = key
    kind = _UnsavedArray if cache is _unsaved else _FreedArray
    if len(cache) > _CACHE_SIZE:  # bounded: a loop meets the same few shapes
        cache.clear()
    stand_in = cache[key] = _wrap(_freed_array(kind, shape, dtype, owner), requires_grad)
    return stand_in


# (shape, dtype, requires_grad, op) -> the stand-in of an input an op does not save, or of a
# saved one once released: they hold no values and nothing writes to them, so one serves
# every node (recording and release stay cheap); likewise the arrays inside them.
_unsaved: dict = {}
_released: dict = {}
_arrays: dict = {}
_CACHE_SIZE = 4096


class _UnsavedArray(_FreedArray):
    """An input an op does not save: reading its values is a wrong declaration."""

    __slots__ = ()

    def _freed(self, *args, **kwargs):
        raise RuntimeError(
            f"{self._op}: its backward rule read the values of a {list(self.shape)} input "
            "that its declaration does not save; name that input in saves=(...)"
        )

    __array__ = __array_ufunc__ = __array_function__ = _freed
    __getitem__ = __iter__ = __len__ = __bool__ = __float__ = __int__ = __index__ = _freed
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _freed
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = __abs__ = _freed
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _freed
    __hash__ = object.__hash__


def _freed_number(value, op: str):
    """What release keeps of a saved value that is not a Tensor: PyTorch saves a number
    operand of mul/div as a tensor, so it is freed as well; anything else stays."""
    if type(value) is float:  # the common case first (x * 0.5): no isinstance checks
        dtype = _dtype.get_default_dtype().np
    elif not isinstance(value, (bool, int, float, np.number)):
        return value
    elif isinstance(value, bool):
        dtype = np.dtype(np.bool_)
    elif isinstance(value, (int, np.integer)):
        dtype = np.dtype(np.int64)
    else:
        dtype = _dtype.get_default_dtype().np
    key = ((), dtype, False, op)
    stand_in = _released.get(key)
    return stand_in if stand_in is not None else _new_stand_in(_released, key)
