"""``torch.autograd.grad_mode``: the grad-mode context managers, importable by this path."""

from .._engine.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from . import set_multithreading_enabled
from ._layout_policy import enforce_grad_layout_policy

__all__ = [
    "enable_grad",
    "enforce_grad_layout_policy",
    "inference_mode",
    "no_grad",
    "set_grad_enabled",
    "set_multithreading_enabled",
]
