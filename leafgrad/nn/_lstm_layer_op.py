"""One LSTM layer (one direction) as one op, recorded as PyTorch's CPU build records it:
``mkldnn_rnn_layer`` (MkldnnRnnLayerBackward0) takes the sequence, the four weights and the
first states, and returns the output sequence, the last ``h`` and ``c``, and a workspace
(here each step's gate activations and cell state, what the backward reads).

Why: step by step the layer records some 16 ops a step (3.3-6.5x PyTorch's time on 10 steps
of a batch of 16); as one op its input products are one matrix product for every step, and
its backward loops over the steps on NumPy arrays. A backward that records
(``create_graph=True``) recomputes the steps with leafgrad ops (``_composite``) and
differentiates them, so the gradient differentiates again. ``nn.LSTM`` uses it for float32
(PyTorch's float64 runs step by step, as leafgrad's does) where no special mode is on (vmap,
forward mode and Taylor mode take the steps themselves, as do projections, packed sequences,
layers without biases and dropout between layers).
"""

from __future__ import annotations

import numpy as np

from .. import autograd, cat, enable_grad, is_grad_enabled, stack
from .._tensor import Tensor, _wrap
from ..ops._optable import Composite
from ..ops._primitive import primitive
from ..ops._tangents import sum_present
from ..ops.elementwise import FORMULA_MIN_SIZE, _sigmoid_forward
from . import functional as F

__all__ = ["lstm_layer"]


def _forward(x, w_ih, w_hh, b_ih, b_hh, hx, cx, *, reverse):
    """``(output, h_n, c_n, workspace)`` of the layer over ``x`` (T, B, I); ``reverse`` runs
    the steps last to first. The workspace (T, B, 5H) holds i, f, g, o and c per step.

    Each step writes into buffers made once (the gates, tanh(c)) and into the workspace and
    output themselves, fewer NumPy calls a step than fresh arrays and copies took (10 steps
    of a batch of 16, hidden 64, float32: 444 -> 428 us), the same values."""
    steps, batch = x.shape[:2]
    size = hx.shape[-1]
    # The input's products for every step at once; each step then adds h's, as the step
    # by step form adds linear(x) and linear(h).
    inputs = (x.reshape(steps * batch, -1) @ w_ih.T + b_ih).reshape(steps, batch, 4 * size)
    output = np.empty((steps, batch, size), x.dtype)
    workspace = np.empty((steps, batch, 5 * size), x.dtype)
    h, c = hx, cx
    w_hh_t = np.ascontiguousarray(w_hh.T)
    gates = np.empty((batch, 4 * size), x.dtype)
    tanh_c = np.empty((batch, size), x.dtype)
    # One sigmoid over all four gates (g's then overwritten by its tanh) where the two it
    # replaces take the same path of _sigmoid_forward (the formula, from FORMULA_MIN_SIZE
    # elements): the same values for i, f and o.
    whole = batch * size >= FORMULA_MIN_SIZE
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        np.matmul(h, w_hh_t, out=gates)
        gates += b_hh
        np.add(inputs[t], gates, out=gates)  # inputs[t] + (h @ w_hh^T + b_hh)
        space = workspace[t]
        if whole:
            space[:, : 4 * size] = _sigmoid_forward(gates)
        else:
            space[:, : 2 * size] = _sigmoid_forward(gates[:, : 2 * size])
            space[:, 3 * size : 4 * size] = _sigmoid_forward(gates[:, 3 * size :])
        np.tanh(gates[:, 2 * size : 3 * size], out=space[:, 2 * size : 3 * size])
        i, f, g, o, c_new = (space[:, k * size : (k + 1) * size] for k in range(5))
        np.multiply(f, c, out=c_new)
        c_new += i * g  # f c + i g
        np.tanh(c_new, out=tanh_c)
        h = np.multiply(o, tanh_c, out=output[t])
        c = c_new
    return output, np.array(h, copy=True), np.array(c, copy=True), workspace


def _vjp_on_arrays(grads, x, w_ih, w_hh, hx, cx, result, needs, reverse):
    """The layer's backward on NumPy arrays: back through the steps with the workspace.

    What does not depend on the incoming gradients (each gate's derivative times the factor
    its gradient gets, tanh(c)) is computed for every step at once before the loop, so that
    each step makes some six NumPy calls (the recurrence through ``dc`` and ``dh``) instead of
    some twenty-five (10 steps of a batch of 16, hidden 64, float32: 562 -> 440 us): the same
    products, associated otherwise (round-off)."""
    grad_out, grad_h, grad_c = grads[:3]
    output, _, _, workspace = result
    steps, batch = x.shape[:2]
    size = hx.shape[-1]
    dh = np.zeros_like(hx) if grad_h is None else np.array(grad_h, copy=True)
    dc = np.zeros_like(cx) if grad_c is None else np.array(grad_c, copy=True)
    i, f, g, o, c = (workspace[..., k * size : (k + 1) * size] for k in range(5))
    c_before = np.empty_like(c)  # the c each step read
    if reverse:
        c_before[:-1], c_before[-1] = c[1:], cx
    else:
        c_before[1:], c_before[0] = c[:-1], cx
    tanh_c = np.tanh(c)
    # d(i, f, g) = dc * factors[:, :, :3]; d(o) = dh * factors[:, :, 3]; dc += dh * through.
    factors = np.empty((steps, batch, 4, size), x.dtype)
    np.multiply(g * i, 1 - i, out=factors[:, :, 0])
    np.multiply(c_before * f, 1 - f, out=factors[:, :, 1])
    np.multiply(i, 1 - g * g, out=factors[:, :, 2])
    np.multiply(tanh_c * o, 1 - o, out=factors[:, :, 3])
    through = o * (1 - tanh_c * tanh_c)
    d_gates = np.empty((steps, batch, 4, size), x.dtype)
    for t in range(steps) if reverse else range(steps - 1, -1, -1):
        if grad_out is not None:
            dh += grad_out[t]
        dc += dh * through[t]
        d = d_gates[t]
        np.multiply(dc[:, None, :], factors[t, :, :3], out=d[:, :3])
        np.multiply(dh, factors[t, :, 3], out=d[:, 3])
        dc *= f[t]
        dh = d.reshape(batch, 4 * size) @ w_hh
    flat = d_gates.reshape(steps * batch, 4 * size)
    h_before = np.empty_like(output)  # the h each step read
    if reverse:
        h_before[:-1], h_before[-1] = output[1:], hx
    else:
        h_before[1:], h_before[0] = output[:-1], hx
    d_bias = flat.sum(0) if needs[3] or needs[4] else None
    return (
        (flat @ w_ih).reshape(x.shape) if needs[0] else None,
        flat.T @ x.reshape(steps * batch, -1) if needs[1] else None,
        flat.T @ h_before.reshape(steps * batch, size) if needs[2] else None,
        d_bias if needs[3] else None,
        d_bias.copy() if needs[4] else None,
        dh if needs[5] else None,
        dc if needs[6] else None,
    )


def _composite(x, w_ih, w_hh, b_ih, b_hh, hx, cx, *, reverse):
    """The same outputs from leafgrad ops, step by step (the workspace too)."""
    h, c, outputs, spaces = hx, cx, [], []
    steps = x.unbind(0)
    for step in steps[::-1] if reverse else steps:
        gates = F.linear(step, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
        i, f, g, o = gates.chunk(4, dim=-1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        c = f * c + i * g
        h = o * c.tanh()
        outputs.append(h)
        spaces.append(cat([i, f, g, o, c], -1))
    if reverse:
        outputs, spaces = outputs[::-1], spaces[::-1]
    return stack(outputs), h, c, stack(spaces)


def _vjp(grads, x, w_ih, w_hh, b_ih, b_hh, hx, cx, *, result, needs, reverse):
    """On arrays where nothing is recorded (the same NumPy calls either way); recorded (or
    batched by vmap), the steps recomputed and differentiated, so the gradient differentiates
    again. The workspace's own gradient (a JVP differentiated) takes that path too."""
    tensors = type(x) is not np.ndarray
    workspace_grad = grads[3] if not tensors or grads[3] is None else grads[3]._data
    plain = workspace_grad is None or not workspace_grad.any()  # (plain: zeros filled in)
    if not tensors and plain:
        return _vjp_on_arrays(grads, x, w_ih, w_hh, hx, cx, result, needs, reverse)
    if not tensors:  # a plain backward that needs tensors
        raise TypeError("mkldnn_rnn_layer: the workspace's gradient is taken on tensors")
    inputs = (x, w_ih, w_hh, b_ih, b_hh, hx, cx)
    recorded = is_grad_enabled()
    if plain and not recorded and _unbatched(grads, inputs, result):
        arrays = [None if g is None else g._data for g in grads]
        found = _vjp_on_arrays(
            arrays, x._data, w_ih._data, w_hh._data, hx._data, cx._data,
            tuple(r._data for r in result), needs, reverse,
        )  # fmt: skip
        return tuple(None if g is None else _wrap(g) for g in found)
    if not recorded:  # nothing to keep: differentiate detached copies
        inputs = tuple(t.detach().requires_grad_(need) for t, need in zip(inputs, needs))
    with enable_grad():
        outputs = _composite(*inputs, reverse=reverse)
        pairs = [(o, g) for o, g in zip(outputs, grads) if g is not None]
        if not pairs:
            return (None,) * len(inputs)
        found = autograd.grad(
            [o for o, _ in pairs],
            [t for t, need in zip(inputs, needs) if need],
            [g for _, g in pairs],
            create_graph=recorded,
            allow_unused=True,
            materialize_grads=True,
        )
    found = iter(found)
    return tuple(next(found) if need else None for need in needs)


def _unbatched(grads, inputs, result) -> bool:
    """Whether every tensor is a plain Tensor (not a vmap batch)."""
    return all(type(t) is Tensor for t in (*inputs, *result, *(g for g in grads if g is not None)))


def _jvp(tx, t_wi, t_wh, t_bi, t_bh, th, tc, x, w_ih, w_hh, b_ih, b_hh, hx, cx, *, result, reverse):
    """The tangents of the outputs, step by step from the workspace's gates and cells."""
    output, _, _, workspace = result
    size = hx.shape[-1]
    h_prev, c_prev, dh, dc = hx, cx, th, tc
    outs, spaces = [], []
    order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in order:
        i, f, g, o, c = workspace[t].split(size, -1)
        terms = [
            tx[t] @ w_ih.t() if tx is not None else None,
            x[t] @ t_wi.t() if t_wi is not None else None,
            t_bi, t_bh,
            dh @ w_hh.t() if dh is not None else None,
            h_prev @ t_wh.t() if t_wh is not None else None,
        ]  # fmt: skip
        d_gates = sum_present(terms)
        if d_gates is None:  # no tangent anywhere
            d_gates = (x[t] @ w_ih.t()) * 0
        di, df, dg, do = d_gates.split(size, -1)
        di, df, dg, do = di * i * (1 - i), df * f * (1 - f), dg * (1 - g * g), do * o * (1 - o)
        dc = sum_present([df * c_prev, f * dc if dc is not None else None, di * g, i * dg])
        tanh_c = c.tanh()
        dh = do * tanh_c + o * (1 - tanh_c * tanh_c) * dc
        outs.append(dh)
        spaces.append(cat([di, df, dg, do, dc], -1))
        h_prev, c_prev = output[t], c
    if reverse:
        outs, spaces = outs[::-1], spaces[::-1]
    return stack(outs), dh, dc, stack(spaces)


_SAVES = ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_", "reverse")
_SAVES += ("result0", "result1", "result2", "result3")

lstm_layer = primitive(
    "mkldnn_rnn_layer",
    _forward,
    vjp_all=_vjp,
    kind=Composite(taylor_as=_composite, jvp=_jvp),
    inputs=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
    outputs=("result0", "result1", "result2", "result3"),
    saves=_SAVES,
    node_name="MkldnnRnnLayerBackward0",
    dtype_rule="keep",
    num_outputs=4,
    materialize_grads=False,
    plain_rules=True,
)
