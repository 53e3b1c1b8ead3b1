"""The Burgers step written by hand in NumPy: what NumPy's calls cost with no autograd at all.

The ``numpy-floor`` method of the Burgers workloads. The same network, points, residual,
loss and Adam step as the other methods, with ``u``, ``u_x``, ``u_t`` and ``u_xx`` carried
together as four channels of one (4, N, width) array (value, the two first derivatives, the
second in x), so every layer is one matrix product and one activation pass, and the
backward written out by hand. It stands for the least a NumPy-based library can spend on
this step on the machine measured: the issue's targets for ``taylor.collapsed`` are ratios
to PyTorch that this floor may or may not reach.

Through ``y = tanh(z)`` with ``d1 = 1 - y^2``, ``d2 = -2 y d1``, ``d3 = -2 (d1^2 + y d2)``
(the first three derivatives), the channels map as ``Y0 = y``, ``Y1 = d1 Z1``,
``Y2 = d1 Z2``, ``Y3 = d1 Z3 + d2 Z1^2`` and their gradients as

    gZ0 = gY0 d1 + (gY1 Z1 + gY2 Z2 + gY3 Z3) d2 + gY3 Z1^2 d3
    gZ1 = gY1 d1 + 2 gY3 d2 Z1,   gZ2 = gY2 d1,   gZ3 = gY3 d1.
"""

from __future__ import annotations

import numpy as np

NU = 0.01 / np.pi


def burgers_step(params, x, xb, ub, lr=1e-3):
    """One training step on ``params`` (``[(w, b), ...]`` NumPy arrays, updated in place)."""
    state = _adam_state(params)

    def step():
        grads = _gradients(params, x, xb, ub)
        _adam(params, grads, state, lr)

    return step


def loss_and_gradients(params, x, xb, ub):
    """``(loss, [(g_w, g_b), ...])`` of the Burgers loss (for checking the floor)."""
    return _loss(params, x, xb, ub), _gradients(params, x, xb, ub)


def _loss(params, x, xb, ub) -> float:
    channels, _ = _forward_channels(params, x)
    u, u_x, u_t, u_xx = channels
    r = u_t + u * u_x - NU * u_xx
    b = _forward_plain(params, xb)[0] - ub
    return float(np.mean(r * r) + np.mean(b * b))


def _forward_channels(params, x):
    """The output's four channels (4, N, 1) and what the backward needs per layer."""
    n = x.shape[0]
    w, b = params[0]
    z = np.empty((4, n, w.shape[1]), w.dtype)
    np.matmul(x, w, out=z[0])
    z[0] += b
    z[1] = w[0]  # d/dx of x @ w: the first row of w at every point
    z[2] = w[1]
    z[3] = 0.0
    saved = [(x, None, None)]
    for w, b in params[1:]:
        y = np.tanh(z[0])
        d1 = np.multiply(y, y)
        np.subtract(1.0, d1, out=d1)
        d2 = np.multiply(y, d1)
        d2 *= -2.0
        h = np.multiply(z, d1)  # (4, N, m): Y0 overwritten below, Y1..Y3 = d1 Z1..Z3
        h[0] = y
        t = np.multiply(z[1], z[1])
        t *= d2
        h[3] += t
        saved.append((h, z, (y, d1, d2)))
        z = np.matmul(h.reshape(-1, h.shape[-1]), w).reshape(4, n, w.shape[1])
        z[0] += b
    return z, saved


def _forward_plain(params, x):
    """The network's value at ``x`` and its layers' outputs (for the boundary's backward)."""
    h, hs = x, []
    for i, (w, b) in enumerate(params):
        hs.append(h)
        h = h @ w + b
        if i < len(params) - 1:
            h = np.tanh(h)
    return h, hs


def _gradients(params, x, xb, ub):
    channels, saved = _forward_channels(params, x)
    u, u_x, u_t, u_xx = channels
    r = u_t + u * u_x - NU * u_xx
    dr = r * (2.0 / r.size)
    g = np.stack([dr * u_x, dr * u, dr, dr * -NU])  # gradients of the four output channels
    grads = [None] * len(params)
    for i in range(len(params) - 1, 0, -1):
        w, _ = params[i]
        h, z, (y, d1, d2) = saved[i]
        m = h.shape[-1]
        grads[i] = [h.reshape(-1, m).T @ g.reshape(-1, g.shape[-1]), g[0].sum(0)]
        gh = (g.reshape(-1, g.shape[-1]) @ w.T).reshape(4, -1, m)
        gz = np.multiply(gh, d1)  # gZ1..gZ3's first terms; gZ0's too
        s = np.multiply(gh[1], z[1])  # gY1 Z1 + gY2 Z2 + gY3 Z3, then times d2
        t = np.multiply(gh[2], z[2])
        s += t
        np.multiply(gh[3], z[3], out=t)
        s += t
        s *= d2
        gz[0] += s
        np.multiply(gh[3], d2, out=t)  # 2 gY3 d2 Z1, into gZ1
        t *= z[1]
        t *= 2.0
        gz[1] += t
        d3 = np.multiply(d1, d1)  # d3 = -2 (d1^2 + y d2); gZ0 += gY3 Z1^2 d3
        np.multiply(y, d2, out=t)
        d3 += t
        d3 *= -2.0
        np.multiply(gh[3], z[1], out=t)
        t *= z[1]
        t *= d3
        gz[0] += t
        g = gz
    # The first layer: its channels were x and the unit rows (x's derivatives).
    grads[0] = [x.T @ g[0], g[0].sum(0)]
    grads[0][0][0] += g[1].sum(0)
    grads[0][0][1] += g[2].sum(0)
    # The boundary term: a plain forward and backward on its points.
    out, hs = _forward_plain(params, xb)
    gout = (out - ub) * (2.0 / ub.size)
    for i in range(len(params) - 1, -1, -1):
        w, _ = params[i]
        h = hs[i]
        grads[i][0] += h.T @ gout
        grads[i][1] += gout.sum(0)
        if i:
            gout = (gout @ w.T) * (1.0 - h * h)  # h: tanh's output, the next layer's input
    return grads


def _adam_state(params):
    return {
        "t": 0,
        "m": [[np.zeros_like(a) for a in pair] for pair in params],
        "v": [[np.zeros_like(a) for a in pair] for pair in params],
    }


def _adam(params, grads, state, lr, betas=(0.9, 0.999), eps=1e-8):
    state["t"] += 1
    t = state["t"]
    b1, b2 = betas
    for pair, gpair, mpair, vpair in zip(params, grads, state["m"], state["v"]):
        for p, g, m, v in zip(pair, gpair, mpair, vpair):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            denom = np.sqrt(v / (1 - b2**t)) + eps
            p -= (lr / (1 - b1**t)) * m / denom
