"""Adaptive average pools and interpolate's area mode record PyTorch's nodes
(AdaptiveAvgPool2DBackward0 / 3D, a squeeze over an unsqueeze for 1-D, a kept mean for an
output of ones) and their backwards (AdaptiveAvgPool2DBackwardBackward0 ...): graphs to the
leaves, saves, values, first and second derivatives against PyTorch (float64)."""

import functools

import numpy as np
import pytest
import torch

import leafgrad as lg
from leafgrad.nn._pooling_ops import adaptive_avg_pool

from ._compare import assert_close

_SAVED = ("self", "grad_output_sym_argsize_minus_1", "grad_output_sym_argsize_minus_2",
          "grad_output_sym_argsize_minus_3")  # fmt: skip


def _graph(t):
    """Every node reachable from ``t`` (depth first, edges in order) with its saves."""
    out, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None:
            out.append(None)
            continue
        saved = {}
        for name in _SAVED:
            value = getattr(fn, "_saved_" + name, None)
            if value is not None:
                saved[name] = tuple(value.shape) if hasattr(value, "shape") else value
        out.append((fn.name().removeprefix("torch::autograd::"), saved))
        stack.extend(f for f, _ in reversed(fn.next_functions))
    return out


def _run(lib, call, x_values, w_values):
    x = lib.tensor(x_values, requires_grad=True)
    y = call(lib, x)
    graph = _graph(y)
    (g,) = lib.autograd.grad((y * y * lib.tensor(w_values)).sum(), x, create_graph=True)
    backward_graph = _graph(g)
    (g2,) = lib.autograd.grad((g * g).sum(), x)
    return graph, backward_graph, [y, g, g2]


def _pool(nd, size):
    return lambda lib, x: getattr(lib.nn.functional, f"adaptive_avg_pool{nd}d")(x, size)


def _area(size):
    return lambda lib, x: lib.nn.functional.interpolate(x, size=size, mode="area")


_CASES = [
    ("1d", _pool(1, 3), (2, 3, 7)),
    ("1d unbatched", _pool(1, 4), (3, 7)),
    ("1d of one", _pool(1, 1), (2, 3, 7)),
    ("1d larger", _pool(1, 9), (2, 2, 5)),
    ("2d uneven", _pool(2, (3, 2)), (2, 3, 7, 5)),
    ("2d unbatched", _pool(2, (None, 3)), (3, 7, 5)),
    ("2d one row", _pool(2, (1, 2)), (2, 3, 7, 5)),
    ("2d of ones", _pool(2, 1), (3, 7, 5)),
    ("2d same size", _pool(2, (7, 5)), (1, 2, 7, 5)),
    ("3d uneven", _pool(3, (3, 2, 3)), (2, 2, 7, 5, 4)),
    ("3d unbatched", _pool(3, (1, 1, 2)), (3, 7, 5, 4)),
    ("3d of ones", _pool(3, 1), (2, 2, 3, 5, 4)),
    ("area 1d", _area(3), (2, 3, 7)),
    ("area 2d", _area((3, 4)), (2, 3, 7, 5)),
    ("area 2d up", _area((9, 6)), (1, 2, 7, 5)),
    ("area 3d", _area((2, 3, 3)), (1, 2, 7, 5, 4)),
]


@pytest.mark.parametrize(("call", "shape"), [c[1:] for c in _CASES], ids=[c[0] for c in _CASES])
def test_adaptive_avg_pool_records_pytorchs_nodes_to_second_order(call, shape):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    w = rng.standard_normal(tuple(call(torch, torch.tensor(x)).shape))
    ours, ours_backward, values = _run(lg, call, x, w)
    theirs, theirs_backward, expected = _run(torch, call, x, w)
    assert ours == theirs
    assert ours_backward == theirs_backward
    for a, b in zip(values, expected, strict=True):
        assert_close(a, b)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_avg_pool_saves_and_its_backward_as_pytorch(nd):
    shape, size = ((2, 3, 7, 5, 4)[: nd + 2], (3, 2, 3)[:nd])
    x = np.random.default_rng(nd).standard_normal(shape)
    nodes = []
    for lib in (lg, torch):
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, f"adaptive_avg_pool{nd}d")(t, size)
        pool = y.grad_fn.next_functions[0][0] if nd == 1 else y.grad_fn
        (g,) = lib.autograd.grad(y, t, lib.ones_like(y), create_graph=True)
        back = g.grad_fn.next_functions[0][0] if nd == 1 else g.grad_fn
        sizes = [getattr(back, f"_saved_grad_output_sym_argsize_minus_{k}") for k in (1, 2, 3)
                 if hasattr(back, f"_saved_grad_output_sym_argsize_minus_{k}")]  # fmt: skip
        nodes.append((pool.name(), pool._saved_self.detach().numpy(), back.name(), sizes))
    (a, sa, b, za), (c, sc, d, zc) = nodes
    assert (a, b, za) == (c, d, zc)
    np.testing.assert_array_equal(sa, sc)


def test_adaptive_avg_pool_float32_and_integers_as_pytorch():
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 5)).astype(np.float32)
    ours = lg.nn.functional.adaptive_avg_pool2d(lg.tensor(x), (3, 2))
    theirs = torch.nn.functional.adaptive_avg_pool2d(torch.tensor(x), (3, 2))
    assert ours.dtype == lg.float32
    assert_close(ours, theirs)
    with pytest.raises(RuntimeError):
        torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 2, 5, 4, dtype=torch.int64), 2)
    with pytest.raises(RuntimeError, match="adaptive_avg_pool2d"):
        lg.nn.functional.adaptive_avg_pool2d(lg.ones(1, 2, 5, 4, dtype=lg.int64), 2)


@pytest.mark.parametrize(("nd", "size"), [(1, 3), (2, (3, 2)), (3, (2, 3, 1))])
def test_adaptive_avg_pool_jvp_as_pytorch(nd, size):
    rng = np.random.default_rng(nd)
    x, t = (rng.standard_normal((2, 3, 7, 5, 4)[: nd + 2]) for _ in range(2))
    results = []
    for lib in (lg, torch):
        fn = getattr(lib.nn.functional, f"adaptive_avg_pool{nd}d")
        pooled = functools.partial(fn, output_size=size)
        results.append(lib.func.jvp(pooled, (lib.tensor(x),), (lib.tensor(t),)))
    for a, b in zip(*results, strict=True):
        assert_close(a, b)


def test_adaptive_avg_pool_op_under_vmap_as_pytorch():
    # the op takes any leading dims; vmap batches it as one more
    x = np.random.default_rng(1).standard_normal((4, 2, 3, 7, 5))
    ours = lg.func.vmap(lambda v: adaptive_avg_pool(v, (3, 2)))(lg.tensor(x))
    fn = torch.nn.functional.adaptive_avg_pool2d
    theirs = torch.func.vmap(lambda v: fn(v, (3, 2)))(torch.tensor(x))
    assert_close(ours, theirs)
