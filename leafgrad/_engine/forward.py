"""Forward-mode state the ops consult: active dual levels and tangents on tensors.

A tangent lives on its primal tensor (``_tangents``: level -> Tensor) and only counts while
its level is active. Ops propagate tangents with their JVP rules (``ops._primitive``).
"""

from __future__ import annotations

import itertools
import threading

from .._batched import BatchedTensor, levels_of, lift
from .grad_mode import count_special


class _State(threading.local):
    def __init__(self) -> None:
        self.levels: list = []  # active levels, innermost last; empty: forward mode is off
        self.writing: list = []  # in-place ops computing their new value (reading_before_write)


state = _State()
_level_ids = itertools.count()


def enter_dual_level() -> int:
    level = next(_level_ids)
    if not state.levels:
        count_special(True)
    state.levels.append(level)
    return level


def exit_dual_level(*, level: int | None = None) -> None:
    if not state.levels:
        raise RuntimeError("exit_dual_level: no dual level is active")
    if level is not None and state.levels[-1] != level:
        raise RuntimeError(
            f"exit_dual_level: level {level} is not the innermost active level "
            f"({state.levels[-1]}); exit levels in reverse order of entry"
        )
    state.levels.pop()
    if not state.levels:
        count_special(False)


def current_level(level: int | None = None) -> int:
    if level is not None:
        if level not in state.levels:
            raise RuntimeError(f"dual level {level} is not active")
        return level
    if not state.levels:
        raise RuntimeError(
            "forward AD: no dual level is active; wrap the code in `with dual_level():`"
        )
    return state.levels[-1]


def tangent_of(tensor, level: int):
    """The tangent of ``tensor`` at ``level`` (None when it has none or the level ended)."""
    tangents = tensor._tangents
    if tangents is None:
        return None
    tangent = tangents.get(level)
    if tangent is not None and type(tensor) is BatchedTensor:
        # under vmap tangents live on the values: batch it as its tensor is batched (and at
        # the levels where only the tangent is, jacfwd's)
        return lift(tangent, levels_of(tensor))
    return tangent


def set_tangent(tensor, level: int, tangent) -> None:
    tangents = tensor._tangents
    if tangents is None:
        tangents = tensor._tangents = {}
    tangents[level] = tangent


class suspended:
    """Hide one level while its own JVP rule runs, so the rule sees plain primals."""

    __slots__ = ("index", "level")

    def __init__(self, level: int) -> None:
        self.level = level

    def __enter__(self) -> None:
        self.index = state.levels.index(self.level)
        state.levels.pop(self.index)

    def __exit__(self, *exc) -> None:
        state.levels.insert(self.index, self.level)


class reading_before_write:
    """While an in-place op computes the value it will write into ``target``, JVP rules read
    ``target`` as ``copy(target)``, made when first needed: PyTorch's ``original_self``.

    Otherwise the tangent's graph saves ``target`` itself, whose version the write then
    moves, so differentiating the tangent raises where PyTorch's succeeds.
    """

    __slots__ = ("copy", "made", "target")

    def __init__(self, target, copy) -> None:
        self.target, self.copy, self.made = target, copy, None

    def __enter__(self) -> None:
        state.writing.append(self)

    def __exit__(self, *exc) -> None:
        state.writing.pop()

    def read(self):
        if self.made is None:
            self.made = self.copy(self.target)
        return self.made


def before_writes(args: tuple) -> tuple:
    """``args`` with every in-place target being computed read as it was before the write."""
    for writing in state.writing:
        target = writing.target
        if any(a is target for a in args):
            args = tuple(writing.read() if a is target else a for a in args)
    return args


class _JetState(threading.local):
    def __init__(self) -> None:
        # None, ("taylor", order) or ("collapsed", weights): see leafgrad.autograd.taylor
        self.mode = None


jet_state = _JetState()


class jet_mode:
    """Set (or, with None, suspend) the jet mode while a block runs."""

    __slots__ = ("mode", "previous")

    def __init__(self, mode) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.previous = jet_state.mode
        _set_jet_mode(self.mode)

    def __exit__(self, *exc) -> None:
        _set_jet_mode(self.previous)


def _set_jet_mode(mode) -> None:
    if (mode is None) != (jet_state.mode is None):
        count_special(mode is not None)
    jet_state.mode = mode
