"""Which dtypes PyTorch's CPU kernels take, for the nn functions and ops that refuse some:
the same result dtype and values, or the same exception type, as PyTorch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

CALLS = {
    "interpolate nearest": lambda m, t: m.nn.functional.interpolate(t, size=(3, 4)),
    "interpolate bilinear": lambda m, t: m.nn.functional.interpolate(
        t, size=(3, 4), mode="bilinear"
    ),
    "layer_norm": lambda m, t: m.nn.functional.layer_norm(t, (6,)),
    "batch_norm": lambda m, t: m.nn.functional.batch_norm(t, None, None, training=True),
    "group_norm": lambda m, t: m.nn.functional.group_norm(t, 1),
    "instance_norm": lambda m, t: m.nn.functional.instance_norm(t),
    "grid_sample": lambda m, t: m.nn.functional.grid_sample(t, m.zeros(2, 2, 2, 2)),
    "unfold": lambda m, t: m.nn.functional.unfold(t, 2),
    "fold": lambda m, t: m.nn.functional.fold(t.reshape(2, 12, 9)[:, :4], (4, 4), 2, stride=1),
    "relu": lambda m, t: m.relu(t),
    "hardtanh": lambda m, t: m.nn.functional.hardtanh(t),
    "conv2d": lambda m, t: m.nn.functional.conv2d(t, m.ones(2, 3, 3, 3, dtype=t.dtype)),
    "l1_loss none": lambda m, t: m.nn.functional.l1_loss(t, t.flip(0), reduction="none"),
    "l1_loss mean": lambda m, t: m.nn.functional.l1_loss(t, t.flip(0)),
    "topk": lambda m, t: t.topk(2)[0],
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float64"])
@pytest.mark.parametrize("name", list(CALLS))
def test_kernel_dtypes_as_torch(name, dtype):
    x = (np.random.default_rng(0).standard_normal((2, 3, 6, 6)) * 10).astype(dtype)
    outcomes = []
    for lib in (lg, torch):
        try:
            y = CALLS[name](lib, lib.tensor(x))
            outcomes.append((str(y.dtype).split(".")[-1], y.numpy()))
        except (NotImplementedError, RuntimeError) as exc:
            outcomes.append((type(exc).__name__, None))
    (kind, got), (want_kind, want) = outcomes
    assert kind == want_kind
    if want is None:
        return
    if dtype == "uint8" and got.dtype == np.uint8 and "bilinear" in name:
        # PyTorch's uint8 kernel rounds each separable pass of 16-bit fixed-point weights
        assert np.abs(got.astype(int) - want.astype(int)).max() <= 1
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
