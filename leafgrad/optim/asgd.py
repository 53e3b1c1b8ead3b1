"""ASGD: stochastic gradient descent with a decaying step and a running average of iterates."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import zeros_like
from ._arrays import _update_forms
from ._step import _use_grad_for_differentiable
from ._update import (
    _check_hyperparameters,
    _lr,
    _params_with_grad,
    _scalar,
    _scalar_state_tensor,
)
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``torch.optim.ASGD``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, ``eta`` (the current step size), ``mu`` (the averaging
    weight) — 0-d tensors, float32 unless the default dtype is float64, as in PyTorch, so
    ``eta`` is used rounded — and ``ax``, the average of the iterates since step ``t0``.
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    _scalar_state_keys = ("step", "eta", "mu")

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_hyperparameters(lr, weight_decay=weight_decay)
        # foreach and capturable select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One ASGD step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for p in _params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state_tensor(0.0)
                    state["eta"] = _scalar_state_tensor(_scalar(lr))
                    state["mu"] = _scalar_state_tensor(1.0)
                    state["ax"] = zeros_like(p)
                ax, eta_t, mu_t = state["ax"], state["eta"], state["mu"]
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(group, p, p.grad, ax, scalars=(state["step"], eta_t, mu_t))
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                step = on.increment(state["step"])
                if weight_decay != 0:
                    grad = on.add(grad, p, weight_decay)
                eta = eta_t.item()
                on.mul_(p, 1 - lambd * eta)
                on.add_(p, grad, -eta)
                mu = mu_t.item()
                if mu != 1:
                    on.add_(ax, on.mul(on.sub(p, ax), mu))
                else:
                    on.copy_(ax, p)
                on.fill_(eta_t, _scalar(lr / ((1 + lambd * lr * step) ** alpha)))
                on.fill_(mu_t, 1 / max(1, step - t0))
        return loss
