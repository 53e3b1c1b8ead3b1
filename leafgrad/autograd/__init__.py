"""The public autograd API: backward, grad, grad modes."""

from .._engine import grad_mode
from .._engine.anomaly import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from .._engine.engine import checkpoint_valid as _engine_checkpoint_valid
from .._engine.entry import backward, grad
from .._engine.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .._engine.graph import Node
from . import functional, graph, profiler
from ._layout_policy import enforce_grad_layout_policy
from .explain import explain
from .function import (
    BackwardCFunction,
    Function,
    FunctionCtx,
    NestedIOFunction,
    once_differentiable,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable


def _is_checkpoint_valid() -> bool:
    """PyTorch's check for a reentrant checkpoint: False inside ``grad()`` or
    ``backward(inputs=...)``, whose partial runs it cannot take part in."""
    return _engine_checkpoint_valid()


class set_multithreading_enabled(grad_mode._DecoratorContextManager):
    """Accepted for PyTorch's API: leafgrad's backward pass runs in the calling thread (a
    reentrant backward nested very deep continues in a fresh thread while the caller waits)."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        pass

    def clone(self):
        return type(self)(self.mode)


def __getattr__(name: str):
    if name == "torch":
        # PyTorch's autograd module holds the package (old code reads torch.autograd.torch).
        # why: an upward reference; at the top it would be an import cycle.
        import leafgrad

        return leafgrad
    raise AttributeError(f"module 'leafgrad.autograd' has no attribute {name!r}")


__all__ = [
    "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "inference_mode", "is_inference_mode_enabled", "Node", "gradcheck", "gradgradcheck",
    "GradcheckError", "explain", "Function", "FunctionCtx", "BackwardCFunction",
    "once_differentiable", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled", "functional", "grad_mode", "Variable",
    "set_multithreading_enabled", "graph", "profiler",
]  # fmt: skip
__all__ += ["NestedIOFunction", "enforce_grad_layout_policy"]
