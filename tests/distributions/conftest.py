"""Behaviour tests here take a ``torch`` fixture and run twice: with leafgrad and with PyTorch
(skipped when PyTorch is not installed), so what they assert is PyTorch's behaviour and
leafgrad's. Numerical comparisons import PyTorch with ``pytest.importorskip``."""

import pytest

import leafgrad


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    """The library under test: leafgrad, then PyTorch as the oracle."""
    return leafgrad if request.param == "leafgrad" else pytest.importorskip("torch")
