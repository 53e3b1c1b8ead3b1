"""Per-point Hessians with vmap: ``vmap(hessian(f))`` of a 2 -> 20 x 8 (tanh) -> 1 network.

    python benchmarks/vmap.py [--n 10000] [--repeat 15] [--dtype float32]

Three methods on the same weights and points, interleaved in one process, one thread each:
  torch-func       PyTorch: torch.func.vmap(torch.func.hessian(f))(x)
  leafgrad-func    leafgrad: leafgrad.func.vmap(leafgrad.func.hessian(f))(x)
  leafgrad-nested  leafgrad: the same Hessians by nested autograd.grad on the batch (one grad
                   for the gradient, then one per input dim with create_graph=False)
Prints the median time of each over the rounds and the medians of the per-round ratios to
torch-func and to leafgrad-nested (rounds interleave the methods, so load on a shared machine
hits all alike), after checking that the three agree.
"""

from __future__ import annotations

import os

# One BLAS thread for NumPy, as torch.set_num_threads(1) below: the same work on one core.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import itertools
import time

import numpy as np

WIDTH, DEPTH = 20, 8


def weights(seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = [2] + [WIDTH] * DEPTH + [1]
    return [
        (rng.standard_normal((n, m)) / np.sqrt(m), rng.standard_normal(n) * 0.1)
        for m, n in itertools.pairwise(sizes)
    ]


def network(lib, params):
    """f(x): one point (2,) -> a 0-dim output, each layer as nn.Linear computes it
    (``h @ w.T + b``; PyTorch's vmap of ``w @ h`` is about 10x slower than of this form)."""

    def f(x):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w.T + b
            if i < len(params) - 1:
                h = lib.tanh(h)
        return h.squeeze(-1)

    return f


def func_hessians(lib, params, x):
    return lib.func.vmap(lib.func.hessian(network(lib, params)))(x)


def nested_hessians(lib, params, x):
    x = x.detach().requires_grad_()
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w.T + b
        if i < len(params) - 1:
            h = lib.tanh(h)
    (g,) = lib.autograd.grad(h.sum(), x, create_graph=True)
    rows = [lib.autograd.grad(g[:, i].sum(), x, retain_graph=True)[0] for i in range(2)]
    return lib.stack(rows, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = parser.parse_args()

    import torch

    import leafgrad

    torch.set_num_threads(1)
    points = np.random.default_rng(1).uniform(-1, 1, (args.n, 2)).astype(args.dtype)
    raw = [(w.astype(args.dtype), b.astype(args.dtype)) for w, b in weights()]
    setups = {}
    for name, lib in (("torch", torch), ("leafgrad", leafgrad)):
        params = [(lib.tensor(w), lib.tensor(b)) for w, b in raw]
        setups[name] = (lib, params, lib.tensor(points))
    methods = {
        "torch-func": lambda: func_hessians(*setups["torch"]),
        "leafgrad-func": lambda: func_hessians(*setups["leafgrad"]),
        "leafgrad-nested": lambda: nested_hessians(*setups["leafgrad"]),
    }
    results = {name: fn().detach().numpy() for name, fn in methods.items()}
    tol = 1e-3 if args.dtype == "float32" else 1e-9
    for name, value in results.items():
        assert value.shape == (args.n, 2, 2), (name, value.shape)
        np.testing.assert_allclose(value, results["torch-func"], rtol=tol, atol=tol)
    times: dict = {name: [] for name in methods}
    for _ in range(args.repeat):  # interleaved, so load on a shared machine hits all alike
        for name, fn in methods.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    print(
        f"vmap(hessian(f)) of a 2 -> 20x8 -> 1 tanh net, N={args.n}, {args.dtype}, 1 thread, "
        f"medians of {args.repeat} rounds"
    )
    for name, ts in times.items():
        to_torch = np.median(np.divide(ts, times["torch-func"]))
        to_nested = np.median(np.divide(ts, times["leafgrad-nested"]))
        print(
            f"  {name:16s} {np.median(ts) * 1e3:8.1f} ms   x{to_torch:.2f} vs torch-func"
            f"   x{to_nested:.2f} vs leafgrad-nested"
        )


if __name__ == "__main__":
    main()
