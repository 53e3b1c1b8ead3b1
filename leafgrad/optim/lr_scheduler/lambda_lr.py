"""Schedules given by the user's functions of the epoch: LambdaLR and MultiplicativeLR."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from ..optimizer import Optimizer
from .base import LRScheduler, _param_groups_val_list

__all__ = ["LambdaLR", "MultiplicativeLR"]


def _one_per_group(optimizer: Optimizer, lr_lambda) -> list:
    """``lr_lambda`` repeated for every group, or the given list when it has one per group."""
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(
            f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}"
        )
    return list(lr_lambda)


def _lambdas_state_dict(scheduler) -> dict[str, Any]:
    """Attributes, with each lambda's ``__dict__`` for callable objects (functions: None)."""
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
    state["lr_lambdas"] = [
        None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
        for fn in scheduler.lr_lambdas
    ]
    return state


def _load_lambdas_state_dict(scheduler, state_dict: dict[str, Any]) -> None:
    # The dict is restored afterwards: the caller may load it again.
    lr_lambdas = state_dict.pop("lr_lambdas")
    scheduler.__dict__.update(state_dict)
    state_dict["lr_lambdas"] = lr_lambdas
    for idx, fn in enumerate(lr_lambdas):
        if fn is not None:
            scheduler.lr_lambdas[idx].__dict__.update(fn)


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``, one lambda or one per group."""

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _one_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """Attributes, with each lambda's ``__dict__`` for callable objects (functions: None)."""
        return _lambdas_state_dict(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_lambdas_state_dict(self, state_dict)

    def get_lr(self) -> list:
        self._warn_get_lr_outside_step()
        return [
            base_lr * lmbda(self.last_epoch)
            for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)
        ]


class MultiplicativeLR(LRScheduler):
    """Multiply ``lr`` by ``lr_lambda(epoch)`` every epoch, one lambda or one per group.

    Raises TypeError when a lambda is not callable.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _one_per_group(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"MultiplicativeLR: lr_lambda should be a function, but got {type(fn).__name__}"
                )
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """Attributes, with each lambda's ``__dict__`` for callable objects (functions: None)."""
        return _lambdas_state_dict(self)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        _load_lambdas_state_dict(self, state_dict)

    def get_lr(self) -> list:
        self._warn_get_lr_outside_step()
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, "lr")
        return [
            group["lr"] * lmbda(self.last_epoch)
            for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)
        ]
