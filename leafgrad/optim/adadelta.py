"""Adadelta: step sizes from running averages of squared gradients and squared updates."""

from __future__ import annotations

from typing import Any, ClassVar

from ._arrays import _update_forms
from ._step import _use_grad_for_differentiable
from ._update import (
    _check_hyperparameters,
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
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(
                    group, p, p.grad, square_avg, acc_delta, scalars=(state["step"],)
                )
                on.increment(state["step"])
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = on.add(grad, p, weight_decay)
                on.addcmul_(on.mul_(square_avg, rho), grad, grad, 1 - rho)
                std = on.add_sqrt(square_avg, eps)
                delta = on.mul(on.div(on.add_sqrt(acc_delta, eps), std), grad)
                on.addcmul_(on.mul_(acc_delta, rho), delta, delta, 1 - rho)
                on.add_(p, delta, -_scalar(lr))
        return loss
