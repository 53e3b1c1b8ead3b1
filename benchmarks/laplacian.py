"""Time and peak memory of (u, grad u, Laplacian u) for tanh MLPs, in one run.

    python benchmarks/laplacian.py [--sizes 1000 10000 100000] [--repeat 3] [--train]
                                   [--default-malloc]

Three methods on the same weights and points (float64):
  torch-nested     PyTorch, autograd.grad for grad u, then one more grad per input dim
  leafgrad-nested  leafgrad, the same nested reverse mode
  leafgrad-taylor  leafgrad's collapsed Taylor mode (autograd.taylor.laplacian), one pass
Models: "2d" is 2 -> 20 x 8 (tanh) -> 1; "10d" is 10 -> 20 x 8 (tanh) -> 1.
Each measurement runs in a fresh subprocess; peak memory is the growth of the process's
peak resident set (VmHWM) during the computation. Ratios are against torch-nested.
With --train the weights require grad, nested mode keeps the graph of the second
derivatives (create_graph=True), and each pass ends with backward() of a PINN loss.
The leafgrad processes call ``leafgrad.utils.tune_malloc()``, as the published figures were
measured (``--default-malloc`` skips it; PyTorch's processes never do): at N = 10000 it halves
their page faults; the time it saves there was within the shared machine's noise.
"""

from __future__ import annotations

import os

# One BLAS thread for NumPy, as torch.set_num_threads(1) below: the same work on one core.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import itertools
import json
import subprocess
import sys
import time

import numpy as np

WIDTH, DEPTH = 20, 8


def weights(d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = [d] + [WIDTH] * DEPTH + [1]
    return [
        (rng.standard_normal((m, n)) / np.sqrt(m), rng.standard_normal(n) * 0.1)
        for m, n in itertools.pairwise(sizes)
    ]


def mlp(lib, params, x):
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = lib.tanh(h)
    return h


def nested(lib, params, x, train=False):
    u = mlp(lib, params, x)
    (grad,) = lib.autograd.grad(u.sum(), x, create_graph=True)
    lap = 0
    for i in range(x.shape[1]):
        (g2,) = lib.autograd.grad(grad[:, i].sum(), x, retain_graph=True, create_graph=train)
        lap = lap + g2[:, i]
    return u, grad, lap


def run_one(
    method: str, d: int, n: int, repeat: int, train: bool = False, tune: bool = True
) -> dict:
    rng = np.random.default_rng(1)
    points = rng.uniform(-1, 1, (n, d))
    if method == "torch-nested":
        import torch

        torch.set_num_threads(1)
        lib = torch
    else:
        import leafgrad as lib

        if tune:
            lib.utils.tune_malloc()
    params = [
        (lib.tensor(w, requires_grad=train), lib.tensor(b, requires_grad=train))
        for w, b in weights(d)
    ]
    # Nested reverse mode needs x to require grad; the Taylor pass does not (it records no
    # graph unless something it uses requires grad, as parameters do in training).
    x = lib.tensor(points, requires_grad=method != "leafgrad-taylor")
    if method == "leafgrad-taylor":
        from leafgrad.autograd import taylor

        def compute():
            out = taylor.laplacian(lambda z: mlp(lib, params, z), x)
            if train:
                _loss(out).backward()
            return out
    else:

        def compute():
            out = nested(lib, params, x, train)
            if train:
                _loss(out).backward()
            return out

    _reset_peak()
    before = _rss_kib()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        u, grad, lap = compute()
        times.append(time.perf_counter() - start)
        lap_value = np.asarray(lap.detach().numpy(), dtype=np.float64).reshape(-1)
        del u, grad, lap
    peak = _peak_kib()
    return {"time": min(times), "peak_mib": (peak - before) / 1024, "lap0": float(lap_value[0])}


def _loss(out):
    """A PINN-style loss of (u, grad u, Laplacian u), for the --train measurement."""
    u, _, lap = out
    residual = lap.reshape(-1) + u.reshape(-1)
    return (residual * residual).mean()


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
    except OSError:
        pass


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def _rss_kib() -> int:
    return _status("VmRSS:")


def _peak_kib() -> int:
    return _status("VmHWM:")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--train",
        action="store_true",
        help="weights require grad and each pass ends with backward() of a PINN loss",
    )
    parser.add_argument(
        "--default-malloc", action="store_true", help="leafgrad runs skip tune_malloc()"
    )
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        method, d, n = args.one
        result = run_one(
            method, int(d), int(n), args.repeat, args.train, tune=not args.default_malloc
        )
        print(json.dumps(result))
        return
    methods = ["torch-nested", "leafgrad-nested", "leafgrad-taylor"]
    print(
        f"{'model':<5} {'N':>7} {'method':<16} {'time':>10} {'peak MiB':>9} "
        f"{'t/torch':>8} {'mem/torch':>9}"
    )
    for d in (2, 10):
        for n in args.sizes:
            base = None
            for method in methods:
                out = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--one",
                        method,
                        str(d),
                        str(n),
                        "--repeat",
                        str(args.repeat),
                    ]
                    + (["--train"] if args.train else [])
                    + (["--default-malloc"] if args.default_malloc else []),
                    capture_output=True,
                    text=True,
                )
                if out.returncode != 0:
                    last = out.stderr.strip().splitlines()[-1:]
                    print(f"{d}d    {n:>7} {method:<16} failed: {last}")
                    continue
                r = json.loads(out.stdout)
                if method == "torch-nested":
                    base = r
                ratio_t = r["time"] / base["time"] if base else float("nan")
                ratio_m = (
                    r["peak_mib"] / base["peak_mib"]
                    if base and base["peak_mib"] > 0
                    else float("nan")
                )
                print(
                    f"{d}d    {n:>7} {method:<16} {r['time'] * 1e3:>8.1f}ms {r['peak_mib']:>9.1f} "
                    f"{ratio_t:>8.2f} {ratio_m:>9.2f}"
                )


if __name__ == "__main__":
    main()
