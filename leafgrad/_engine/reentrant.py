"""Deep reentrant backward: a backward call made inside a backward call (a custom Function's
backward that calls backward, and so on) nests Python frames; past a depth it continues in a
fresh thread, whose stack is empty, while the caller waits, as PyTorch's engine escapes deep
reentrant backward. The thread carries the caller's thread-local modes."""

from __future__ import annotations

import threading

from .._batched import STATE as _vmap_state
from . import forward, grad_mode, saved

# Nested backward calls one thread runs before the next one moves to a fresh thread: each
# costs about ten Python frames, so a thread stays far below the recursion limit.
PER_THREAD = 16

# The thread-local modes a backward pass reads (grad mode, saved-tensor hooks, forward-mode
# levels, jet mode, vmap levels): a fresh thread would otherwise start with the defaults.
_STATES = (grad_mode._state, saved._hooks, forward.state, forward.jet_state, _vmap_state)


def _snapshot() -> list:
    return [
        (state, {k: list(v) if type(v) is list else v for k, v in vars(state).items()})
        for state in _STATES
    ]


def in_fresh_thread(fn):
    """``fn()`` run in a new thread with this thread's modes; its result, or its exception."""
    modes = _snapshot()
    outcome: dict = {}

    def run() -> None:
        for state, values in modes:
            vars(state).update(values)
        try:
            outcome["value"] = fn()
        except BaseException as exc:  # handed to the waiting caller, which raises it
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="leafgrad-reentrant-backward")
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
