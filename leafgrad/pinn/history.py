"""The record of a training run: every step's phase, time and loss terms."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass
class History:
    """Every logged step: its phase and the value of each loss term."""

    steps: list = field(default_factory=list)
    phases: list = field(default_factory=list)
    seconds: list = field(default_factory=list)
    terms: dict = field(default_factory=dict)

    def append(self, step: int, phase: str, seconds: float, terms: dict) -> None:
        self.steps.append(step)
        self.phases.append(phase)
        self.seconds.append(seconds)
        for name, value in terms.items():
            self.terms.setdefault(name, []).append(value)

    def to_state(self) -> dict:
        return {
            "steps": self.steps,
            "phases": self.phases,
            "seconds": self.seconds,
            "terms": self.terms,
        }

    @classmethod
    def from_state(cls, state: dict) -> History:
        return cls(
            list(state["steps"]),
            list(state["phases"]),
            list(state["seconds"]),
            {k: list(v) for k, v in state["terms"].items()},
        )

    def write_csv(self, path: str) -> None:
        names = list(self.terms)
        rows = ["step,phase,seconds," + ",".join(names)]
        for i, step in enumerate(self.steps):
            values = ",".join(repr(self.terms[n][i]) for n in names)
            rows.append(f"{step},{self.phases[i]},{self.seconds[i]:.6f},{values}")
        write_text(path, "\n".join(rows) + "\n")


def write_text(path: str, text: str) -> None:
    """Write ``text`` atomically (a temporary file moved over ``path``)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
