"""ASGD: stochastic gradient descent with a decaying step and a running average of iterates."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import zeros_like
from ._step import _use_grad_for_differentiable
from ._update import (
    _check_hyperparameters,
    _increment,
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
                grad = -p.grad if group["maximize"] else p.grad
                step = _increment(state["step"])
                if weight_decay != 0:
                    grad = grad.add(p, alpha=weight_decay)
                eta = state["eta"].item()
                p.mul_(1 - lambd * eta)
                p.add_(grad, alpha=-eta)
                mu = state["mu"].item()
                if mu != 1:
                    state["ax"].add_((p - state["ax"]) * mu)
                else:
                    state["ax"].copy_(p)
                state["eta"].fill_(_scalar(lr / ((1 + lambd * lr * step) ** alpha)))
                state["mu"].fill_(1 / max(1, step - t0))
        return loss
