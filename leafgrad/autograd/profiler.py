"""``torch.autograd.profiler``: events, their averages and tables, the legacy ``profile``
and ``record_function``.

While a profiler records, every op is timed as ``aten::<name>`` (an op called inside another
is its child), every backward node as ``autograd::engine::evaluate_function: <Node>`` with
``<Node>`` inside, and each ``record_function`` block under its name. Times are wall-clock
microseconds, as PyTorch reports them; a CPU build has no device times (zeros).
"""

from __future__ import annotations

import functools
import json
import os
import time

from .._engine import grad_mode
from .._engine.profiling import STATE, Recorder

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "profile",
    "record_function",
]


def _format_time(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class Interval:
    """An event's start and end, in microseconds from the profiler's start."""

    def __init__(self, start: float, end: float) -> None:
        self.start, self.end = start, end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FunctionEvent:
    """One recorded range: ``name``, ``cpu_time_total`` and ``self_cpu_time_total`` (us),
    ``input_shapes``, ``count`` (1)."""

    def __init__(self, name, start_us, end_us, self_us, input_shapes, thread) -> None:
        self.name = self.key = name
        self.time_range = Interval(start_us, end_us)
        self.cpu_time_total = end_us - start_us
        self.self_cpu_time_total = self_us
        self.input_shapes = input_shapes
        self.thread = thread
        self.count = 1
        self.device_time_total = self.self_device_time_total = 0.0
        self.cuda_time_total = self.self_cuda_time_total = 0.0
        self.is_user_annotation = not (name.startswith("aten::") or "Backward" in name)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
            f"self_cpu_time={_format_time(self.self_cpu_time_total)} "
            f"input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg:
    """The events of one key summed: ``count``, totals, ``cpu_time`` (the average)."""

    def __init__(self, key: str, input_shapes=None) -> None:
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.device_time_total = self.self_device_time_total = 0.0
        self.cuda_time_total = self.self_cuda_time_total = 0.0
        self.is_user_annotation = False

    def add(self, other) -> FunctionEventAvg:
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.is_user_annotation = other.is_user_annotation
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} "
            f"self_cpu_time={_format_time(self.self_cpu_time_total)}"
            f" cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes}>"
        )


_SORT_KEYS = {
    "cpu_time_total", "self_cpu_time_total", "cpu_time", "count", "cuda_time_total",
    "self_cuda_time_total", "device_time_total", "self_device_time_total",
}  # fmt: skip


class EventList(list):
    """A list of events with PyTorch's summaries."""

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        """One ``FunctionEventAvg`` per name (and per input shapes when grouped), in order of
        first appearance."""
        groups: dict = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shape else e.key
            avg = groups.get(key)
            if avg is None:
                shapes = e.input_shapes if group_by_input_shape else None
                avg = groups[key] = FunctionEventAvg(e.key, shapes)
            avg.add(e)
        out = EventList(groups.values())
        out._grouped_by_shape = group_by_input_shape
        return out

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit: int = 100, max_name_column_width: int = 55, **_):
        """PyTorch's text table: self and total CPU time, their shares, the average, calls."""
        if sort_by is not None and sort_by not in _SORT_KEYS:
            raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
        rows = list(self)
        if sort_by is not None:
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total = self.self_cpu_time_total or 1.0
        shapes = getattr(self, "_grouped_by_shape", False)
        width = min(max([len("Name")] + [len(e.key) for e in rows]) + 4, max_name_column_width)
        heads = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        line = "-" * width + "  " + "  ".join("-" * 12 for _ in heads) + "  "
        header = f"{'Name':>{width}}  " + "".join(f"{h:>12}  " for h in heads)
        if shapes:
            line += "-" * 28 + "  "
            header += f"{'Input Shapes':>28}  "
        out = [line, header, line]
        for e in rows:
            name = e.key if len(e.key) <= width else e.key[: width - 3] + "..."
            cells = [
                f"{100 * e.self_cpu_time_total / total:.2f}%",
                _format_time(e.self_cpu_time_total),
                f"{100 * e.cpu_time_total / total:.2f}%",
                _format_time(e.cpu_time_total),
                _format_time(e.cpu_time),
                str(e.count),
            ]
            row = f"{name:>{width}}  " + "".join(f"{c:>12}  " for c in cells)
            if shapes:
                row += f"{str(e.input_shapes)[:28]:>28}  "
            out.append(row)
        out += [line, f"Self CPU time total: {_format_time(self.self_cpu_time_total)}", ""]
        return "\n".join(out)

    def export_chrome_trace(self, path: str) -> None:
        """The events as a Chrome trace (chrome://tracing, Perfetto), written atomically."""
        trace = {
            "traceEvents": [
                {
                    "ph": "X",
                    "cat": "cpu_op",
                    "name": e.name,
                    "pid": os.getpid(),
                    "tid": e.thread,
                    "ts": e.time_range.start,
                    "dur": e.cpu_time_total,
                    "args": {"Input Dims": e.input_shapes} if e.input_shapes else {},
                }
                for e in self
            ],
            "displayTimeUnit": "ms",
        }
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(trace, fh)
        os.replace(tmp, path)


def _events(recorder: Recorder, origin_ns: int) -> EventList:
    """The recorder's closed events as FunctionEvents, ordered by start."""
    out = EventList(
        FunctionEvent(
            e.name,
            (e.start_ns - origin_ns) / 1e3,
            (e.end_ns - origin_ns) / 1e3,
            e.self_ns / 1e3,
            e.input_shapes,
            e.thread,
        )
        for e in recorder.events
    )
    out.sort(key=lambda e: e.time_range.start)
    return out


class _Recording:
    """Turning the recorder on and off: the special mode that routes ops through it."""

    def __init__(self, record_shapes: bool) -> None:
        self.record_shapes = record_shapes
        self.recorder = None
        self._previous = None
        self.origin_ns = 0

    def start(self) -> None:
        if STATE.recorder is not None:
            raise RuntimeError(
                "Profiler is already enabled on this thread: leafgrad records one profiler at "
                "a time; stop the running one first"
            )
        self.recorder = STATE.recorder = Recorder(self.record_shapes)
        self.origin_ns = time.perf_counter_ns()
        grad_mode.count_special(True)

    def stop(self) -> Recorder | None:
        if STATE.recorder is None or STATE.recorder is not self.recorder:
            return self.recorder
        STATE.recorder = None
        grad_mode.count_special(False)
        return self.recorder


class profile:
    """The legacy profiler: ``with torch.autograd.profiler.profile() as prof: ...`` then
    ``prof.key_averages().table()``. ``use_cuda``/``use_device`` name no device here."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device=None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config=None,
        acc_events: bool = False,
        custom_trace_id_callback=None,
    ) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self._recording = _Recording(record_shapes)
        self.function_events = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return None  # as PyTorch's: ``with profile(enabled=False) as prof`` binds None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._recording.start()
        return self

    def __exit__(self, *exc) -> None:
        if not self.enabled:
            return
        recorder = self._recording.stop()
        self.function_events = _events(recorder, self._recording.origin_ns)

    def _check_finished(self) -> None:
        if self.function_events is None:  # not run yet: no events (PyTorch's answer too)
            self.function_events = EventList()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit: int = 100, **kwargs) -> str:
        self._check_finished()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    def export_chrome_trace(self, path: str) -> None:
        self._check_finished()
        self.function_events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self) -> float:
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def __str__(self) -> str:
        return self.table() if self.function_events is not None else "<unfinished profile>"


class record_function:
    """A named range in the running profiler's events (a context manager or decorator);
    nothing when no profiler records."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._event = None
        self._recorder = None

    def __enter__(self):
        recorder = STATE.recorder
        if recorder is not None:
            self._recorder = recorder
            self._event = recorder.open(self.name)
        return self

    def __exit__(self, *exc) -> None:
        if self._event is not None:
            self._recorder.close(self._event)
            self._event = self._recorder = None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped
