"""Schedulers made of other schedulers: one after another (SequentialLR) or all at once."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from ..optimizer import Optimizer
from .base import LRScheduler, _param_groups_val_list, _update_param_group_val
from .plateau import ReduceLROnPlateau

__all__ = ["ChainedScheduler", "SequentialLR"]


def _check_schedulers(composite: str, schedulers, optimizer) -> None:
    """Raise ValueError/TypeError unless every scheduler drives ``optimizer`` by ``step()``."""
    if len(schedulers) < 1:
        raise ValueError(f"{composite} expects at least one scheduler, but got none")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{composite}: the scheduler at index {i} has no `optimizer`")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{composite} cannot drive the ReduceLROnPlateau at index {i}: its step() "
                "needs the metric; step it yourself instead"
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{composite} expects all schedulers to belong to the same optimizer, but the "
                f"{type(scheduler).__name__} at index {i} has another one"
            )


def _composite_state_dict(composite) -> dict[str, Any]:
    state = {k: v for k, v in composite.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in composite._schedulers]
    return state


def _load_composite_state_dict(composite, state_dict: dict[str, Any]) -> None:
    # The dict is restored afterwards: the caller may load it again.
    schedulers = state_dict.pop("_schedulers")
    composite.__dict__.update(state_dict)
    state_dict["_schedulers"] = schedulers
    for scheduler, state in zip(composite._schedulers, schedulers):
        scheduler.load_state_dict(state)


class SequentialLR(LRScheduler):
    """Run ``schedulers[i]`` from ``milestones[i - 1]`` on (each restarting from its epoch 0).

    The schedulers must be built on ``optimizer`` first; construction undoes their initial
    steps. Raises ValueError unless there is one milestone fewer than schedulers.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[LRScheduler],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        _check_schedulers("SequentialLR", schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "SequentialLR expects one milestone fewer than schedulers, but got "
                f"{len(schedulers)} schedulers and {len(milestones)} milestones"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in self.optimizer.param_groups:
            _update_param_group_val(group, "lr", group["initial_lr"])
        self.recursive_undo()
        # only the scheduler in charge at epoch 0 takes its initial step
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None) -> None:
        """Take back the initial step of every (nested) scheduler."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Advance one epoch: the scheduler in charge steps, or starts over at its milestone."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        """Attributes, with each scheduler's own state dict under ``_schedulers``."""
        return _composite_state_dict(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_composite_state_dict(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Step every scheduler in ``schedulers`` on each ``step()``, so their effects compound."""

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler, but got none")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _param_groups_val_list(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _param_groups_val_list(self._schedulers[-1].optimizer, "lr")

    def state_dict(self) -> dict[str, Any]:
        """Attributes, with each scheduler's own state dict under ``_schedulers``."""
        return _composite_state_dict(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_composite_state_dict(self, state_dict)
