"""``interpolate(..., antialias=True)`` and the ``lanczos`` mode against PyTorch: values,
gradients (float64 and float32), the weight matrices, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.nn import _antialias

torch = pytest.importorskip("torch")

CASES = [
    {"size": (5, 4)},
    {"size": (9, 13)},
    {"size": (30, 7)},
    {"size": (17, 13)},
    {"size": (1, 5)},
    {"size": (1, 1)},
    {"scale_factor": 0.4},
    {"scale_factor": (2.5, 0.77)},
]


def _run(lib, x, dtype, **kw):
    t = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
    y = lib.nn.functional.interpolate(t, **kw)
    w = lib.tensor(np.random.default_rng(3).standard_normal(tuple(y.shape)), dtype=t.dtype)
    (g,) = lib.autograd.grad((y * w).sum(), t)
    return y.detach().numpy(), g.numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode, align_corners", [
    ("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True),
    ("lanczos", False),
])  # fmt: skip
@pytest.mark.parametrize("kw", CASES)
def test_antialiased_resampling_matches_torch(mode, align_corners, kw, dtype):
    x = np.random.default_rng(0).standard_normal((2, 3, 17, 13))
    kw = {**kw, "mode": mode, "align_corners": align_corners, "antialias": True}
    (y, g), (yt, gt) = _run(lg, x, dtype, **kw), _run(torch, x, dtype, **kw)
    assert y.shape == yt.shape and y.dtype == yt.dtype
    tol = 1e-12 if dtype == "float64" else 3e-6
    np.testing.assert_allclose(y, yt, rtol=tol, atol=tol * np.abs(yt).max())
    np.testing.assert_allclose(g, gt, rtol=tol, atol=tol * np.abs(gt).max())


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("n_in, n_out", [(13, 5), (8, 3), (5, 12), (16, 16), (7, 1)])
def test_each_dims_weights_are_torchs(mode, n_in, n_out):
    # the one-hot rows of an (n_in, n_in) identity, resampled along W only
    eye = torch.eye(n_in, dtype=torch.float64).reshape(n_in, 1, 1, n_in)
    want = torch.nn.functional.interpolate(eye, size=(1, n_out), mode=mode, antialias=True)
    got = _antialias.weights(n_in, n_out, mode, False, None)
    np.testing.assert_allclose(got, want.reshape(n_in, n_out).numpy().T, atol=1e-15)
    np.testing.assert_allclose(got.sum(1), 1.0, atol=1e-15)


@pytest.mark.parametrize("call, error", [
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), 2, antialias=True), ValueError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), 2, mode="linear", antialias=True),
     ValueError),
    (lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), 2, mode="lanczos"), ValueError),
    (lambda m: m.nn.functional.interpolate(
        m.ones(1, 1, 4, 4), 2, mode="lanczos", antialias=True, align_corners=True), ValueError),
])  # fmt: skip
def test_refusals_match_torch(call, error):
    for lib in (lg, torch):
        with pytest.raises(error):
            call(lib)


def test_scale_factor_sizes_follow_torch():
    x = np.ones((1, 1, 17, 13))
    for scale in (0.4, 0.77, 1.3):
        y = lg.nn.functional.interpolate(
            lg.tensor(x), scale_factor=scale, mode="bilinear", antialias=True
        )
        assert tuple(y.shape) == (1, 1, math.floor(17 * scale), math.floor(13 * scale))
        np.testing.assert_allclose(y.numpy(), 1.0, atol=1e-12)  # weights sum to 1
