"""Classes and bound methods print as PyTorch's, with leafgrad's module names where PyTorch
names torch's (``<class 'torch.Tensor'>`` -> ``<class 'leafgrad.Tensor'>``)."""

import re

import pytest

import leafgrad

torch = pytest.importorskip("torch")


def _shown(lib, make) -> str:
    """What ``make(lib)`` prints, addresses masked and the library's name as ``torch``."""
    text = re.sub(r"0x[0-9a-f]+", "0x", repr(make(lib)))
    return text.replace("leafgrad", "torch")


CASES = {
    "type(tensor)": lambda lib: type(lib.ones(2)),
    "type(size)": lambda lib: type(lib.ones(2).shape),
    "type(device)": lambda lib: type(lib.ones(2).device),
    "type(parameter)": lambda lib: type(lib.nn.Parameter(lib.ones(1))),
    "x.backward": lambda lib: lib.ones(2, requires_grad=True).backward,
    "no_grad()": lambda lib: lib.no_grad(),
    "enable_grad()": lambda lib: lib.enable_grad(),
    "inference_mode()": lambda lib: lib.inference_mode(),
    "hook handle": lambda lib: lib.ones(2, requires_grad=True).register_hook(lambda g: g),
    "type(return type)": lambda lib: type(lib.ones(2, 2).max(0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_prints_as_pytorch(case):
    assert _shown(leafgrad, CASES[case]) == _shown(torch, CASES[case])


def test_return_types_module_lists_pytorchs_types():
    """``torch.return_types``: isinstance checks on what ops return, ``<name>_out`` too."""
    x = leafgrad.ones(3, 4)
    assert isinstance(x.max(0), leafgrad.return_types.max)
    assert isinstance(leafgrad.sort(x), leafgrad.return_types.sort)
    out = (leafgrad.empty(4), leafgrad.empty(4, dtype=leafgrad.long))
    assert isinstance(leafgrad.max(x, 0, out=out), leafgrad.return_types.max_out)
    module = torch.return_types
    theirs = {n for n in dir(module) if isinstance(getattr(module, n), type)}
    theirs -= {"SequenceKey", "linalg_eig", "linalg_eig_out"}  # (complex results: none here)
    assert {n for n in theirs if not n.startswith("_")} <= set(leafgrad.return_types.__all__)
    assert set(leafgrad.return_types.__all__) <= theirs
