"""What one op costs on a tiny tensor, leafgrad against PyTorch: the Python around the kernel.

    python benchmarks/small_ops.py [--mode nograd|record|backward] [--dtype float32|float64]
                                   [--only NAME ...]

Each case is one call on (8, 8) tensors (a vector of 8 where the op needs one; float64
unless ``--dtype`` says otherwise), as small scripts and PINN code make thousands of them:
``nograd`` times the call on tensors that require no grad, ``record`` on tensors that do
(the node is recorded), ``backward`` the call and ``out.sum().backward()``. Best of 5
repeats per library, interleaved in one process, one thread each; prints microseconds and
the ratio leafgrad / PyTorch, worst first. Where PyTorch is not installed it prints
leafgrad's times alone.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import math
import timeit

import numpy as np

import leafgrad

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # leafgrad's times alone
    torch = None

# name -> fn(lib, a, b, v): a, b (8, 8), v (8,)
CASES = {
    "view": lambda L, a, b, v: a.view(64),
    "reshape": lambda L, a, b, v: a.reshape(4, 16),
    "flatten": lambda L, a, b, v: a.flatten(),
    "t": lambda L, a, b, v: a.t(),
    "transpose": lambda L, a, b, v: a.transpose(0, 1),
    "permute": lambda L, a, b, v: a.permute(1, 0),
    "unsqueeze": lambda L, a, b, v: a.unsqueeze(0),
    "squeeze": lambda L, a, b, v: v[None].squeeze(0),
    "expand": lambda L, a, b, v: v.expand(8, 8),
    "contiguous": lambda L, a, b, v: a.t().contiguous(),
    "index int": lambda L, a, b, v: a[0],
    "index slice": lambda L, a, b, v: a[:, 1:3],
    "index None": lambda L, a, b, v: a[:, None],
    "index ...": lambda L, a, b, v: a[..., 0],
    "index mask": lambda L, a, b, v: a[a > 1.0],
    "select": lambda L, a, b, v: a.select(1, 2),
    "narrow": lambda L, a, b, v: a.narrow(1, 0, 4),
    "chunk": lambda L, a, b, v: a.chunk(2, 1)[0],
    "split": lambda L, a, b, v: a.split(4, 1)[0],
    "unbind": lambda L, a, b, v: a.unbind(1)[0],
    "cat": lambda L, a, b, v: L.cat([a, b], 1),
    "stack": lambda L, a, b, v: L.stack([a, b]),
    "add": lambda L, a, b, v: a + b,
    "mul number": lambda L, a, b, v: a * 2.0,
    "div": lambda L, a, b, v: a / b,
    "pow": lambda L, a, b, v: a**2,
    "neg": lambda L, a, b, v: -a,
    "exp": lambda L, a, b, v: a.exp(),
    "sin": lambda L, a, b, v: a.sin(),
    "tanh": lambda L, a, b, v: a.tanh(),
    "sigmoid": lambda L, a, b, v: a.sigmoid(),
    "relu": lambda L, a, b, v: a.relu(),
    "abs": lambda L, a, b, v: a.abs(),
    "clamp": lambda L, a, b, v: a.clamp(0.7, 1.2),
    "where": lambda L, a, b, v: L.where(a > 1.0, a, b),
    "masked_fill": lambda L, a, b, v: a.masked_fill(a > 1.0, 0.0),
    "F.gelu": lambda L, a, b, v: L.nn.functional.gelu(a),
    "F.softplus": lambda L, a, b, v: L.nn.functional.softplus(a),
    "F.silu": lambda L, a, b, v: L.nn.functional.silu(a),
    "softmax": lambda L, a, b, v: a.softmax(1),
    "log_softmax": lambda L, a, b, v: a.log_softmax(1),
    "sum": lambda L, a, b, v: a.sum(),
    "sum dim": lambda L, a, b, v: a.sum(1),
    "mean": lambda L, a, b, v: a.mean(),
    "mean dim": lambda L, a, b, v: a.mean(0, keepdim=True),
    "var": lambda L, a, b, v: a.var(),
    "std dim": lambda L, a, b, v: a.std(1),
    "norm": lambda L, a, b, v: a.norm(),
    "max": lambda L, a, b, v: a.max(),
    "max dim": lambda L, a, b, v: a.max(1)[0],
    "amax": lambda L, a, b, v: a.amax(1),
    "cumsum": lambda L, a, b, v: a.cumsum(1),
    "prod dim": lambda L, a, b, v: a.prod(1),
    "roll": lambda L, a, b, v: a.roll(1, 0),
    "flip": lambda L, a, b, v: a.flip(0),
    "repeat": lambda L, a, b, v: a.repeat(2, 1),
    "tril": lambda L, a, b, v: a.tril(),
    "gather": lambda L, a, b, v: a.gather(1, L.zeros(8, 1, dtype=L.int64)),
    "index tensor": lambda L, a, b, v: a[L.tensor([0, 2])],
    "matmul": lambda L, a, b, v: a @ b,
    "mv": lambda L, a, b, v: a @ v,
    "dot": lambda L, a, b, v: v.dot(v),
    "F.linear": lambda L, a, b, v: L.nn.functional.linear(a, b, v),
    "addmm": lambda L, a, b, v: L.addmm(v, a, b),
    "einsum": lambda L, a, b, v: L.einsum("ij,jk->ik", a, b),
    "mse_loss": lambda L, a, b, v: L.nn.functional.mse_loss(a, b),
    "to float32": lambda L, a, b, v: a.float(),
    "clone": lambda L, a, b, v: a.clone(),
    "zeros_like": lambda L, a, b, v: L.zeros_like(a),
    "item": lambda L, a, b, v: a.sum().item(),
}


def _inputs(lib, requires_grad: bool, dtype: str):
    rng = np.random.default_rng(0)
    arrays = rng.uniform(0.5, 1.5, (8, 8)), rng.uniform(0.5, 1.5, (8, 8)), rng.uniform(0.5, 1.5, 8)
    return [lib.tensor(x.astype(dtype), requires_grad=requires_grad) for x in arrays]


def _call(lib, fn, mode: str, dtype: str):
    a, b, v = _inputs(lib, mode != "nograd", dtype)
    if mode != "backward":
        return lambda: fn(lib, a, b, v)

    def forward_and_backward():
        out = fn(lib, a, b, v)
        if isinstance(out, lib.Tensor) and out.requires_grad:
            out.sum().backward()

    return forward_and_backward


def best_us(call, number: int = 500, repeat: int = 5) -> float:
    call()  # warm up (and raise here, not inside timeit)
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def survey(mode: str, names, dtype: str = "float64") -> list:
    """``(name, leafgrad us, PyTorch us or nan)`` per case."""
    rows = []
    for name in names:
        fn = CASES[name]
        ours = best_us(_call(leafgrad, fn, mode, dtype))
        theirs = best_us(_call(torch, fn, mode, dtype)) if torch is not None else math.nan
        rows.append((name, ours, theirs))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("nograd", "record", "backward"), default="nograd")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float64")
    parser.add_argument("--only", nargs="*", default=None, help="case names (default: all)")
    args = parser.parse_args()
    names = args.only or list(CASES)
    rows = survey(args.mode, names, args.dtype)
    rows.sort(key=lambda row: -(row[1] / row[2]) if row[2] == row[2] else -row[1])
    print(f"{args.mode}: one call on (8, 8) {args.dtype}, microseconds")
    print(f"{'case':<14} {'leafgrad':>9} {'pytorch':>9} {'ratio':>6}")
    for name, ours, theirs in rows:
        print(f"{name:<14} {ours:>9.2f} {theirs:>9.2f} {ours / theirs:>6.2f}")


if __name__ == "__main__":
    main()
