"""The padding layers agree with PyTorch's: values, gradients to second order, reprs, errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg

from ._compare import run_both

RNG = np.random.default_rng(41)

LAYERS = [
    ("ConstantPad1d", (2, 0.5), (2, 3, 4)),
    ("ConstantPad2d", ((1, 2, 0, 3), -1.0), (2, 3, 4, 3)),
    ("ConstantPad3d", (1, 2.0), (1, 2, 2, 3, 2)),
    ("ZeroPad1d", ((1, 0),), (3, 4)),
    ("ZeroPad2d", (2,), (2, 3, 4, 3)),
    ("ZeroPad3d", ((1, 0, 0, 1, 2, 1),), (2, 2, 3, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 4)),
    ("ReflectionPad2d", ((1, 2, 0, 2),), (3, 4, 3)),
    ("ReflectionPad3d", (1,), (1, 2, 2, 3, 2)),
    ("ReplicationPad1d", ((3, 1),), (2, 3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 4, 3)),
    ("ReplicationPad3d", (1,), (2, 2, 3, 2)),
    ("CircularPad1d", (2,), (2, 3, 4)),
    ("CircularPad2d", ((1, 2, 0, 1),), (2, 3, 4, 3)),
    ("CircularPad3d", (1,), (1, 2, 2, 3, 2)),
]


@pytest.mark.parametrize(("name", "args", "shape"), LAYERS, ids=[c[0] for c in LAYERS])
def test_padding_layer_matches_pytorch_to_second_order(name, args, shape):
    ours, theirs = getattr(lg.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding
    run_both(ours, theirs, RNG.standard_normal(shape), RNG)


def test_circular_pad_of_wrong_rank_raises_value_error_as_pytorch():
    for lib in (torch, lg):
        with pytest.raises(ValueError, match="4D"):
            lib.nn.CircularPad2d(1)(lib.zeros(2, 2, 2, 2, 2))


def test_reflection_pad_of_wrong_rank_raises_not_implemented_as_pytorch():
    for lib in (torch, lg):
        with pytest.raises(NotImplementedError):
            lib.nn.ReflectionPad1d(1)(lib.zeros(2, 2, 2, 2))
