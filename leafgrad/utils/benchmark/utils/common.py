"""What a timing measured (``TaskSpec``) and its times (``Measurement``), printed as PyTorch's."""

from __future__ import annotations

import contextlib
import dataclasses
import textwrap

import numpy as np

from ...._threads import get_num_threads, set_num_threads

__all__ = ["Measurement", "TaskSpec", "select_unit", "set_torch_threads"]

# PyTorch's thresholds: an interquartile range above these fractions of the median warns.
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """The statement timed and the labels it is reported under."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label, else the one-line statement, else the statement indented."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        inner = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{inner}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The title, description and setup, each multi-line one followed by a blank line."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """One or more timings of a statement, each of ``number_per_run`` runs."""

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None

    def __getattr__(self, name: str):
        # PyTorch forwards the task's fields (stmt, label, num_threads ...) for convenience.
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute {name!r}")

    @property
    def times(self) -> list:
        """Seconds per run of each measurement."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        return self._quantile(0.5)

    @property
    def mean(self) -> float:
        return float(np.mean(self.times))

    @property
    def iqr(self) -> float:
        return self._quantile(0.75) - self._quantile(0.25)

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings())

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    def _quantile(self, q: float) -> float:
        return float(np.quantile(np.asarray(self.times, dtype=np.float64), q))

    def _warnings(self) -> list:
        if not self.raw_times or self.meets_confidence(_IQR_WARN_THRESHOLD):
            return []
        gross = not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
        why = ("This suggests significant environmental influence." if gross
               else "This could indicate system fluctuation.")  # fmt: skip
        rel_iqr = self.iqr / self.median * 100
        return [
            f"  WARNING: Interquartile range is {rel_iqr:.1f}% of the median measurement.\n"
            f"           {why}"
        ]

    def __repr__(self) -> str:
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self.task_spec.summarize()]
        lines.append(f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}")
        if n >= 4:
            p25, p75 = self._quantile(0.25) / scale, self._quantile(0.75) / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({p25:.2f} to {p75:.2f})")
        threads = self.task_spec.num_threads
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}"
        )
        lines.extend(self._warnings())
        return "\n".join(lines).strip()


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def select_unit(t: float) -> tuple:
    """The unit (ns, us, ms or s) that shows ``t`` seconds with O(1) digits, and its scale."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(np.log10(np.float32(t)) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


@contextlib.contextmanager
def set_torch_threads(n: int):
    """Run the block with ``n`` threads, then restore the number before it."""
    prior = get_num_threads()
    try:
        set_num_threads(n)
        yield
    finally:
        set_num_threads(prior)
