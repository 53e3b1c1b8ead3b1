"""Anomaly mode state: record where each node was created; check backward for NaN.

Off by default: ops then pay one flag check when they record a node.
"""

from __future__ import annotations

import sys
import traceback
import warnings

import numpy as np

from .grad_mode import _DecoratorContextManager, count_special


class _State:
    """Process-wide, as PyTorch's anomaly mode is (grad mode, by contrast, is per thread)."""

    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


state = _State()


def _set(enabled: bool, check_nan: bool) -> None:
    if bool(enabled) != bool(state.enabled):
        count_special(bool(enabled))
    state.enabled, state.check_nan = enabled, check_nan


def is_anomaly_enabled() -> bool:
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return state.check_nan


def _warn_enabled() -> None:
    warnings.warn(
        "Anomaly Detection has been enabled. This mode will increase the runtime and should "
        "only be enabled for debugging.",
        UserWarning,
        stacklevel=3,
    )


class detect_anomaly(_DecoratorContextManager):
    """Inside: nodes remember the forward code that made them, and a backward that returns
    NaN raises a RuntimeError naming the node and showing that code."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        _warn_enabled()

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        _set(*self._prev)

    def clone(self):
        clone = object.__new__(type(self))
        clone.check_nan = self.check_nan
        return clone


class set_detect_anomaly(_DecoratorContextManager):
    """Turn anomaly mode on or off now (and back when used as a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (state.enabled, state.check_nan)
        self.mode, self.check_nan = mode, check_nan
        _set(bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set(*self._prev)

    def clone(self):
        return type(self)(self.mode, self.check_nan)


def record_creation(node) -> None:
    """Keep the forward stack (without leafgrad's own frames) on ``node``."""
    frames = [
        f
        for f in traceback.extract_stack()[:-1]
        if "/leafgrad/" not in f.filename.replace("\\", "/")
    ]
    node.metadata["traceback_"] = "".join(traceback.format_list(frames))


def forward_trace(node) -> str:
    trace = node.metadata_.get("traceback_") if node.metadata_ else None
    if trace is None:
        return (
            "No forward pass information available. Enable detect anomaly during forward pass "
            "for more information: this node was created while anomaly mode was off."
        )
    return f"Traceback of the forward call that created {node.name()}:\n{trace}"


def check_outputs(node, outs) -> None:
    """RuntimeError if the gradients ``node`` returned contain NaN."""
    for i, g in enumerate(outs):
        if g is not None and g._data.dtype.kind == "f" and np.isnan(g._data).any():
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {i}th output.\n"
                + forward_trace(node)
            )


def report_error(node) -> None:
    """Warn which node failed and where it was made; the caller re-raises the error."""
    message = f"Error detected in {node.name()}. {forward_trace(node)}"
    try:
        warnings.warn(message, UserWarning, stacklevel=2)
    except Warning:
        # Warnings turned into errors must not replace the backward error itself: as in
        # PyTorch, the report goes to stderr instead.
        print(f"UserWarning: {message}", file=sys.stderr)
