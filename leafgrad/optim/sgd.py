"""Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and maximize."""

from __future__ import annotations

from typing import Any, ClassVar

from ._arrays import _update_forms
from ._step import _use_grad_for_differentiable
from ._update import _params_with_grad, _scalar
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """``torch.optim.SGD``: the same options, state (``momentum_buffer``) and arithmetic.

    Each step, per parameter ``p`` with gradient ``g`` (negated when ``maximize``)::

        g = g + weight_decay * p
        buf = g (first step) or momentum * buf + (1 - dampening) * g
        g = g + momentum * buf (nesterov) or buf
        p = p - lr * g
    """

    _group_option_defaults: ClassVar[dict[str, Any]] = {
        "nesterov": False,
        "maximize": False,
        "foreach": None,
        "differentiable": False,
        "fused": False,
    }

    def __init__(
        self,
        params,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # foreach and fused select PyTorch kernels; with NumPy there is one path, so they are
        # kept (state dicts stay interchangeable) but change nothing.
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """One SGD step over every parameter with a gradient; returns ``closure()``'s loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            weight_decay = _scalar(group["weight_decay"])
            momentum = group["momentum"]
            dampening = group["dampening"]
            for p in _params_with_grad(group):
                state = self.state[p] if momentum != 0 else None
                buf = state.get("momentum_buffer") if momentum != 0 else None
                # PyTorch's single-tensor order, on arrays where nothing needs recording
                on = _update_forms(group, p, p.grad, buf)
                grad = on.neg(p.grad) if group["maximize"] else p.grad
                if weight_decay != 0:
                    grad = on.add(grad, p, weight_decay)
                if momentum != 0:
                    if buf is None:
                        buf = state["momentum_buffer"] = on.clone(grad)
                    else:
                        on.add_(on.mul_(buf, momentum), grad, 1 - dampening)
                    grad = on.add(grad, buf, momentum) if group["nesterov"] else buf
                on.add_(p, grad, -lr)
        return loss
