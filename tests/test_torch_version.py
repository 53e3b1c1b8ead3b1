"""``torch.__version__`` compares as a version (``TorchVersion``), as PyTorch's does:
against strings and tuples, with pre-, post-, dev-releases and local labels ordered."""

import itertools
import re

import pytest

import leafgrad
from leafgrad.torch_version import InvalidVersion, TorchVersion

VERSIONS = [
    "2.13.0+cpu", "2.13.0", "2.13", "2.13.1", "2.9", "2.14.0a0", "2.14.0a0+git123",
    "2.13.0.dev20240101", "2.13.0rc1", "2.13.0.post1", "1.10.2", "2.13.0+leafgrad.0.1.0",
    "2.0", "2", "2.13.0b2", "2.13.0rc1.dev3",
]  # fmt: skip
OPS = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")


def test_orders_as_pytorchs_version():
    theirs = pytest.importorskip("torch.torch_version").TorchVersion
    for a, b in itertools.product(VERSIONS, repeat=2):
        for op in OPS:
            assert getattr(TorchVersion(a), op)(b) == getattr(theirs(a), op)(b), (a, op, b)
    for other in [(2, 13), (2, 13, 0), (2, 9), (2, 14), (1,), (3, 0)]:
        for op in OPS:
            ours = getattr(TorchVersion("2.13.0+leafgrad.0.1.0"), op)(other)
            assert ours == getattr(theirs("2.13.0+leafgrad.0.1.0"), op)(other), (op, other)


def test_known_orderings():
    v = TorchVersion("2.13.0+cpu")
    assert v > "2.9" and v >= (2, 1) and v < (2, 14) and v > "2.13.0" and v < "2.14.0a0"
    assert TorchVersion("2.0") == "2" and TorchVersion("1.10") > "1.9"
    assert str(v) == "2.13.0+cpu" and hash(v) == hash("2.13.0+cpu")
    with pytest.raises(InvalidVersion):
        v < "not a version"  # noqa: B015
    assert (v == "not a version") is False


def test_the_reported_version_is_one():
    assert isinstance(leafgrad.torch_version.__version__, TorchVersion)
    assert re.fullmatch(r"2\.13\.0\+leafgrad\..*", leafgrad.torch_version.__version__)
    assert leafgrad.torch_version.__version__ >= (2, 0)
