"""``enforce_grad_layout_policy``: PyTorch's switch for whether accumulated gradients must
take their parameter's strides. leafgrad keeps the thread-local flag with PyTorch's
semantics (set on construction, restored on exit); its gradient accumulation has no
layout-dependent shortcut, so gradients are the same either way."""

from __future__ import annotations

import threading

from .._engine.grad_mode import _DecoratorContextManager


class _Policy(threading.local):
    enforced = True


_POLICY = _Policy()


def _is_grad_layout_enforcement_enabled() -> bool:
    """Whether the gradient layout contract is enforced in this thread."""
    return _POLICY.enforced


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Enforce (``enable=True``, the default) or relax the gradient layout contract, in this
    thread; a context manager, a decorator, or a plain call (it takes effect at once)."""

    def __init__(self, enable: bool = True) -> None:
        self.prev = _POLICY.enforced
        _POLICY.enforced = bool(enable)
        self.mode = enable

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _POLICY.enforced = self.prev

    def __call__(self, func):
        _POLICY.enforced = self.prev  # as a decorator it applies only while func runs
        return super().__call__(func)

    def clone(self):
        return type(self)(self.mode)
