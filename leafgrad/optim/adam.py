"""Adam and AdamW (decoupled weight decay), with amsgrad and maximize."""

from __future__ import annotations

from typing import Any, ClassVar

from . import _flat_adam
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

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """``torch.optim.Adam``: the same options, state and arithmetic, step for step.

    State per parameter: ``step`` (a 0-d float tensor), ``exp_avg``, ``exp_avg_sq`` and, with
    ``amsgrad``, ``max_exp_avg_sq``. ``decoupled_weight_decay=True`` is AdamW.
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "amsgrad": False,
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "fused": None,
    }

    _scalar_state_keys = ("step",)

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_hyperparameters(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # foreach, fused and capturable select PyTorch kernels or CUDA-graph safety; with NumPy
        # there is one path, so they are kept (state dicts stay interchangeable) but do nothing.
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adam step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            eps = group["eps"]
            weight_decay = _scalar(group["weight_decay"])
            amsgrad = group["amsgrad"]
            params = _params_with_grad(group)
            if _flat_adam.step(self, group, params, lr, beta1, beta2, eps, weight_decay, amsgrad):
                continue
            for p in params:
                state = _state_of(
                    self, p, "exp_avg", "exp_avg_sq", *(("max_exp_avg_sq",) if amsgrad else ())
                )
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                max_exp_avg_sq = state["max_exp_avg_sq"] if amsgrad else None
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(
                    group, p, p.grad, exp_avg, exp_avg_sq, max_exp_avg_sq, scalars=(state["step"],)
                )
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
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5
                if amsgrad:
                    on.maximum_(max_exp_avg_sq, exp_avg_sq)
                    denom = on.sqrt_div_add(max_exp_avg_sq, bias_correction2_sqrt, eps)
                else:
                    denom = on.sqrt_div_add(exp_avg_sq, bias_correction2_sqrt, eps)
                on.addcdiv_(p, exp_avg, denom, -step_size)
        return loss


class AdamW(Adam):
    """``torch.optim.AdamW``: Adam with weight decay applied to the weights, not the gradient."""

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
