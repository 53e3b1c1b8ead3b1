"""``torch.profiler``: ``profile`` with activities, a step ``schedule`` and ``on_trace_ready``,
``record_function``, and ``tensorboard_trace_handler`` (Chrome traces in a directory).

The events are those of ``torch.autograd.profiler`` (ops, backward nodes, named ranges, with
CPU times). Only the CPU activity records anything: leafgrad has no device.
"""

from __future__ import annotations

import enum
import os
import socket
import time

from ..autograd.profiler import EventList, _events, _Recording, record_function

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """What a profiler may record; leafgrad records the CPU's."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a schedule asks of the profiler at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    """The activities this build records: the CPU's."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):  # fmt: skip
    """PyTorch's step schedule: ``skip_first`` steps, then cycles of ``wait``, ``warmup`` and
    ``active`` steps (the last active one saves), ``repeat`` times (0: forever)."""
    if warmup < 0 or active <= 0 or wait < 0 or skip_first < 0 or repeat < 0:
        raise ValueError("Invalid profiler schedule arguments")
    if warmup == 0:
        import warnings  # why: this one message only

        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )

    def at(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:  # the first cycle's wait skipped: start at its warmup
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        mod = step % cycle
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return at


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False):  # fmt: skip
    """An ``on_trace_ready`` writing each trace to ``dir_name`` as
    ``<worker>.<time in ms>.pt.trace.json`` (the layout TensorBoard's profiler plugin reads)."""

    def handler(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        if use_gzip:
            name += ".gz"
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip  # why: only for compressed traces

            with open(path, "rb") as fh:
                data = fh.read()
            tmp = f"{path}.{os.getpid()}.tmp"
            with gzip.open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)

    return handler


class profile:
    """``with torch.profiler.profile(activities=[ProfilerActivity.CPU]) as prof:`` ... then
    ``prof.key_averages().table(sort_by="cpu_time_total")``; with a ``schedule``, call
    ``prof.step()`` once per step: recording follows the schedule and ``on_trace_ready`` runs
    at the end of each active span."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events: bool = False,
        use_cuda=None,
        custom_trace_id_callback=None,
    ):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._recording = None
        self._events = EventList()
        self._kept = acc_events

    # -- recording spans --
    def _begin(self) -> None:
        if ProfilerActivity.CPU in self.activities and self._recording is None:
            self._recording = _Recording(self.record_shapes)
            self._recording.start()

    def _end(self, save: bool) -> None:
        if self._recording is None:
            return
        recorder = self._recording.stop()
        events = _events(recorder, self._recording.origin_ns)
        self._recording = None
        self._events = EventList(self._events + events) if self._kept else events
        if save and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def start(self) -> None:
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def stop(self) -> None:
        self._end(save=self.current_action != ProfilerAction.NONE)

    def step(self) -> None:
        """One training step done: move along the schedule."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if previous == ProfilerAction.RECORD_AND_SAVE:
            self._end(save=True)
        elif previous in recording and self.current_action not in recording:
            self._end(save=False)
        if self.current_action in recording:
            self._begin()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- results --
    def events(self) -> EventList:
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False):  # fmt: skip
        return self._events.key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        self._events.export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        raise RuntimeError(
            "export_stacks needs with_stack=True stacks, which leafgrad does not record; use "
            "export_chrome_trace"
        )
