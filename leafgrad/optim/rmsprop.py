"""RMSprop, plain or centered, with momentum, weight decay and maximize."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import zeros_like
from ._step import _use_grad_for_differentiable
from ._update import (
    _addcmul_,
    _increment,
    _lerp_,
    _params_with_grad,
    _restore_step_tensors,
    _scalar,
    _step_count_tensor,
)
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """``torch.optim.RMSprop``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, ``square_avg``, plus ``momentum_buffer`` when
    ``momentum > 0`` and ``grad_avg`` when ``centered``.
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "momentum": 0,
        "centered": False,
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        # capturable and foreach select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        _restore_step_tensors(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One RMSprop step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            alpha = group["alpha"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            momentum = group["momentum"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_count_tensor()
                    state["square_avg"] = zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = zeros_like(p)
                grad = -p.grad if group["maximize"] else p.grad
                _increment(state["step"])
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                square_avg = _addcmul_(state["square_avg"].mul_(alpha), grad, grad, 1 - alpha)
                if group["centered"]:
                    grad_avg = _lerp_(state["grad_avg"], grad, 1 - alpha)
                    avg = (square_avg - grad_avg * grad_avg).sqrt()
                else:
                    avg = square_avg.sqrt()
                avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"].mul_(momentum).add_(grad / avg)
                    p.add_(buf, alpha=-lr)
                else:
                    # addcdiv_'s order: p + (value * grad) / avg
                    p.add_((-lr) * grad / avg)
        return loss
