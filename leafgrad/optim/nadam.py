"""NAdam: Adam with Nesterov momentum and a warming momentum schedule."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import zeros_like
from ._arrays import _update_forms
from ._step import _use_grad_for_differentiable
from ._update import (
    _check_hyperparameters,
    _lr,
    _params_with_grad,
    _scalar_state_tensor,
)
from .optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """``torch.optim.NAdam``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, ``mu_product`` (a 0-d tensor, float32 unless the default
    dtype is float64, as in PyTorch), ``exp_avg`` and ``exp_avg_sq``.
    ``decoupled_weight_decay=True`` decays the weights directly, as AdamW does.
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
    }

    _scalar_state_keys = ("step", "mu_product")

    def __init__(
        self,
        params,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_hyperparameters(
            lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay
        )
        # foreach and capturable select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One NAdam step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            beta1, beta2 = group["betas"]
            weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state_tensor(0.0)
                    state["mu_product"] = _scalar_state_tensor(1.0)
                    state["exp_avg"] = zeros_like(p)
                    state["exp_avg_sq"] = zeros_like(p)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                scalars = (state["step"], state["mu_product"])
                on = _update_forms(group, p, p.grad, exp_avg, exp_avg_sq, scalars=scalars)
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                step = on.increment(state["step"])
                bias_correction2 = 1 - beta2**step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        on.mul_(p, 1 - lr * weight_decay)
                    else:
                        grad = on.add(grad, p, weight_decay)
                # the momentum coefficients mu_t and mu_{t+1} of the warming schedule
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                # rounded in the state tensor's dtype before use, as PyTorch's is
                mu_product = on.mul_(state["mu_product"], mu).item()
                mu_product_next = mu_product * mu_next
                on.lerp_(exp_avg, grad, 1 - beta1)
                on.addcmul_(on.mul_(exp_avg_sq, beta2), grad, grad, 1 - beta2)
                denom = on.div_sqrt_add(exp_avg_sq, bias_correction2, group["eps"])
                on.addcdiv_(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
                on.addcdiv_(p, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product_next))
        return loss
