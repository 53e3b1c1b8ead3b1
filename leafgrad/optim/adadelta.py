"""Adadelta: step sizes from running averages of squared gradients and squared updates."""

from __future__ import annotations

from typing import Any, ClassVar

from ._step import _use_grad_for_differentiable
from ._update import (
    _addcmul_,
    _check_hyperparameters,
    _increment,
    _lr,
    _params_with_grad,
    _scalar,
    _state_of,
)
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``torch.optim.Adadelta``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, ``square_avg`` (of gradients) and ``acc_delta`` (of updates).
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    _scalar_state_keys = ("step",)

    def __init__(
        self,
        params,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_hyperparameters(lr, rho=rho, eps=eps, weight_decay=weight_decay)
        # capturable and foreach select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adadelta step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
            for p in _params_with_grad(group):
                state = _state_of(self, p, "square_avg", "acc_delta")
                _increment(state["step"])
                grad = -p.grad if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg = _addcmul_(state["square_avg"].mul_(rho), grad, grad, 1 - rho)
                std = (square_avg + eps).sqrt()
                delta = (state["acc_delta"] + eps).sqrt() / std * grad
                _addcmul_(state["acc_delta"].mul_(rho), delta, delta, 1 - rho)
                p.add_(delta, alpha=-_scalar(lr))
        return loss
