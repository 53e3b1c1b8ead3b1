"""Adamax: Adam with the infinity norm of past gradients in place of their second moment."""

from __future__ import annotations

from typing import Any, ClassVar

from ._arrays import _update_forms
from ._step import _use_grad_for_differentiable
from ._update import (
    _check_hyperparameters,
    _lr,
    _params_with_grad,
    _state_of,
)
from .optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """``torch.optim.Adamax``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, ``exp_avg`` and ``exp_inf`` (the decayed max of ``|g| + eps``).
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
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_hyperparameters(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        # foreach and capturable select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adamax step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            for p in _params_with_grad(group):
                state = _state_of(self, p, "exp_avg", "exp_inf")
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(group, p, p.grad, exp_avg, exp_inf, scalars=(state["step"],))
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                step = on.increment(state["step"])
                if weight_decay != 0:
                    grad = on.add(grad, p, weight_decay)
                on.lerp_(exp_avg, grad, 1 - beta1)
                on.maximum_(on.mul_(exp_inf, beta2), on.abs_add(grad, eps))
                clr = lr / (1 - beta1**step)
                on.addcdiv_(p, exp_avg, exp_inf, -clr)
        return loss
