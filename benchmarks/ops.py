"""Forward+backward of small and medium op chains, leafgrad vs PyTorch, in one run.

    python benchmarks/ops.py [--repeat 7] [--default-malloc]

Prints the best time per iteration for each library and the ratio leafgrad / PyTorch.
Targets (issue 2): small (8,) <= 2x, medium (1000, 100) <= 1.2x.
The run calls ``leafgrad.utils.tune_malloc()`` first (``--default-malloc`` skips it): the
medium chain is 2-5x faster with it. Both libraries share the process, so both run with it.
"""

from __future__ import annotations

import os

# One BLAS thread for NumPy, as torch.set_num_threads(1) below: the same work on one core.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import timeit

import numpy as np

import leafgrad

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # the benchmark still reports leafgrad alone
    torch = None


def chain(lib, x, w, b):
    """A typical elementwise chain: 12 recorded ops, one reduction."""
    h = (x * w + b).tanh()
    h = h * h.sigmoid() + (x - b).exp() * 0.5
    h = (h / (w * w + 1.0)).sin() ** 2
    return (h.relu() + h.abs().sqrt()).mean()


def make(lib, shape, dtype):
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, shape).astype(dtype) for _ in range(3)]
    if lib is torch:
        return [torch.tensor(a, requires_grad=True) for a in arrays]
    return [leafgrad.tensor(a, requires_grad=True) for a in arrays]


def step(lib, tensors):
    for t in tensors:
        t.grad = None
    chain(lib, *tensors).backward()


def best_time(lib, shape, dtype, repeat, number):
    tensors = make(lib, shape, dtype)
    step(lib, tensors)  # warm up
    return min(timeit.repeat(lambda: step(lib, tensors), repeat=repeat, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--default-malloc", action="store_true", help="skip tune_malloc()")
    args = parser.parse_args()
    if not args.default_malloc:
        leafgrad.utils.tune_malloc()
    cases = [("small", (8,), 2000), ("medium", (1000, 100), 30)]
    print(f"{'case':<8} {'dtype':<8} {'leafgrad':>12} {'pytorch':>12} {'ratio':>7}")
    for name, shape, number in cases:
        for dtype in ("float32", "float64"):
            ours = best_time(leafgrad, shape, dtype, args.repeat, number)
            theirs = best_time(torch, shape, dtype, args.repeat, number) if torch else float("nan")
            print(
                f"{name:<8} {dtype:<8} {ours * 1e6:>10.1f}us {theirs * 1e6:>10.1f}us "
                f"{ours / theirs:>7.2f}"
            )


if __name__ == "__main__":
    main()
