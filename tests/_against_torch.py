"""One function, written once for both libraries (``fn(m, *inputs)`` with ``m`` leafgrad or
torch), compared in values, first and second derivatives (float64)."""

from __future__ import annotations

import warnings

import numpy as np

import leafgrad as lg
from tests._tolerance import assert_close


def _floats(out) -> list:
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if o.dtype.is_floating_point]


def _grads(m, outputs, inputs, weights, create_graph):
    pairs = [(o, w) for o, w in zip(outputs, weights) if o.requires_grad and o.numel()]
    if not pairs:
        return [None] * len(inputs)
    total = sum((o * m.tensor(w)).sum() for o, w in pairs)
    return list(m.autograd.grad(total, inputs, create_graph=create_graph, allow_unused=True))


def _same(ours, theirs, kind, what):
    if theirs is None:
        assert ours is None or not np.any(ours.detach().numpy()), f"{what}: expected no gradient"
        return
    if ours is None:
        assert not np.any(theirs.detach().numpy(force=True)), f"{what}: missing gradient"
        return
    assert str(ours.dtype) == str(theirs.dtype), what
    assert_close(ours, theirs.detach().numpy(force=True), kind)  # force: PyTorch's ZeroTensor


def compare(fn, arrays, kind="direct", second=True, seed=0, torch=None, grads=True):
    """Values, gradients for random output weights, and the gradient of ``<grads, v>``
    (``second``); only values without ``grads``."""
    rng = np.random.default_rng(seed + 100)
    ours = [lg.tensor(np.ascontiguousarray(a), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(np.ascontiguousarray(a), requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # deprecated aliases warn in both
        out, ref = _floats(fn(lg, *ours)), _floats(fn(torch, *theirs))
    assert len(out) == len(ref)
    for i, (o, r) in enumerate(zip(out, ref)):
        assert tuple(o.shape) == tuple(r.shape), f"output {i}: {tuple(o.shape)} != {r.shape}"
        _same(o, r, kind, f"output {i}")
    if not grads:
        return
    weights = [rng.standard_normal(tuple(r.shape)) for r in ref]
    g_ours = _grads(lg, out, ours, weights, create_graph=second)
    g_theirs = _grads(torch, ref, theirs, weights, create_graph=second)
    for i, (a, b) in enumerate(zip(g_ours, g_theirs)):
        _same(a, b, kind, f"gradient of input {i}")
    if not second:
        return
    vs = [rng.standard_normal(a.shape) for a in arrays]
    used = [(a, b, v) for a, b, v in zip(g_ours, g_theirs, vs) if b is not None and b.requires_grad]
    if not used:
        return
    s_ours = sum((a * lg.tensor(v)).sum() for a, _, v in used)
    s_theirs = sum((b * torch.tensor(v)).sum() for _, b, v in used)
    gg_ours = lg.autograd.grad(s_ours, ours, allow_unused=True)
    gg_theirs = torch.autograd.grad(s_theirs, theirs, allow_unused=True)
    for i, (a, b) in enumerate(zip(gg_ours, gg_theirs)):
        _same(a, b, kind, f"second derivative, input {i}")


def node_and_two_derivatives(m, fn, arrays):
    """``y = fn(m, *inputs)`` (float64 inputs requiring grad), the gradient of ``sum(y^2)``
    (with its graph) and the gradient of the squared sum of that gradient."""
    xs = [m.tensor(a, requires_grad=True) for a in arrays]
    y = fn(m, *xs)
    first = m.autograd.grad(
        (y * y).sum(), xs, create_graph=True, allow_unused=True, materialize_grads=True
    )
    live = [g for g in first if g.requires_grad]
    if not live:
        return y, first, [None] * len(xs)
    second = m.autograd.grad(sum((g * g).sum() for g in live), xs, allow_unused=True)
    return y, first, second


def assert_same_node_and_derivatives(torch, fn, arrays, node_name: str) -> None:
    """``fn`` records ``node_name`` in both libraries, with equal values, first and second
    derivatives (``node_and_two_derivatives``)."""
    ours = node_and_two_derivatives(lg, fn, arrays)
    theirs = node_and_two_derivatives(torch, fn, arrays)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == node_name
    assert_close(ours[0], theirs[0].detach().numpy(), "direct")
    for a, b in zip(list(ours[1]) + list(ours[2]), list(theirs[1]) + list(theirs[2])):
        assert (a is None) == (b is None)
        if a is not None:
            assert_close(a, b.detach().numpy(), "direct")


def tanh_layer_to_second_order(m, x, w, v) -> list:
    """``y = tanh(x @ w) @ w^T`` in library ``m``, with the gradients of ``sum(y v)`` in ``x``
    and ``w`` and the gradient in ``w`` of ``sum(g_x^2) + sum(g_w)``, as arrays: a PINN
    layer's products (``x @ w``, ``g @ w^T``, ``x^T g``) taken to second order."""
    xs, ws = m.tensor(x, requires_grad=True), m.tensor(w, requires_grad=True)
    y = m.tanh(xs @ ws) @ ws.t()
    gx, gw = m.autograd.grad((y * m.tensor(v)).sum(), (xs, ws), create_graph=True)
    (ggw,) = m.autograd.grad((gx * gx).sum() + gw.sum(), ws)
    return [t.detach().numpy() for t in (y, gx, gw, ggw)]
