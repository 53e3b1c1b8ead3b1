"""The constraints built from others: ``cat``, ``stack``, ``MixtureSameFamilyConstraint``;
``constraints`` re-exports them, so import them from there."""

from __future__ import annotations

import leafgrad as _lg

from ._constraint_base import Constraint

__all__ = ["MixtureSameFamilyConstraint", "cat", "stack"]


def _check_dim(dim: int, value) -> None:
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for a value with {value.dim()} dimensions")


class _Cat(Constraint):
    """``cseq[i]`` on consecutive slices of ``lengths[i]`` (default 1) along ``dim``."""

    def __init__(self, cseq, dim: int = 0, lengths=None) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("cat expects a sequence of Constraints")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"{len(self.lengths)} lengths for {len(self.cseq)} constraints")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        _check_dim(self.dim, value)
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return _lg.cat(checks, self.dim)


class _Stack(Constraint):
    """``cseq[i]`` on the ``i``-th index along ``dim``."""

    def __init__(self, cseq, dim: int = 0) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("stack expects a sequence of Constraints")
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1  # the stacked dim itself lies inside the event
        return dim

    def check(self, value):
        _check_dim(self.dim, value)
        parts = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return _lg.stack([c.check(v) for v, c in zip(parts, self.cseq)], self.dim)


class MixtureSameFamilyConstraint(Constraint):
    """A MixtureSameFamily's support: its components' support, checked with the component
    dim put back into the value and reduced away again."""

    def __init__(self, base_constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {base_constraint!r}")
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:
        return self.base_constraint.event_dim

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        # one answer per sample: the component dim and the event dims fold into one
        keep = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


cat = _Cat
stack = _Stack
