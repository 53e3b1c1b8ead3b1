"""Adamax: Adam with the infinity norm of past gradients in place of their second moment."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import maximum, zeros_like
from ._step import _use_grad_for_differentiable
from ._update import (
    _addcdiv_,
    _increment,
    _lerp_,
    _lr,
    _params_with_grad,
    _restore_step_tensors,
    _step_count_tensor,
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
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
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

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adamax step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_count_tensor()
                    state["exp_avg"] = zeros_like(p)
                    state["exp_inf"] = zeros_like(p)
                grad = -p.grad if group["maximize"] else p.grad
                step = _increment(state["step"])
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
                clr = lr / (1 - beta1**step)
                _addcdiv_(p, exp_avg, exp_inf, -clr)
        return loss
