"""RAdam: Adam with the variance of its adaptive learning rate rectified in early steps."""

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

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """``torch.optim.RAdam``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, ``exp_avg`` and ``exp_avg_sq``. While the approximated
    simple moving average is short (``rho_t <= 5``) the step is plain momentum SGD.
    ``decoupled_weight_decay=True`` decays the weights directly, as AdamW does.
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "capturable": False,
    }

    _scalar_state_keys = ("step",)

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_hyperparameters(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        # foreach and capturable select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One RAdam step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            beta1, beta2 = group["betas"]
            weight_decay = group["weight_decay"]
            # the maximum length of the approximated simple moving average
            rho_inf = 2 / (1 - beta2) - 1
            for p in _params_with_grad(group):
                state = _state_of(self, p, "exp_avg", "exp_avg_sq")
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(group, p, p.grad, exp_avg, exp_avg_sq, scalars=(state["step"],))
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                step = on.increment(state["step"])
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        on.mul_(p, 1 - lr * weight_decay)
                    else:
                        grad = on.add(grad, p, weight_decay)
                on.lerp_(exp_avg, grad, 1 - beta1)
                on.addcmul_(on.mul_(exp_avg_sq, beta2), grad, grad, 1 - beta2)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                bias_corrected_exp_avg = on.div(exp_avg, bias_correction1)
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    rect = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    adaptive_lr = on.rdiv(
                        bias_correction2**0.5, on.sqrt_add(exp_avg_sq, group["eps"])
                    )
                    scaled = on.mul(on.mul(bias_corrected_exp_avg, lr), adaptive_lr)
                    on.add_(p, on.mul(scaled, rect), -1.0)
                else:
                    on.add_(p, on.mul(bias_corrected_exp_avg, lr), -1.0)
        return loss
