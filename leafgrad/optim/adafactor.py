"""Adafactor: Adam-like steps whose second moment of a matrix is kept as row and column
factors, with a relative step size and update clipping (Shazeer and Stern, 2018)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from .. import Tensor, zeros_like
from ._step import _use_grad_for_differentiable
from ._update import _increment, _lerp_, _params_with_grad, _scalar, _step_count_tensor
from .optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """``torch.optim.Adafactor``: the same options, state and arithmetic, step for step.

    State per parameter: ``step``, and ``row_var``/``col_var`` (a matrix or batch of
    matrices: the factored second moment) or ``variance`` (a vector).
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {"foreach": None, "maximize": False}
    _scalar_state_keys = ("step",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _state(self, p: Tensor) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_count_tensor()
            if p.grad.dim() > 1:
                state["row_var"] = p.grad.new_zeros((*p.grad.shape[:-1], 1))
                state["col_var"] = p.grad.new_zeros((*p.grad.shape[:-2], 1, p.grad.shape[-1]))
            else:
                state["variance"] = zeros_like(p.grad)
        return state

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One Adafactor step over every parameter with a gradient; returns ``closure()``'s
        loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            eps1, eps2 = group["eps"]
            d, weight_decay = group["d"], group["weight_decay"]
            for p in _params_with_grad(group):
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self._state(p)
                grad = -p.grad if group["maximize"] else p.grad
                if eps1 is None:
                    # As PyTorch: chosen from the first parameter, kept for the group's rest.
                    eps1 = float(np.finfo(p.detach().numpy().dtype).eps)
                step = _increment(state["step"])
                one_minus_beta2 = step ** group["beta2_decay"]
                rho = min(lr, 1 / (step**0.5))
                alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho
                if weight_decay != 0:
                    p.mul_(1 - lr * weight_decay)
                if grad.dim() > 1:
                    row_mean = grad.norm(dim=-1, keepdim=True).square() / grad.shape[-1]
                    _lerp_(state["row_var"], row_mean, one_minus_beta2)
                    col_mean = grad.norm(dim=-2, keepdim=True).square() / grad.shape[-2]
                    _lerp_(state["col_var"], col_mean, one_minus_beta2)
                    estimate = state["row_var"] @ state["col_var"]
                    estimate = estimate / state["row_var"].mean(dim=-2, keepdim=True).clamp(
                        min=eps1
                    )
                else:
                    _lerp_(state["variance"], grad * grad, one_minus_beta2)
                    estimate = state["variance"].clone()
                update = estimate.clamp(min=eps1 * eps1).rsqrt() * grad
                denom = max(1.0, update.norm(2).item() / (math.sqrt(update.numel()) * d))
                p.add_(update, alpha=-alpha / denom)
        return loss
