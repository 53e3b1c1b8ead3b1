"""Max pooling's three paths (``nn/_pool_kernels.py``'s compiled loops, ``_pool_tiles``'
windows as axes, ``_pooling_ops``' gathered windows) give the same values, indices and
gradients to the bit, and PyTorch's: ties, NaNs, windows of -inf, signed zeros, padding,
dilation, ceil mode, remainders, float32 and float64, 1-, 2- and 3-D."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.nn import _pool_kernels, _pool_tiles
from leafgrad.ops import _fused

torch = pytest.importorskip("torch")

CASES = [
    ((8, 3, 32, 32), {"kernel_size": 2}),  # the compiled 2 x 2 loop
    ((2, 3, 7, 9), {"kernel_size": 2}),  # remainders dropped
    ((2, 3, 8, 8), {"kernel_size": 2, "stride": 2, "ceil_mode": True}),
    ((2, 3, 7, 9), {"kernel_size": 2, "ceil_mode": True}),  # partial last windows
    ((2, 3, 9, 9), {"kernel_size": 3}),
    ((2, 3, 11, 10), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ((2, 3, 11, 10), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ((2, 3, 12, 12), {"kernel_size": (3, 2), "stride": (1, 2), "dilation": (2, 1)}),
    ((2, 3, 12, 13), {"kernel_size": 3, "stride": 1, "padding": 1, "dilation": 2}),
    ((3, 9, 12), {"kernel_size": (3, 4)}),  # no batch dim
    ((2, 2, 4, 6, 8), {"kernel_size": 2}),  # 3-D
    ((2, 2, 5, 6, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ((2, 3, 20), {"kernel_size": 3, "stride": 2, "padding": 1}),  # 1-D
]
MODES = ["compiled", "tiles", "gathered"]


def _input(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = np.round(rng.standard_normal(shape) * 2)  # many ties
    flat = x.reshape(-1)
    flat[::17] = np.nan  # windows with one NaN and windows with several
    flat[1::17] = np.nan
    flat[3::11] = 0.0
    flat[4::11] = -0.0
    flat[5::7] = -np.inf
    flat[6::7] = -np.inf
    flat[: flat.size // 5] = -np.inf  # whole windows of -inf, padded ones too
    return x.astype(dtype)


def _gradient(shape, dtype):
    g = (np.arange(np.prod(shape)) * 0.1 - 3).reshape(shape).astype(dtype)
    g[(np.arange(np.prod(shape)) % 3 == 0).reshape(shape)] = -0.0
    return g


def _pool(lib, x, kw):
    t = lib.tensor(x, requires_grad=True)
    nd = 2 if x.shape == (3, 9, 12) else x.ndim - 2  # one 2-D case without a batch dim
    y, indices = getattr(lib.nn.functional, f"max_pool{nd}d")(t, return_indices=True, **kw)
    (grad,) = lib.autograd.grad(y, t, lib.tensor(_gradient(tuple(y.shape), x.dtype)))
    return y.detach().numpy(), indices.numpy(), grad.numpy()


def _set_mode(mode, monkeypatch):
    if mode == "compiled":
        if not _fused.available():
            pytest.skip("numba is not installed")
        monkeypatch.setattr(_fused, "MIN_SIZE", 0)
    else:
        monkeypatch.setattr(_fused, "_numba", False)
        if mode == "gathered":
            monkeypatch.setattr(_pool_tiles, "tiles", lambda *args: None)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, kw", CASES)
def test_max_pool_paths_match_torch_to_the_bit(shape, kw, mode, dtype, monkeypatch):
    x = _input(shape, dtype)
    want = _pool(torch, x, kw)
    _set_mode(mode, monkeypatch)
    for a, b in zip(_pool(lg, x, kw), want):
        _same(a, b)


@pytest.mark.parametrize("shape, kw", CASES)
def test_max_pool_paths_agree_on_random_inputs(shape, kw, monkeypatch):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    results = []
    for mode in MODES:
        with monkeypatch.context() as patch:
            if mode == "compiled" and not _fused.available():
                continue
            _set_mode(mode, patch)
            results.append(_pool(lg, x, kw))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            _same(a, b)


def test_compiled_loops_take_inputs_of_the_minimum_size_only(monkeypatch):
    if not _fused.available():
        pytest.skip("numba is not installed")
    small = np.zeros((2, 3, 4, 4), np.float32)
    assert not _pool_kernels.takes(small)
    assert _pool_kernels.takes(np.zeros((2, 3, 16, 16), np.float32))
    assert not _pool_kernels.takes(np.zeros((2, 3, 16, 16), np.int64))
    monkeypatch.setattr(_fused, "_numba", False)
    assert not _pool_kernels.takes(np.zeros((2, 3, 16, 16), np.float32))


def test_compiled_backward_hands_indices_outside_the_input_back():
    if not _fused.available():
        pytest.skip("numba is not installed")
    grad = np.ones((1, 1, 2, 2), np.float32)
    indices = np.array([[[[0, 1], [2, 16]]]])
    assert _pool_kernels.maximum_backward(grad, (1, 1, 4, 4), indices, 2) is None
    indices[..., 1, 1] = 15
    total = _pool_kernels.maximum_backward(grad, (1, 1, 4, 4), indices, 2)
    assert total.reshape(-1)[[0, 1, 2, 15]].tolist() == [1, 1, 1, 1] and total.sum() == 4


@pytest.mark.parametrize("mode", MODES)
def test_max_pool_differentiates_twice_as_torch_on_every_path(mode, monkeypatch):
    x = np.random.default_rng(2).standard_normal((2, 3, 10, 10))
    x[0, 0, :2, :2] = 1.0  # a tie
    _set_mode(mode, monkeypatch)
    results = []
    for lib in (lg, torch):
        t = lib.tensor(x, requires_grad=True)
        F = lib.nn.functional
        y = F.max_pool2d(t, 2).sum() + (F.max_pool2d(t * t, 3, 2, 1) ** 2).sum()
        (g,) = lib.autograd.grad(y, t, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), t)
        results.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
