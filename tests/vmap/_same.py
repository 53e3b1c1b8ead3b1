"""Run one function with leafgrad and with PyTorch on the same arrays; compare the results."""

from __future__ import annotations

import numpy as np

import leafgrad
from leafgrad.func._pytree import tree_flatten
from tests._tolerance import assert_close


def tensors(m, arrays, requires_grad=False):
    return [m.tensor(np.ascontiguousarray(a), requires_grad=requires_grad) for a in arrays]


def same(pytorch, fn, arrays, kind="direct", requires_grad=False):
    """``fn(m, *tensors)`` equal (values, shapes, structure) for leafgrad and PyTorch."""
    ours = fn(leafgrad, *tensors(leafgrad, arrays, requires_grad))
    theirs = fn(pytorch, *tensors(pytorch, arrays, requires_grad))
    a, spec_a = tree_flatten(ours)
    b, spec_b = tree_flatten(theirs)
    assert len(spec_a) == len(spec_b) if isinstance(spec_a, tuple) else spec_a == spec_b
    assert len(a) == len(b), (ours, theirs)
    for x, y in zip(a, b):
        assert tuple(x.shape) == tuple(y.shape), f"{tuple(x.shape)} != {tuple(y.shape)}"
        assert str(x.dtype) == str(y.dtype)
        assert_close(x, y.detach().numpy(), kind)
    return ours


def rand(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)
