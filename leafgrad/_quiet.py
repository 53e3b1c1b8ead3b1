"""NumPy kept quiet around a computation: PyTorch returns inf/nan without warnings."""

from __future__ import annotations

import contextvars
import threading

import numpy as np


# NumPy warns on log(0), 1/0 and the like; PyTorch returns inf/nan silently. Entering
# np.errstate costs ~1.5 us per op, so we set its context variable directly when this NumPy
# exposes it (a private name, hence the fallback). ``QUIET.set(QUIET_STATE)`` silences NumPy
# and returns a token; ``QUIET.reset(token)`` restores what was there.
class _ErrstateFallback:
    """``np.errstate(all="ignore")`` behind the context variable's set/reset interface."""

    def get(self):
        return self  # never the quiet state (None): callers always enter it

    def set(self, state):
        quiet = np.errstate(all="ignore")
        quiet.__enter__()
        return quiet

    def reset(self, quiet) -> None:
        quiet.__exit__(None, None, None)


try:
    from numpy._core._ufunc_config import _extobj_contextvar as QUIET

    with np.errstate(all="ignore"):
        QUIET_STATE = QUIET.get()
except ImportError:  # pragma: no cover - other NumPy layouts
    QUIET, QUIET_STATE = _ErrstateFallback(), None


class _FallbackContext:
    """``run(fn, ...)`` under ``np.errstate(all="ignore")``, for a NumPy without the variable."""

    def run(self, fn, *args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)


class _QuietContexts(threading.local):
    context = None  # this thread's Context in which NumPy is quiet


CONTEXTS = _QuietContexts()


def quiet_context():
    """This thread's Context in which NumPy is quiet, made on first use: ``run(fn, ...)`` in
    it costs ~0.15 us against ~0.35 us for setting and resetting the variable around ``fn``
    (once per op). It holds that one variable (every other reads its default there, and
    nothing of the caller's context is kept alive); only ops' forwards run in it, which read
    no other, and a forward that calls an op finds NumPy quiet already, so the context is
    never entered twice. (One per thread: a Context runs in one thread at a time.)"""
    context = CONTEXTS.context
    if context is None:
        if QUIET_STATE is None:
            context = _FallbackContext()
        else:
            context = contextvars.Context()
            context.run(QUIET.set, QUIET_STATE)
        CONTEXTS.context = context
    return context
