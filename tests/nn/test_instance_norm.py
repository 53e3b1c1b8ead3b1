"""InstanceNorm1d/2d/3d and F.instance_norm agree with PyTorch's: values, gradients to second
order, running statistics, eval mode, reprs, state_dict keys and errors."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, copy_weights, run_both

RNG = np.random.default_rng(43)

NORMS = [
    ("InstanceNorm1d", {}, (2, 3, 5)),
    ("InstanceNorm1d", {"affine": True}, (3, 6)),
    ("InstanceNorm2d", {"affine": True, "track_running_stats": True}, (2, 3, 4, 5)),
    ("InstanceNorm2d", {"eps": 1e-3, "affine": True, "bias": False}, (3, 4, 4)),
    ("InstanceNorm3d", {"momentum": 0.3, "track_running_stats": True}, (2, 3, 2, 3, 2)),
]
IDS = [f"{n}-{o}" for n, o, _ in NORMS]


def _layers(name, options):
    ours = getattr(lg.nn, name)(3, dtype=lg.float64, **options)
    theirs = getattr(torch.nn, name)(3, dtype=torch.float64, **options)
    if ours.weight is not None:
        ours.weight.data = lg.tensor(RNG.standard_normal(3))
    if ours.bias is not None:
        ours.bias.data = lg.tensor(RNG.standard_normal(3))
    copy_weights(ours, theirs)
    return ours, theirs


@pytest.mark.parametrize(("name", "options", "shape"), NORMS, ids=IDS)
def test_instance_norm_matches_pytorch_to_second_order(name, options, shape):
    ours, theirs = _layers(name, options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    run_both(ours, theirs, RNG.standard_normal(shape) * 2 + 1, RNG)
    for key, value in theirs.state_dict().items():
        assert_close(ours.state_dict()[key], value)  # running statistics updated alike


@pytest.mark.parametrize(("name", "options", "shape"), NORMS, ids=IDS)
def test_instance_norm_eval_mode_matches_pytorch(name, options, shape):
    ours, theirs = _layers(name, options)
    x = RNG.standard_normal(shape) * 2 + 1
    ours(lg.tensor(x)), theirs(torch.tensor(x))
    ours.eval(), theirs.eval()
    x = RNG.standard_normal(shape)
    assert_close(ours(lg.tensor(x)), theirs(torch.tensor(x)))


def test_functional_instance_norm_with_running_stats_matches_pytorch():
    x = RNG.standard_normal((4, 2, 6)) + 3
    stats_ours = [lg.zeros(2, dtype=lg.float64), lg.ones(2, dtype=lg.float64)]
    stats_theirs = [torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)]
    out = F.instance_norm(lg.tensor(x), *stats_ours, momentum=0.2)
    expected = TF.instance_norm(torch.tensor(x), *stats_theirs, momentum=0.2)
    assert_close(out, expected)
    for a, b in zip(stats_ours, stats_theirs):
        assert_close(a, b)
    out = F.instance_norm(lg.tensor(x), *stats_ours, use_input_stats=False)
    assert_close(out, TF.instance_norm(torch.tensor(x), *stats_theirs, use_input_stats=False))


def test_instance_norm_float32_values_match_pytorch():
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    out = lg.nn.InstanceNorm2d(3)(lg.tensor(x))
    assert out.dtype == lg.float32
    assert_close(out, torch.nn.InstanceNorm2d(3)(torch.tensor(x)))


def test_instance_norm_errors_match_pytorch():
    for lib in (torch, lg):
        with pytest.raises(ValueError, match="3D or 4D"):
            lib.nn.InstanceNorm2d(3)(lib.zeros(2, 3))
        with pytest.raises(ValueError, match="num_features"):
            lib.nn.InstanceNorm1d(4, affine=True)(lib.zeros(2, 3, 5))
        with pytest.warns(UserWarning, match="num_features"):
            lib.nn.InstanceNorm1d(4)(lib.zeros(2, 3, 5))
        with pytest.raises(ValueError, match="spatial element"):
            lib.nn.functional.instance_norm(lib.zeros(2, 3, 1))
