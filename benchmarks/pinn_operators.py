"""One PINN training step of Burgers' residual: leafgrad's two derivative methods vs PyTorch.

    python benchmarks/pinn_operators.py [--sizes 1000 4000 10000] [--repeat 5]

The step: u of a 2 -> 20 x 6 -> 1 tanh MLP (float64) at N points, the residual
u_t + u u_x - nu u_xx, its mean square, and backward() to the weights. Methods:
  torch-nested      PyTorch, autograd.grad with create_graph (the usual PINN code)
  leafgrad-reverse  leafgrad.pinn operators, nested reverse mode (the default)
  leafgrad-taylor   leafgrad.pinn operators, Taylor mode
Both libraries on one thread. Ratios are against torch-nested; best of --repeat.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import itertools
import time

import numpy as np

NU = 0.01 / np.pi
SIZES = [2] + [20] * 6 + [1]


def _weights(seed: int = 0):
    rng = np.random.default_rng(seed)
    return [
        (rng.standard_normal((m, n)) / np.sqrt(m), rng.standard_normal(n) * 0.1)
        for m, n in itertools.pairwise(SIZES)
    ]


def _mlp(lib, params, x):
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = lib.tanh(h)
    return h


def torch_step(points, weights):
    import torch

    torch.set_num_threads(1)
    params = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True))
              for w, b in weights]  # fmt: skip

    def step():
        x = torch.tensor(points, requires_grad=True)
        u = _mlp(torch, params, x)
        (g,) = torch.autograd.grad(u.sum(), x, create_graph=True)
        u_x, u_t = g[:, 0:1], g[:, 1:2]
        (g2,) = torch.autograd.grad(u_x.sum(), x, create_graph=True)
        r = u_t + u * u_x - NU * g2[:, 0:1]
        (r * r).mean().backward()

    return step


def leafgrad_step(points, weights, method):
    import leafgrad as lg
    from leafgrad import pinn

    params = [(lg.tensor(w, requires_grad=True), lg.tensor(b, requires_grad=True))
              for w, b in weights]  # fmt: skip
    x = lg.tensor(points)

    def step():
        with pinn.Evaluation(lambda z: _mlp(lg, params, z), x, method) as ev:
            u, X = ev.output, ev.inputs
            r = pinn.partial(u, X, 1) + u * pinn.partial(u, X, 0) - NU * pinn.partial(u, X, 0, 0)
            (r * r).mean().backward()

    return step


def best_time(step, repeat: int) -> float:
    step()  # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    weights = _weights()
    print("| N | method | time | time / torch |")
    print("|---|---|---|---|")
    for n in args.sizes:
        points = np.random.default_rng(1).uniform(-1, 1, (n, 2))
        base = best_time(torch_step(points, weights), args.repeat)
        print(f"| {n} | torch-nested | {base * 1e3:.1f} ms | 1.00 |")
        for method in ("reverse", "taylor"):
            t = best_time(leafgrad_step(points, weights, method), args.repeat)
            print(f"| {n} | leafgrad-{method} | {t * 1e3:.1f} ms | {t / base:.2f} |")


if __name__ == "__main__":
    main()
