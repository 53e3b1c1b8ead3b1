"""``torch.compiler``: leafgrad has no compiler, so everything runs eagerly; these helpers
answer as PyTorch's do outside compilation (``is_compiling()`` is False, ``disable`` and
``allow_in_graph`` return the function unchanged)."""

from __future__ import annotations

import contextlib

from ._torch_eager import compile

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable",
           "allow_in_graph", "assume_constant_result", "reset", "list_backends",
           "set_stance", "cudagraph_mark_step_begin"]  # fmt: skip


def is_compiling() -> bool:
    """False: nothing is ever being compiled."""
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def disable(fn=None, recursive: bool = True, *, reason=None):
    """``fn`` unchanged (it already runs eagerly); a decorator when ``fn`` is omitted."""
    return (lambda f: f) if fn is None else fn


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def reset() -> None:
    """Nothing to reset: there are no compiled caches."""


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """No compiler backends: an empty list."""
    return []


@contextlib.contextmanager
def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
               force_backend=None):  # fmt: skip
    """A no-op context (there is no compiler whose stance to set)."""
    yield


def cudagraph_mark_step_begin() -> None:
    """Nothing to mark: there are no CUDA graphs."""
