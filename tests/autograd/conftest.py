"""Each autograd test body is PyTorch code run twice: with ``torch`` bound to leafgrad and to
PyTorch itself (skipped cleanly when PyTorch is not installed). A fact asserted in both runs
is PyTorch's behaviour, and leafgrad has it too."""

import pytest

import leafgrad


def _pytorch():
    return pytest.importorskip("torch")


@pytest.fixture(params=["leafgrad", "pytorch"])
def torch(request):
    """The library under test: leafgrad, then PyTorch as the oracle."""
    return leafgrad if request.param == "leafgrad" else _pytorch()


@pytest.fixture
def pytorch():
    """PyTorch itself, for differential checks against leafgrad."""
    return _pytorch()
