"""Fixtures shared by the whole suite."""

import pytest

from leafgrad import _warn


@pytest.fixture
def fresh_warnings():
    """Forget which once-per-process warnings (PyTorch's TORCH_WARN_ONCE) were given, so
    that a test sees its warning whatever ran before it."""
    given = set(_warn._warned_once)
    _warn._warned_once.clear()
    yield
    _warn._warned_once.update(given)
