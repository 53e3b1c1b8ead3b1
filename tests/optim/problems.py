"""Small deterministic problems written with plain tensor ops, runnable on leafgrad or torch.

Every function takes the library module (``leafgrad`` or ``torch``) as ``lib`` so the same
code drives both sides of a differential test.
"""

from __future__ import annotations

import numpy as np

_rng = np.random.default_rng(20240611)
MLP_W1 = _rng.standard_normal((3, 5))
MLP_B1 = _rng.standard_normal(5)
MLP_W2 = _rng.standard_normal((5, 1))
MLP_X = _rng.standard_normal((16, 3))
MLP_Y = _rng.standard_normal((16, 1))
LSQ_A = _rng.standard_normal((12, 4))
LSQ_B = _rng.standard_normal(12)
LSQ_X0 = _rng.standard_normal(4)


def mlp_params(lib, dtype_name: str = "float64") -> list:
    """The tiny MLP's weights as fresh leaves requiring grad."""
    dtype = getattr(lib, dtype_name)
    return [lib.tensor(a.copy(), dtype=dtype, requires_grad=True) for a in (MLP_W1, MLP_B1, MLP_W2)]


def mlp_loss(lib, params):
    """Mean squared error of a 3-5-1 tanh network on a fixed batch."""
    w1, b1, w2 = params
    dtype = w1.dtype
    x = lib.tensor(MLP_X, dtype=dtype)
    y = lib.tensor(MLP_Y, dtype=dtype)
    return ((lib.tanh(x @ w1 + b1) @ w2 - y) ** 2).mean()


def lsq_params(lib) -> list:
    return [lib.tensor(LSQ_X0.copy(), dtype=lib.float64, requires_grad=True)]


def lsq_loss(lib, params):
    """0.5 * |A x - b|^2 for a fixed overdetermined system."""
    (x,) = params
    a = lib.tensor(LSQ_A, dtype=lib.float64)
    b = lib.tensor(LSQ_B, dtype=lib.float64)
    r = a @ x - b
    return 0.5 * (r * r).sum()


def rosenbrock(lib, x):
    """The n-dimensional Rosenbrock function (minimum 0 at all ones).

    ``x[1:]`` and ``x[:-1]`` are taken with constant shift matrices, so only matmul and
    elementwise ops are needed.
    """
    n = x.shape[0]
    head = lib.tensor(np.eye(n)[:-1], dtype=x.dtype)  # picks x[:-1]
    tail = lib.tensor(np.eye(n)[1:], dtype=x.dtype)  # picks x[1:]
    a, b = head @ x, tail @ x
    return (100 * (b - a**2) ** 2 + (1 - a) ** 2).sum()


def train(lib, make_optimizer, params, loss_fn, steps: int = 20) -> list[np.ndarray]:
    """Run ``steps`` optimiser steps; returns the final parameter values as arrays."""
    opt = make_optimizer(params)
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(lib, params).backward()
        opt.step()
    return [p.detach().numpy().copy() for p in params]
