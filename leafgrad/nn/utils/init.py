"""``skip_init``: a module built without caring for its parameters' initial values."""

from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameters and buffers hold unspecified values;
    the class must accept a ``device`` argument, as in PyTorch."""
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    # PyTorch builds on the meta device and allocates empty storage; leafgrad has no meta
    # device, so the module is built as usual (its values are unspecified either way).
    return module_cls(*args, **kwargs)
