"""The fused Taylor path on PINN training steps, against PyTorch and leafgrad's nested mode.

    python benchmarks/taylor_fused.py [--configs 1000:float64 10000:float64 ...] [--rounds 7]
                                      [--laplacian 10000] [--no-memory]

Burgers step (issue 13): u of a 2 -> 20 x 8 -> 1 tanh MLP (nn.Linear, nn.Tanh) at N
collocation points, the residual u_t + u u_x - nu u_xx, 300 boundary points, the mean
squares, backward() and an Adam step. Methods:
  torch-nested      PyTorch, autograd.grad with create_graph (the usual PINN code)
  leafgrad-nested   the same code run by leafgrad
  pinn-taylor       leafgrad.pinn operators, method="taylor": one taylor.diagonal pass, with
                    only the u_ii the first step asked for (u_xx), as pinn.Trainer does
  pinn-reverse      leafgrad.pinn operators, method="reverse"
  collapsed         taylor.collapsed(model, x, [1, 0]): u_x, u_t and u_xx in one pass
With --laplacian N: the d=10 Laplacian training step (10 -> 20 x 8 -> 1 tanh, residual
lap u + u, float64) by torch-nested, leafgrad-nested and taylor.laplacian.
Times: one thread each (BLAS and torch), medians of interleaved rounds in one process, in
CPU time of the process (``--clock cpu``, the default: on a shared machine wall time mostly
measures the other processes) or wall time (``--clock wall``).
Memory: peak resident set growth over one step after a warm-up step, each method in a fresh
subprocess (``/proc/self/clear_refs``), where glibc serves every block above 64 KiB by mmap
and returns it on free, so the resident set follows the arrays alive (both libraries
allocate through it). The timing process calls ``leafgrad.utils.tune_malloc()`` (glibc keeps
freed arrays for reuse, for both libraries alike); ``--default-malloc`` skips it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import ctypes
import ctypes.util
import json
import statistics
import subprocess
import sys
import time

import numpy as np

NU = 0.01 / np.pi
WIDTH, DEPTH = 20, 8
BURGERS = ("torch-nested", "leafgrad-nested", "pinn-taylor", "pinn-reverse", "collapsed")
LAPLACIAN = ("torch-nested", "leafgrad-nested", "laplacian")
CLOCK = "cpu"  # set by --clock


def _model(lib, d: int, dtype):
    lib.manual_seed(0)
    layers = [lib.nn.Linear(d, WIDTH, dtype=dtype), lib.nn.Tanh()]
    for _ in range(DEPTH - 1):
        layers += [lib.nn.Linear(WIDTH, WIDTH, dtype=dtype), lib.nn.Tanh()]
    model = lib.nn.Sequential(*layers, lib.nn.Linear(WIDTH, 1, dtype=dtype))
    rng = np.random.default_rng(0)  # the same weights in both libraries
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=dtype))
    return model


def _lib(method: str):
    if method.startswith("torch"):
        import torch  # why: PyTorch is optional, loaded only for its own measurements

        torch.set_num_threads(1)
        return torch
    import leafgrad  # why: measured in a fresh process where only it is wanted

    return leafgrad


def burgers_step(method: str, n: int, dtype_name: str):
    """A closure running one training step of ``method``."""
    lib = _lib(method)
    dtype = getattr(lib, dtype_name)
    model = _model(lib, 2, dtype)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(1)
    points = lib.tensor(rng.uniform(-1, 1, (n, 2)), dtype=dtype)
    boundary = lib.tensor(rng.uniform(-1, 1, (300, 2)), dtype=dtype)
    target = -lib.sin(np.pi * boundary[:, 0:1])

    def finish(u, u_x, u_t, u_xx):
        r = u_t + u * u_x - NU * u_xx
        b = model(boundary) - target
        loss = (r * r).mean() + (b * b).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    if method in ("torch-nested", "leafgrad-nested"):

        def step():
            x = points.detach().requires_grad_(True)
            u = model(x)
            (g,) = lib.autograd.grad(u.sum(), x, create_graph=True)
            (g2,) = lib.autograd.grad(g[:, 0].sum(), x, create_graph=True)
            finish(u, g[:, 0:1], g[:, 1:2], g2[:, 0:1])

    elif method in ("pinn-taylor", "pinn-reverse"):
        from leafgrad import pinn  # why: leafgrad-only methods

        kind = method.split("-")[1]
        diagonal = [None]  # learnt from the first step, as pinn.Trainer does

        def step():
            with pinn.Evaluation(model, points, kind, diagonal=diagonal[0]) as ev:
                u, x = ev.output, ev.inputs
                finish(u, pinn.partial(u, x, 0), pinn.partial(u, x, 1), pinn.partial(u, x, 0, 0))
                diagonal[0] = tuple(sorted(ev.requested))

    else:
        from leafgrad.autograd import taylor  # why: leafgrad-only method

        weights = np.array([1.0, 0.0])

        def step():
            u, g, u_xx = taylor.collapsed(model, points, weights)
            finish(u, g[:, :, 0], g[:, :, 1], u_xx)

    return step


def laplacian_step(method: str, n: int, dtype_name: str = "float64"):
    """One training step on ``lap u + u`` for a 10-input model."""
    lib = _lib(method if method != "laplacian" else "leafgrad")
    dtype = getattr(lib, dtype_name)
    model = _model(lib, 10, dtype)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    points = lib.tensor(np.random.default_rng(1).uniform(-1, 1, (n, 10)), dtype=dtype)

    def finish(u, lap):
        r = lap.reshape(-1) + u.reshape(-1)
        opt.zero_grad()
        (r * r).mean().backward()
        opt.step()

    if method == "laplacian":
        from leafgrad.autograd import taylor  # why: leafgrad-only method

        def step():
            u, _, lap = taylor.laplacian(model, points)
            finish(u, lap)

    else:

        def step():
            x = points.detach().requires_grad_(True)
            u = model(x)
            (g,) = lib.autograd.grad(u.sum(), x, create_graph=True)
            lap = 0
            for i in range(10):
                (h,) = lib.autograd.grad(g[:, i].sum(), x, create_graph=True)
                lap = lap + h[:, i]
            finish(u, lap)

    return step


def _make(workload: str, method: str, n: int, dtype: str):
    if workload == "burgers":
        return burgers_step(method, n, dtype)
    return laplacian_step(method, n, dtype)


def interleaved(workload: str, methods, n: int, dtype: str, rounds: int) -> dict:
    """Median seconds per step of each method, the methods taking turns each round."""
    steps = {m: _make(workload, m, n, dtype) for m in methods}
    for step in steps.values():
        step()  # warm up
    times = {m: [] for m in methods}
    clock = time.process_time if CLOCK == "cpu" else time.perf_counter
    for _ in range(rounds):
        for m, step in steps.items():
            start = clock()
            step()
            times[m].append(clock() - start)
    return {m: statistics.median(t) for m, t in times.items()}


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def _follow_live_arrays() -> None:
    """A fixed mmap threshold of 64 KiB (no dynamic raise) and trimming: RSS = live data."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    libc.mallopt(-3, 64 * 1024)  # M_MMAP_THRESHOLD
    libc.mallopt(-1, 128 * 1024)  # M_TRIM_THRESHOLD


def peak_mib(workload: str, method: str, n: int, dtype: str) -> float:
    """Peak RSS growth (MiB) over one step after a warm-up step (run in a subprocess)."""
    _follow_live_arrays()
    step = _make(workload, method, n, dtype)
    step()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets the peak (VmHWM) to the current RSS
    before = _status("VmRSS:")
    step()
    return (_status("VmHWM:") - before) / 1024


def _memory(workload: str, method: str, n: int, dtype: str) -> float:
    args = [sys.executable, __file__, "--one", workload, method, str(n), dtype]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["peak_mib"]


def _table(workload, methods, n, dtype, rounds, memory) -> list:
    times = interleaved(workload, methods, n, dtype, rounds)
    mems = {m: _memory(workload, m, n, dtype) for m in methods} if memory else {}
    base, rows = times["torch-nested"], []
    for m in methods:
        t = times[m]
        mem = mems.get(m)
        ratio_m = f"{mem / mems['torch-nested']:.2f}" if mem and mems["torch-nested"] > 0 else "-"
        rows.append(
            f"| {workload} | {n} | {dtype} | {m} | {t * 1e3:.1f} ms | {t / base:.2f} | "
            + (f"{mem:.0f} MiB | {ratio_m} |" if mem is not None else "- | - |")
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--configs",
        nargs="*",
        default=["1000:float64", "10000:float64", "1000:float32", "10000:float32"],
        help="Burgers configurations N:dtype",
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--laplacian", type=int, nargs="*", default=[10000])
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--methods", nargs="*", default=None, help="a subset of the methods")
    parser.add_argument("--default-malloc", action="store_true", help="skip tune_malloc()")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        workload, method, n, dtype = args.one
        print(json.dumps({"peak_mib": peak_mib(workload, method, int(n), dtype)}))
        return
    global CLOCK
    CLOCK = args.clock
    if not args.default_malloc:
        from leafgrad.utils import tune_malloc  # why: only when asked, process-wide

        tune_malloc()
    print("| workload | N | dtype | method | time | t / torch | peak | mem / torch |")
    print("|---|---|---|---|---|---|---|---|")
    for config in args.configs:
        n, dtype = config.split(":")
        methods = [m for m in BURGERS if not args.methods or m in args.methods + ["torch-nested"]]
        for row in _table("burgers", methods, int(n), dtype, args.rounds, not args.no_memory):
            print(row, flush=True)
    for n in args.laplacian:
        methods = [m for m in LAPLACIAN if not args.methods or m in args.methods + ["torch-nested"]]
        for row in _table("laplacian", methods, n, "float64", args.rounds, not args.no_memory):
            print(row, flush=True)


if __name__ == "__main__":
    main()
