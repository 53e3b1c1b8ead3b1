"""Wrapping optimiser steps: the global and per-optimiser step hooks, and grad mode.

Every ``Optimizer`` subclass's ``step`` runs inside the hooks (``_hooked_step``, applied by
``Optimizer.__init_subclass__``, as PyTorch patches ``step`` to run its hooks); only leafgrad's
own steps also turn grad off (``_use_grad_for_differentiable``), so a user's step keeps the
caller's grad mode, as in PyTorch. They also keep NumPy quiet, as every op does: an update
that overflows to inf or nan (a diverging run) warns in PyTorch no more than an op does,
and the fast path's forms (``_arrays``) compute on the arrays themselves; the closure runs
with the caller's NumPy settings (``run_closure``).
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable

from .. import set_grad_enabled
from .._quiet import QUIET, QUIET_STATE
from ..utils.hooks import RemovableHandle

__all__ = ["register_optimizer_step_post_hook", "register_optimizer_step_pre_hook"]

_global_step_pre_hooks: OrderedDict = OrderedDict()
_global_step_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimiser's ``step``."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimiser's ``step``."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _use_grad_for_differentiable(step: Callable) -> Callable:
    """``step`` run with grad mode set to the ``differentiable`` option (off by default).

    PyTorch decorates each of its own optimisers' ``step`` with this; closures turn grad mode
    back on themselves (``Optimizer._evaluate``).
    """

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            callers = _callers_numpy.__dict__.setdefault("stack", [])
            callers.append(QUIET.get())
            token = QUIET.set(QUIET_STATE)
            try:
                return step(self, *args, **kwargs)
            finally:
                QUIET.reset(token)
                callers.pop()

    return wrapper


_callers_numpy = threading.local()  # .stack: NumPy's settings where each running step was called


def run_closure(closure: Callable):
    """``closure()`` with the NumPy settings of the step's caller (the step's are quiet)."""
    callers = getattr(_callers_numpy, "stack", None)
    if not callers:
        return closure()
    token = QUIET.set(callers[-1])
    try:
        return closure()
    finally:
        QUIET.reset(token)


def _hooked_step(step: Callable) -> Callable:
    """``step`` wrapped to run the step hooks around it; grad mode is left as it is.

    A subclass's step that calls ``super().step()`` runs the hooks once, not twice.
    """

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if self.__dict__.get("_in_step", False):
            return step(self, *args, **kwargs)
        self._in_step = True
        try:
            return _run_hooked(self, step, args, kwargs)
        finally:
            self._in_step = False

    wrapper._hooked = True
    return wrapper


def _run_hooked(self, step: Callable, args: tuple, kwargs: dict):
    """Pre-hooks (which may replace the arguments), ``step`` itself, then post-hooks."""
    # The hooks see ``step``'s own arguments, the optimiser first, as PyTorch's (which wraps
    # the unbound ``step``); a pre-hook's new args must hold the optimiser too.
    args = (self, *args)
    for pre_hook in itertools.chain(
        _global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()
    ):
        result = pre_hook(self, args, kwargs)
        if result is not None:
            if isinstance(result, tuple) and len(result) == 2:
                args, kwargs = result
            else:
                raise RuntimeError(
                    f"{step.__qualname__}: a step pre-hook must return None or a tuple "
                    f"(new_args, new_kwargs), but returned {result!r}"
                )
    out = step(*args, **kwargs)
    for post_hook in itertools.chain(
        self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()
    ):
        post_hook(self, args, kwargs)
    return out
