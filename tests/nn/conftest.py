"""Behaviour tests here take a ``torch`` fixture and run twice: with leafgrad and with PyTorch
(skipped when PyTorch is not installed). What a test asserts in both runs is PyTorch's
behaviour, and leafgrad has it too. Numerical comparisons live in modules that import
PyTorch with ``pytest.importorskip``."""

import pytest

import leafgrad


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    """The library under test: leafgrad, then PyTorch as the oracle."""
    return leafgrad if request.param == "leafgrad" else pytest.importorskip("torch")
