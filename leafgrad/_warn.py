"""Warnings that point at the user's line, however deep inside leafgrad they are raised."""

from __future__ import annotations

import sys
import warnings


def warn_at_user(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the nearest caller outside the leafgrad package.

    PyTorch raises its warnings from C++, so Python reports the user's line whichever path led
    there (``float(t)``, ``torch.tensor([t])`` ...); a fixed ``stacklevel`` cannot.
    """
    frame, level = sys._getframe(1), 2  # level 2: warn_at_user's caller
    while frame is not None and is_leafgrad_module(frame.f_globals.get("__name__", "")):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def is_leafgrad_module(module: str) -> bool:
    """Whether the module named ``module`` is leafgrad or one of its submodules."""
    return module == "leafgrad" or module.startswith("leafgrad.")


_warned_once: set = set()


def warn_once(message: str, category: type[Warning] = UserWarning) -> None:
    """``warn_at_user`` the first time ``message`` is warned in this process only, as
    PyTorch's TORCH_WARN_ONCE (deprecations raised from its C++ code)."""
    if message not in _warned_once:
        _warned_once.add(message)
        warn_at_user(message, category)
