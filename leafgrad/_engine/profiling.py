"""The running profiler's recorder: op and backward-node events with their times, nested.

``STATE.recorder`` is None unless a ``torch.profiler.profile`` (or the legacy
``torch.autograd.profiler.profile``) is recording; while one is, a special mode is counted
on, so every op takes the general path, where ``_primitive`` reports it here. Times are
wall-clock nanoseconds (``perf_counter_ns``); an event's self time is its time less its
children's.
"""

from __future__ import annotations

import threading
import time


class Event:
    """One timed range: an op (``aten::<name>``), a backward node, or a user's
    ``record_function``."""

    __slots__ = ("child_ns", "end_ns", "input_shapes", "name", "start_ns", "thread")

    def __init__(self, name: str, input_shapes) -> None:
        self.name = name
        self.input_shapes = input_shapes
        self.thread = threading.get_ident()
        self.child_ns = 0
        self.start_ns = time.perf_counter_ns()
        self.end_ns = self.start_ns

    @property
    def total_ns(self) -> int:
        return self.end_ns - self.start_ns

    @property
    def self_ns(self) -> int:
        return self.total_ns - self.child_ns


class Recorder:
    """Collects events while a profiler records (``record_shapes``: each op's input
    shapes, as PyTorch lists them)."""

    def __init__(self, record_shapes: bool = False) -> None:
        self.record_shapes = record_shapes
        self.events: list = []
        self._open = threading.local()

    def _stack(self) -> list:
        stack = getattr(self._open, "stack", None)
        if stack is None:
            stack = self._open.stack = []
        return stack

    def open(self, name: str, args=()) -> Event:
        stack = self._stack()
        shapes = _shapes(args) if self.record_shapes else []
        event = Event(name, shapes)
        stack.append(event)
        return event

    def close(self, event: Event) -> None:
        event.end_ns = time.perf_counter_ns()
        stack = self._stack()
        if stack and stack[-1] is event:
            stack.pop()
        if stack:
            stack[-1].child_ns += event.total_ns
        self.events.append(event)

    def op_event(self, name: str, op, args: tuple, params: dict):
        """``op(*args, **params)`` timed as ``aten::<name>`` (``op`` skips this once)."""
        event = self.open("aten::" + name, args)
        STATE.skip = op
        try:
            return op(*args, **params)
        finally:
            STATE.skip = None
            self.close(event)

    def timed(self, name: str, fn, *args):
        """``fn(*args)`` timed as ``name``."""
        event = self.open(name)
        try:
            return fn(*args)
        finally:
            self.close(event)


def _shapes(args) -> list:
    """PyTorch's ``input_shapes``: a tensor's sizes, ``[]`` for anything else."""
    out = []
    for a in args:
        data = getattr(a, "_data", None)
        out.append(list(data.shape) if data is not None and hasattr(data, "shape") else [])
    return out


class _State:
    """The recorder (None: not profiling), and the op whose own call reported already."""

    def __init__(self) -> None:
        self.recorder: Recorder | None = None
        self.skip = None


STATE = _State()
