"""Stochastic weight averaging (``torch.optim.swa_utils``): averaged models, SWALR, update_bn."""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy
from typing import Any

from .. import Tensor, no_grad, tensor
from .. import long as _long
from ..nn.batchnorm import _BatchNorm
from ..nn.module import Module
from ._update import _lerp_
from .lr_scheduler.base import LRScheduler, _format_param

__all__ = [
    "SWALR", "AveragedModel", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
    "get_swa_multi_avg_fn", "update_bn",
]  # fmt: skip


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_multi_avg_fn(decay: float = 0.999):
    """An in-place exponential moving average over lists of tensors: ``ema += (1-decay)(p-ema)``."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _) -> None:
        with no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if p_ema.is_floating_point():
                    _lerp_(p_ema, p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running mean over lists of tensors: ``avg += (p - avg) / (n + 1)``."""

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with no_grad():
            n = float(num_averaged)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if p_avg.is_floating_point():
                    _lerp_(p_avg, p_model, 1 / (n + 1))
                else:
                    p_avg.add_((p_model - p_avg) / (n + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999):
    """``decay * ema + (1 - decay) * current`` for one tensor."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """``avg + (current - avg) / (n + 1)`` for one tensor."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers with ``use_buffers``) are the running
    average of ``model``'s, updated by ``update_parameters``; ``n_averaged`` counts updates."""

    def __init__(
        self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_long))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current values into the average (the first call copies them)."""
        if self.use_buffers:
            self_params = itertools.chain(self.module.parameters(), self.module.buffers())
            model_params = itertools.chain(model.parameters(), model.buffers())
        else:
            self_params, model_params = self.parameters(), model.parameters()
        averaged, current = [], []
        first = int(self.n_averaged) == 0
        with no_grad():
            for p_averaged, p_model in zip(self_params, model_params):
                averaged.append(p_averaged.detach())
                current.append(p_model.detach())
                if first:
                    p_averaged.detach().copy_(p_model.detach())
            if int(self.n_averaged) > 0:
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(averaged, current, self.n_averaged)
                else:
                    # PyTorch's CPU path: no foreach kernels, so the per-tensor running mean
                    # (copied back, which truncates integer buffers such as num_batches_tracked).
                    avg_fn = self.avg_fn or get_swa_avg_fn()
                    for p_averaged, p_model in zip(averaged, current):
                        p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach())
            self.n_averaged.add_(1)


def update_bn(loader, model: Module, device=None) -> None:
    """Recompute every batch norm's running statistics as the plain average over ``loader``
    (each item an input, or a list/tuple whose first element is the input)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps
    (``'cos'`` or ``'linear'``), then holds it."""

    def __init__(
        self,
        optimizer,
        swa_lr: float,
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs)
        ]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
