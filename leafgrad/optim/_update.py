"""Helpers the optimisers share: PyTorch's in-place update forms and per-parameter step counts.

The update forms reproduce the order in which ATen's CPU kernels round (``addcmul_`` is
``t + value * t1 * t2``, ``addcdiv_`` is ``t + value * t1 / t2``), so trajectories follow
PyTorch's as closely as NumPy allows.
"""

from __future__ import annotations

from typing import Any

from .. import Tensor, float32, float64, get_default_dtype, maximum, tensor, zeros_like


def _scalar(value):
    """A hyperparameter as a Python number (PyTorch also accepts one-element tensors)."""
    return value.item() if isinstance(value, Tensor) else value


def _lr(value):
    """A group's ``lr`` for step arithmetic: a number, or a 1-element tensor as a 0-d tensor.

    PyTorch computes with a tensor lr as a tensor (float32 by default), so step sizes derived
    from it (``lr / bias_correction``, ``1 - lr * weight_decay``) round to its dtype; keeping
    it a tensor here rounds them the same way.
    """
    if isinstance(value, Tensor) and value.dim() != 0:
        return value.reshape(())
    return value


def _lerp_(start: Tensor, end: Tensor, weight: float) -> Tensor:
    """``start.lerp_(end, weight)`` with a scalar weight, in PyTorch's form (exact at both ends)."""
    if abs(weight) < 0.5:
        return start.add_(end - start, alpha=weight)
    return start.copy_(end - (end - start) * (1 - weight))


def _addcmul_(t: Tensor, tensor1: Tensor, tensor2: Tensor, value: float) -> Tensor:
    """``t.addcmul_(tensor1, tensor2, value=value)``, rounded as PyTorch's: value * t1 * t2."""
    return t.add_(value * tensor1 * tensor2)


def _addcdiv_(t: Tensor, tensor1: Tensor, tensor2: Tensor, value: float) -> Tensor:
    """``t.addcdiv_(tensor1, tensor2, value=value)``, rounded as PyTorch's: value * t1 / t2."""
    return t.add_(value * tensor1 / tensor2)


class _OnTensors:
    """The update forms as leafgrad ops on Tensors: the general path (recorded when the step is
    differentiable). ``_arrays._OnArrays`` computes the same forms, rounded the same way."""

    lerp_ = staticmethod(_lerp_)
    addcmul_ = staticmethod(_addcmul_)
    addcdiv_ = staticmethod(_addcdiv_)

    @staticmethod
    def neg(x: Tensor) -> Tensor:
        return -x

    @staticmethod
    def add(x: Tensor, y: Tensor, alpha) -> Tensor:
        """``x + alpha * y``, a new tensor."""
        return x.add(y, alpha=alpha)

    @staticmethod
    def add_(t: Tensor, y: Tensor, alpha=1) -> Tensor:
        return t.add_(y, alpha=alpha)

    @staticmethod
    def mul_(t: Tensor, value) -> Tensor:
        return t.mul_(value)

    @staticmethod
    def maximum_(t: Tensor, other: Tensor) -> Tensor:
        """``t`` replaced by the elementwise maximum of ``t`` and ``other`` (NaN wins)."""
        return t.copy_(maximum(t, other))

    @staticmethod
    def sqrt_div_add(x: Tensor, divisor, eps) -> Tensor:
        """``sqrt(x) / divisor + eps``, a new tensor (Adam's denominator, in its order)."""
        return (x.sqrt() / divisor).add_(eps)

    @staticmethod
    def sqrt_add(x: Tensor, eps) -> Tensor:
        """``sqrt(x) + eps``, a new tensor."""
        return x.sqrt().add_(eps)

    @staticmethod
    def div_sqrt_add(x: Tensor, divisor, eps) -> Tensor:
        """``sqrt(x / divisor) + eps``, a new tensor."""
        return (x / divisor).sqrt().add_(eps)

    @staticmethod
    def sqrt_var_add(square_avg: Tensor, avg: Tensor, eps) -> Tensor:
        """``sqrt(square_avg - avg * avg) + eps``, a new tensor (centered RMSprop)."""
        return (square_avg - avg * avg).sqrt().add_(eps)

    @staticmethod
    def abs_add(x: Tensor, eps) -> Tensor:
        """``|x| + eps``, a new tensor."""
        return x.abs().add_(eps)

    @staticmethod
    def add_sqrt(x: Tensor, eps) -> Tensor:
        """``sqrt(x + eps)``, a new tensor."""
        return (x + eps).sqrt()

    @staticmethod
    def sub(x: Tensor, y: Tensor) -> Tensor:
        return x - y

    @staticmethod
    def mul(x: Tensor, y) -> Tensor:
        """``x * y`` for a tensor or a number ``y``."""
        return x * y

    @staticmethod
    def div(x: Tensor, y) -> Tensor:
        """``x / y`` for a tensor or a number ``y``."""
        return x / y

    @staticmethod
    def rdiv(number, x: Tensor) -> Tensor:
        """``number / x``."""
        return number / x

    @staticmethod
    def copy_(t: Tensor, src: Tensor) -> Tensor:
        return t.copy_(src)

    @staticmethod
    def fill_(t: Tensor, value) -> Tensor:
        return t.fill_(value)

    @staticmethod
    def clone(x: Tensor) -> Tensor:
        """A copy of ``x`` outside any graph (a new state buffer)."""
        return x.detach().clone()

    @staticmethod
    def increment(step: Tensor) -> float:
        """``step += 1`` in place; returns the new count as a Python float."""
        return step.add_(1).item()


def _params_with_grad(group: dict[str, Any]) -> list[Tensor]:
    """The parameters of ``group`` that have a gradient (the others are skipped)."""
    return [p for p in group["params"] if p.grad is not None]


def _scalar_state_tensor(value: float = 0.0) -> Tensor:
    """A 0-d state tensor (``step``, ``mu_product``...) in PyTorch's dtype for such scalars.

    float64 under a float64 default dtype, else float32 — whatever the parameters' dtype, so
    scalars kept this way round to float32 in an ordinary run, as in PyTorch.
    """
    # Made with its value (not filled afterwards), so its version starts at 0 as PyTorch's.
    return tensor(float(value), dtype=float64 if get_default_dtype() == float64 else float32)


def _step_count_tensor() -> Tensor:
    """A new ``state["step"]``: a 0-d float64 tensor under a float64 default, else float32."""
    return _scalar_state_tensor(0.0)


def _state_of(optimizer, p: Tensor, *buffers: str) -> dict:
    """``optimizer.state[p]``; on first use a ``step`` count and a zero tensor per buffer name."""
    state = optimizer.state[p]
    if len(state) == 0:
        state["step"] = _step_count_tensor()
        for name in buffers:
            state[name] = zeros_like(p)
    return state


_increment = _OnTensors.increment


def _restore_scalar_tensors(optimizer, keys: tuple[str, ...] = ("step",)) -> None:
    """Old state dicts kept scalar state (``step``...) as numbers; PyTorch makes them tensors."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            p_state = optimizer.state.get(p, {})
            for key in keys:
                if p_state and key in p_state and not hasattr(p_state[key], "numel"):
                    p_state[key] = _scalar_state_tensor(float(p_state[key]))


def _restore_step_tensors(optimizer) -> None:
    """Old state dicts kept ``state["step"]`` as a number; PyTorch turns it back into a tensor."""
    _restore_scalar_tensors(optimizer, ("step",))


def _check_hyperparameters(lr, **values) -> None:
    """PyTorch's argument checks with its messages: ``lr``, then ``values`` in the order given.

    Each value must be >= 0; ``betas`` each in [0, 1) and ``rho`` in [0, 1]. A NaN fails.
    """
    if hasattr(lr, "numel") and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    for name, value in values.items():
        if name == "betas":
            for index, beta in enumerate(value):
                if not 0.0 <= beta < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
        elif not (0.0 <= value <= 1.0 if name == "rho" else 0.0 <= value):
            label = "epsilon" if name == "eps" else name
            raise ValueError(f"Invalid {label} value: {value}")
