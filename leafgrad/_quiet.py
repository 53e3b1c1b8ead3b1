"""NumPy kept quiet around a computation: PyTorch returns inf/nan without warnings."""

from __future__ import annotations

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
