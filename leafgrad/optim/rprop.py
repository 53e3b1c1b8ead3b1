"""Rprop: per-element step sizes grown or shrunk by the sign agreement of successive gradients."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import full_like, where, zeros_like
from ._step import _use_grad_for_differentiable
from ._update import (
    _addcmul_,
    _check_hyperparameters,
    _increment,
    _lr,
    _params_with_grad,
    _scalar,
    _state_of,
)
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """``torch.optim.Rprop``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, ``prev`` (the last gradient used) and ``step_size``
    (starting at ``lr``, times ``etas[1]`` on agreeing signs, ``etas[0]`` on flips, clamped to
    ``step_sizes``). A sign flip skips that element's update and forgets its gradient.
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
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
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_hyperparameters(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        # capturable and foreach select PyTorch kernels; kept for interchangeable state dicts.
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Rprop step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            eta_minus, eta_plus = group["etas"]
            step_min, step_max = group["step_sizes"]
            for p in _params_with_grad(group):
                state = _state_of(self, p, "prev")
                if "step_size" not in state:
                    state["step_size"] = full_like(p.grad, _scalar(_lr(group["lr"])))
                _increment(state["step"])
                grad = -p.grad if group["maximize"] else p.grad
                sign = (grad * state["prev"]).sign()
                # Factors built in the parameter's dtype: Python floats in `where` would round
                # to the default dtype first.
                factor = where(
                    sign > 0,
                    full_like(sign, eta_plus),
                    where(sign < 0, full_like(sign, eta_minus), full_like(sign, 1.0)),
                )
                state["step_size"].mul_(factor).clamp_(step_min, step_max)
                flipped = sign < 0
                grad = where(flipped, zeros_like(grad), grad)
                _addcmul_(p, grad.sign(), state["step_size"], -1)
                state["prev"].copy_(grad)
        return loss
