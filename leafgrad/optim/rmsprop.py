"""RMSprop, plain or centered, with momentum, weight decay and maximize."""

from __future__ import annotations

from typing import Any, ClassVar

from ._arrays import _update_forms
from ._step import _use_grad_for_differentiable
from ._update import (
    _check_hyperparameters,
    _params_with_grad,
    _scalar,
    _state_of,
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

    _scalar_state_keys = ("step",)

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
        _check_hyperparameters(
            lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha
        )
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
                optional = (("momentum_buffer",) if momentum > 0 else ()) + (
                    ("grad_avg",) if group["centered"] else ()
                )
                state = _state_of(self, p, "square_avg", *optional)
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(
                    group,
                    p,
                    p.grad,
                    *(state[k] for k in ("square_avg", *optional)),
                    scalars=(state["step"],),
                )
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                on.increment(state["step"])
                if weight_decay != 0:
                    grad = on.add(grad, p, weight_decay)
                square_avg = on.addcmul_(on.mul_(state["square_avg"], alpha), grad, grad, 1 - alpha)
                if group["centered"]:
                    grad_avg = on.lerp_(state["grad_avg"], grad, 1 - alpha)
                    avg = on.sqrt_var_add(square_avg, grad_avg, eps)
                else:
                    avg = on.sqrt_add(square_avg, eps)
                if momentum > 0:
                    buf = on.add_(on.mul_(state["momentum_buffer"], momentum), on.div(grad, avg))
                    on.add_(p, buf, -lr)
                else:
                    on.addcdiv_(p, grad, avg, -lr)
        return loss
