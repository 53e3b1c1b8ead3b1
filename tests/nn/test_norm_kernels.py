"""``nn._norm_kernels``: layer, group and batch norm's compiled forward and plain backward
(numba) agree with the NumPy path to round-off and with PyTorch, for every presence of
weight and bias, float32 and float64, rows shorter and longer than a summing block, a
broadcast gradient (a ``sum()``'s) and the running statistics' update; and only large
contiguous float arrays take them."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import leafgrad as lg
import leafgrad.nn.functional as F
from leafgrad.nn import _norm_kernels
from leafgrad.ops import _fused

needs_numba = pytest.mark.skipif(not _fused.available(), reason="numba not installed")

TOLERANCE = {"float32": (2e-5, 2e-5), "float64": (1e-11, 1e-12)}  # (rtol, atol)


@contextlib.contextmanager
def _numpy_path():
    saved = _fused._numba
    _fused._numba = False
    try:
        yield
    finally:
        _fused._numba = saved


def _arrays(shape, affine_shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.5, 2.0, shape).astype(dtype)
    grad = rng.normal(0.0, 1.0, shape).astype(dtype)
    weight = rng.uniform(0.5, 1.5, affine_shape).astype(dtype)
    bias = rng.normal(0.0, 1.0, affine_shape).astype(dtype)
    return x, grad, weight, bias


def _run(lib, fn, x, grad, weight, bias, has_weight, has_bias, sum_grad=False):
    """The output and the gradients of x, weight and bias (None where absent) under ``lib``."""
    xt = lib.tensor(x, requires_grad=True)
    wt = lib.tensor(weight, requires_grad=True) if has_weight else None
    bt = lib.tensor(bias, requires_grad=True) if has_bias else None
    out = fn(lib, xt, wt, bt)
    if sum_grad:
        out.sum().backward()
    else:
        out.backward(lib.tensor(grad))
    values = [out.detach(), xt.grad] + [t.grad for t in (wt, bt) if t is not None]
    return [np.asarray(v.numpy()) for v in values]


def _layer(lib, x, w, b):
    return lib.nn.functional.layer_norm(x, x.shape[-2:], w, b)


def _layer_rows(lib, x, w, b):
    """Over the last dim only: a 2-D input and 1-D parameters go to the kernels unreshaped."""
    return lib.nn.functional.layer_norm(x, x.shape[-1:], w, b)


def _group(lib, x, w, b):
    return lib.nn.functional.group_norm(x, 4, w, b)


def _batch(lib, x, w, b):
    return lib.nn.functional.batch_norm(x, None, None, w, b, training=True)


CASES = [  # (name, fn, input shape, affine shape)
    ("layer-short", _layer, (64, 2, 64), (2, 64)),
    ("layer-long", _layer, (6, 3, 700), (3, 700)),  # rows of 2100: several blocks
    ("layer-rows", _layer_rows, (64, 128), (128,)),  # nn.LayerNorm(128)'s
    ("layer-rows-long", _layer_rows, (3, 1300), (1300,)),
    ("group", _group, (4, 8, 5, 7), (8,)),
    ("group-long", _group, (2, 8, 40, 30), (8,)),
    ("batch", _batch, (6, 3, 9, 10), (3,)),
    ("batch-2d", _batch, (600, 5), (5,)),
]


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("affine", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("name, fn, shape, affine_shape", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_numpy_and_torch(name, fn, shape, affine_shape, affine, dtype):
    arrays = _arrays(shape, affine_shape, dtype, seed=len(name))
    assert _norm_kernels.takes(arrays[0]) is not None
    compiled = _run(lg, fn, *arrays, *affine)
    with _numpy_path():
        numpy_path = _run(lg, fn, *arrays, *affine)
    # (PyTorch's group_norm backward with a bias and no weight raises "tensor does not have a
    # device": the NumPy path is the reference there)
    torch_fails = fn is _group and affine == (False, True)
    theirs = numpy_path if torch_fails else _run(torch, fn, *arrays, *affine)
    rtol, atol = TOLERANCE[dtype]
    for a, b, c in zip(compiled, numpy_path, theirs):
        assert a.dtype == b.dtype == c.dtype
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        np.testing.assert_allclose(a, c, rtol=rtol, atol=atol)


@needs_numba
@pytest.mark.parametrize("name, fn, shape, affine_shape", CASES, ids=[c[0] for c in CASES])
def test_compiled_takes_a_broadcast_gradient(name, fn, shape, affine_shape):
    arrays = _arrays(shape, affine_shape, "float32", seed=1)
    compiled = _run(lg, fn, *arrays, True, True, sum_grad=True)
    theirs = _run(torch, fn, *arrays, True, True, sum_grad=True)
    for a, c in zip(compiled, theirs):  # (the weight's gradient, sum(xhat), is round-off)
        np.testing.assert_allclose(a, c, rtol=2e-5, atol=2e-4)


@needs_numba
def test_statistics_outputs_match():
    x = np.random.default_rng(3).normal(0, 3, (40, 300)).astype(np.float32)
    ours = lg.native_layer_norm(lg.tensor(x), (300,), None, None, 1e-5)
    with _numpy_path():
        numpy_path = lg.native_layer_norm(lg.tensor(x), (300,), None, None, 1e-5)
    theirs = torch.native_layer_norm(torch.tensor(x), (300,), None, None, 1e-5)
    for a, b, c in zip(ours, numpy_path, theirs):
        assert tuple(a.shape) == tuple(b.shape) == tuple(c.shape)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-6)


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_running_statistics_update(dtype):
    x = np.random.default_rng(4).normal(2.0, 3.0, (8, 3, 16, 16)).astype(dtype)
    results = []
    for path in (contextlib.nullcontext, _numpy_path):
        bn = lg.nn.BatchNorm2d(3, dtype=getattr(lg, dtype))
        with path():
            bn(lg.tensor(x))
        results.append((bn.running_mean.numpy(), bn.running_var.numpy()))
    theirs = torch.nn.BatchNorm2d(3, dtype=getattr(torch, dtype))
    theirs(torch.tensor(x))
    rtol = TOLERANCE[dtype][0]
    for ours in results:
        np.testing.assert_allclose(ours[0], theirs.running_mean.numpy(), rtol=rtol)
        np.testing.assert_allclose(ours[1], theirs.running_var.numpy(), rtol=rtol)


def test_only_large_contiguous_float_arrays_take_them():
    big = np.zeros((64, 128), np.float32)
    for x in (
        np.zeros((4, 8), np.float32),  # small
        big.astype(np.float16),
        big.T,  # not contiguous
        big.astype(np.int64),
    ):
        assert _norm_kernels.takes(x) is None
    assert _norm_kernels.takes(big, big[0].astype(np.float64)) is None  # another dtype
    assert _norm_kernels.takes_grad(big[:32], big) is None  # another shape
    if _fused.available():
        assert _norm_kernels.takes(big, big[0]) is not None
        assert _norm_kernels.takes_grad(np.broadcast_to(np.float32(1), big.shape), big)
    with _numpy_path():
        assert _norm_kernels.takes(big) is None


@needs_numba
def test_graph_unchanged():
    """The compiled path records what the NumPy path records: one node, its saves."""
    x = lg.tensor(np.ones((64, 128), np.float32), requires_grad=True)
    w = lg.ones(128, requires_grad=True)
    out = F.layer_norm(x, (128,), w, None)
    node = out.grad_fn
    assert type(node).__name__ == "NativeLayerNormBackward0"
    assert tuple(node._saved_result1.shape) == (64, 1) == tuple(node._saved_result2.shape)
    assert node._saved_bias is None
