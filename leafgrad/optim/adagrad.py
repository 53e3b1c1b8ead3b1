"""Adagrad: per-coordinate step sizes from the running sum of squared gradients."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import full_like
from ._arrays import _update_forms
from ._step import _use_grad_for_differentiable
from ._update import (
    _check_hyperparameters,
    _lr,
    _params_with_grad,
    _step_count_tensor,
)
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``torch.optim.Adagrad``: the same options, state and arithmetic, step for step.

    State per parameter: ``step`` and ``sum`` (starting at ``initial_accumulator_value``).
    As in PyTorch, the state of the parameters given at construction is created then, so
    ``state_dict()`` lists them before any step.
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "fused": None,
    }

    _scalar_state_keys = ("step",)

    def __init__(
        self,
        params,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_hyperparameters(
            lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        # foreach and fused select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p) -> dict[str, Any]:
        # PyTorch takes the starting sum from the defaults, even for a group that sets its own.
        state = self.state[p]
        state["step"] = _step_count_tensor()
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])
        return state

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adagrad step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _lr(group["lr"])
            weight_decay = group["weight_decay"]
            for p in _params_with_grad(group):
                state = self.state[p] or self._init_state(p)
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(group, p, p.grad, state["sum"], scalars=(state["step"],))
                step = on.increment(state["step"])
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = on.add(grad, p, weight_decay)
                clr = lr / (1 + (step - 1) * group["lr_decay"])
                state_sum = on.addcmul_(state["sum"], grad, grad, 1)
                std = on.sqrt_add(state_sum, group["eps"])
                on.addcdiv_(p, grad, std, -clr)
        return loss
