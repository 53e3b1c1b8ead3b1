"""vmap tests: a body written against ``torch`` runs with leafgrad and with PyTorch (the
oracle, skipped cleanly without it); ``pytorch`` is PyTorch itself for differential checks."""

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
