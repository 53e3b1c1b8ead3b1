"""Pools whose windows tile the input (``nn/_pool_tiles.py``): PyTorch's values, indices and
gradients to the bit (NaN windows, signed zeros, cropped remainders), and the same as the
gathering path they stand in for."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.nn import _pool_tiles

torch = pytest.importorskip("torch")

CASES = [
    ((8, 3, 32, 32), {"kernel_size": 2}),
    ((2, 3, 7, 9), {"kernel_size": 2}),  # remainders dropped
    ((2, 3, 9, 9), {"kernel_size": 3}),  # 9 elements: summed in order
    ((2, 3, 8, 8), {"kernel_size": 2, "ceil_mode": True}),
    ((3, 9, 12), {"kernel_size": (3, 4)}),  # no batch dim
    ((2, 2, 4, 6, 8), {"kernel_size": 2}),  # 3-D
    ((2, 3, 8, 8), {"kernel_size": 2, "stride": 2}),
]


def _input(shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::17] = np.nan  # windows with one NaN and windows with several
    flat[1::17] = np.nan
    flat[3::11] = 0.0
    flat[4::11] = -0.0
    return x


def _gradient(shape):
    g = (np.arange(np.prod(shape)) * 0.1).reshape(shape).astype(np.float32)
    g[(np.arange(np.prod(shape)) % 3 == 0).reshape(shape)] = -0.0
    return g


def _pool(lib, kind, x, kw):
    t = lib.tensor(x, requires_grad=True)
    nd = 3 if x.ndim == 5 else 2
    fn = getattr(lib.nn.functional, f"{kind}_pool{nd}d")
    if kind == "max":
        y, indices = fn(t, return_indices=True, **kw)
        indices = indices.numpy()
    else:
        y, indices = fn(t, **kw), None
    (grad,) = lib.autograd.grad(y, t, lib.tensor(_gradient(tuple(y.shape))))
    return y.detach().numpy(), indices, grad.numpy()


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("shape, kw", CASES)
def test_tiled_pools_match_torch_to_the_bit(kind, shape, kw):
    x = _input(shape)
    got, want = _pool(lg, kind, x, kw), _pool(torch, kind, x, kw)
    for a, b in zip(got, want):
        if b is not None:
            _same(a, b)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("shape, kw", CASES)
def test_tiled_pools_equal_the_gathering_path(kind, shape, kw, monkeypatch):
    x = _input(shape)
    tiled = _pool(lg, kind, x, kw)
    monkeypatch.setattr(_pool_tiles, "tiles", lambda *args: None)
    gathered = _pool(lg, kind, x, kw)
    for a, b in zip(tiled, gathered):
        if b is not None:
            _same(a, b)


def test_windows_that_do_not_tile_take_the_gathering_path():
    assert _pool_tiles.tiles((8, 8), (2, 2), (2, 2), (0, 0), (1, 1), False) == (4, 4)
    assert _pool_tiles.tiles((8, 8), (2, 2), (), (0, 0), (1, 1), False) == (4, 4)
    assert _pool_tiles.tiles((8, 8), (2, 2), (1, 1), (0, 0), (1, 1), False) is None
    assert _pool_tiles.tiles((8, 8), (2, 2), (2, 2), (1, 0), (1, 1), False) is None
    assert _pool_tiles.tiles((8, 8), (2, 2), (2, 2), (0, 0), (2, 1), False) is None
    assert _pool_tiles.tiles((7, 8), (2, 2), (2, 2), (0, 0), (1, 1), True) is None
    assert _pool_tiles.tiles((1, 8), (2, 2), (2, 2), (0, 0), (1, 1), False) is None


def test_max_pool_takes_the_last_nan_as_torch_everywhere():
    x = np.array([[[[np.nan, 1, np.nan, 2], [3, np.nan, 0, -1], [0, 0, 0, 0], [1, 2, 3, 4]]]])
    for kw in (
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 1},
        {"kernel_size": 2, "padding": 1},
    ):
        (_, got, _), (_, want, _) = (_pool(lib, "max", x, kw) for lib in (lg, torch))
        np.testing.assert_array_equal(got, want)


def test_tiled_pools_differentiate_twice_as_torch():
    x = _input((2, 3, 6, 6)).astype(np.float64)
    x[np.isnan(x)] = 0.5
    results = []
    for lib in (lg, torch):
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.max_pool2d(t, 2) + lib.nn.functional.avg_pool2d(t * t, 2)
        (g,) = lib.autograd.grad((y * y).sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), t)
        results.append((g.detach().numpy(), gg.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
