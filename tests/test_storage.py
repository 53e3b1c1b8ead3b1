"""Storages print as PyTorch's: one element a line, then the storage's kind and size."""

import warnings

import pytest

import leafgrad as lg
from leafgrad import _warn


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def typed_storage_warns_as_before(torch):
    """Leave TypedStorage's warn-once deprecation as it was, in both libraries, so that a
    later test still sees the first warning."""
    given = set(_warn._warned_once)
    warned = torch.storage._warn_typed_storage_removal.__dict__.get("has_warned", False)
    yield
    _warn._warned_once.clear()
    _warn._warned_once.update(given)
    torch.storage._warn_typed_storage_removal.__dict__["has_warned"] = warned


def test_an_untyped_storage_lists_its_bytes():
    expected = " 0\n 0\n 128\n 63\n[torch.storage.UntypedStorage(device=cpu) of size 4]"
    assert repr(lg.tensor([1.0]).untyped_storage()) == expected
    assert str(lg.UntypedStorage(0)) == " \n[torch.storage.UntypedStorage(device=cpu) of size 0]"


STORAGES = {
    "untyped": lambda m: m.tensor([1.5, -2.0]).untyped_storage(),
    "untyped-of-a-view": lambda m: m.arange(3, dtype=m.int16)[1:].untyped_storage(),
    "empty": lambda m: m.UntypedStorage(0),
    "typed-float32": lambda m: m.tensor([0.1, 2.0]).storage(),
    "typed-float16": lambda m: m.tensor([0.1, 1e20], dtype=m.float16).storage(),
    "typed-float64": lambda m: m.tensor([1 / 3], dtype=m.float64).storage(),
    "typed-int64": lambda m: m.tensor([1, -2]).storage(),
    "typed-bool": lambda m: m.tensor([True, False]).storage(),
    "legacy": lambda m: m.FloatStorage([1, 2]),
    "legacy-empty": lambda m: m.LongStorage(),
}


@pytest.mark.parametrize("name", STORAGES)
def test_storages_print_as_torch(name, torch, typed_storage_warns_as_before):
    with warnings.catch_warnings():  # TypedStorage is deprecated in both
        warnings.simplefilter("ignore")
        ours, theirs = STORAGES[name](lg), STORAGES[name](torch)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
