"""Tensor hooks and retain_grad, next to the engine that runs them.

Declared as Tensor methods through ``leafgrad._exposure``; ``ops/__init__.py`` binds them with
every other method.
"""

from __future__ import annotations

import weakref

from .._exposure import public
from .._tensor import Tensor
from .graph import RemovableHandle


@public(function=False, method=("register_hook",))
def register_hook(self: Tensor, hook) -> RemovableHandle:
    """Run ``hook(grad)`` whenever the gradient of this tensor is computed.

    The hook may return a replacement gradient (same shape and dtype) or None.
    """
    if not self._requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient (set "
            "requires_grad=True first)"
        )
    if not callable(hook):
        raise TypeError(f"register_hook: hook must be callable, got {type(hook).__name__}")
    if self.grad_fn is not None:
        return self.grad_fn._add_tensor_pre_hook(self._output_nr, hook)
    if self._leaf_hooks is None:
        self._leaf_hooks = {}
    handle = RemovableHandle(self._leaf_hooks)
    self._leaf_hooks[handle.id] = hook
    return handle


@public(function=False, method=("register_post_accumulate_grad_hook",))
def register_post_accumulate_grad_hook(self: Tensor, hook) -> RemovableHandle:
    """Run ``hook(tensor)`` after backward has accumulated into this leaf's ``.grad``."""
    if self.grad_fn is not None:
        raise RuntimeError(
            "post accumulate grad hooks cannot be registered on non-leaf tensors; only leaves "
            "accumulate into .grad"
        )
    if not self._requires_grad:
        raise RuntimeError(
            "cannot register a post accumulate grad hook on a tensor that does not require grad"
        )
    if self._post_accumulate_hooks is None:
        self._post_accumulate_hooks = {}
    handle = RemovableHandle(self._post_accumulate_hooks)
    self._post_accumulate_hooks[handle.id] = hook
    return handle


@public(function=False, method=("retain_grad",))
def retain_grad(self: Tensor) -> None:
    """Make backward fill ``.grad`` of this non-leaf tensor too (a no-op on leaves)."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is None or self._retains_grad:
        return
    ref = weakref.ref(self)

    def retain(grad: Tensor) -> None:
        # PyTorch's retains_grad hook: a copy first, then out of place (never in place, unlike
        # a leaf's .grad); both record a graph when backward runs with create_graph=True.
        tensor = ref()
        if tensor is not None:
            old = tensor._grad
            tensor._grad = grad.clone() if old is None else old + grad

    node = self.grad_fn
    if node._retain_grad_hooks is None:
        node._retain_grad_hooks = {}
    node._retain_grad_hooks[self._output_nr] = retain
    self._retains_grad = True


def move_retain_grad(tensor: Tensor, old_fn, old_nr: int) -> None:
    """``tensor`` is now computed by a new grad_fn (an in-place op changed it): its retained
    gradient follows it there, as PyTorch moves it (other hooks stay with the old version)."""
    hooks = old_fn._retain_grad_hooks
    retain = hooks.pop(old_nr, None) if hooks else None
    node = tensor.grad_fn
    if retain is None or node is None:
        return
    if node._retain_grad_hooks is None:
        node._retain_grad_hooks = {}
    node._retain_grad_hooks[tensor._output_nr] = retain
