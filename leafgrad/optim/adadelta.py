"""Adadelta: step sizes from running averages of squared gradients and squared updates."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import zeros_like
from ._step import _use_grad_for_differentiable
from ._update import (
    _addcmul_,
    _increment,
    _lr,
    _params_with_grad,
    _restore_step_tensors,
    _scalar,
    _step_count_tensor,
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
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
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

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adadelta step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_count_tensor()
                    state["square_avg"] = zeros_like(p)
                    state["acc_delta"] = zeros_like(p)
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
