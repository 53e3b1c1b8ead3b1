"""``Timer``: times a Python statement with ``timeit``, as PyTorch's benchmark Timer."""

from __future__ import annotations

import enum
import textwrap
import timeit as _timeit

import numpy as np

from .common import Measurement, TaskSpec, set_torch_threads

__all__ = ["Language", "Timer", "timer"]


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def timer() -> float:
    """The clock: no accelerator to synchronize on a CPU-only build."""
    return _timeit.default_timer()


class Timer:
    """Times ``stmt`` after ``setup`` in a copy of ``globals`` (``torch`` added if absent)."""

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer=timer, globals: dict | None = None, label: str | None = None,
                 sub_label: str | None = None, description: str | None = None,
                 env: str | None = None, num_threads: int = 1,
                 language=Language.PYTHON) -> None:  # fmt: skip
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            raise NotImplementedError("leafgrad's benchmark Timer times Python statements only")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can "
                "simply be moved to `setup`."
            )
        self._globals = dict(globals or {})  # a copy: exec adds __builtins__
        self._globals.setdefault("torch", _torch())
        stmt, setup = _tidy(stmt), _tidy(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, label=label, sub_label=sub_label,
                                   description=description, env=env,
                                   num_threads=num_threads)  # fmt: skip

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)  # never zero: times are divided

    def _measurement(self, number: int, times: list) -> Measurement:
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One measurement of ``number`` runs, after a warm-up of a hundredth of them."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return self._measurement(number, [self._timeit(number=number)])

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Blocks of an estimated number of runs, until ``min_run_time`` seconds are spent."""
        number = self._estimate_block_size(min_run_time)
        times = self._loop(number, lambda times: True, min_run_time, None, callback)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> Measurement:  # fmt: skip
        """Blocks until the interquartile range is under ``threshold`` of the median."""
        number = self._estimate_block_size(min_run_time=0.05)

        def confident(times):
            return len(times) > 3 and self._measurement(number, times).meets_confidence(threshold)

        times = self._loop(number, confident, min_run_time, max_run_time, callback)
        return self._measurement(number, times)

    def _loop(self, number, can_stop, min_run_time, max_run_time, callback) -> list:
        total, times, stop = 0.0, [], False
        with set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                stop = can_stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """Runs per block: ten-fold until the timer's overhead is negligible (a warm-up too)."""
        with set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number


def _tidy(code: str) -> str:
    """Dedented, without the leading newline of a block string or trailing space."""
    code = textwrap.dedent(code)
    return (code[1:] if code and code[0] == "\n" else code).rstrip()


def _torch():
    """What ``torch`` names in the statement: leafgrad (or torch, where it stands for it)."""
    import leafgrad  # why: the package imports this module; the name is read at call time

    return leafgrad
