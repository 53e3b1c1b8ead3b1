"""Two (or more) leafgrad trees on one workload: each tree's ratio to PyTorch, in turns.

    python benchmarks/ab.py TREE[,TREE...] WORKLOAD[:METHOD] [PROCESSES]

Each tree runs in a fresh process of its own (its checkout first on ``sys.path``), where the
workload's step and PyTorch's take turns for 7 rounds; the process reports the median
**CPU time** of each (``time.process_time``: on a shared machine wall time is mostly other
people's work), one BLAS thread, ``tune_malloc`` on. The trees take turns too, PROCESSES
times each (default 3), and the last lines give each tree's median ratio to PyTorch. A
ratio, not a time, because the host's speed drifts between processes. A workload that is a
sequence (``out-of-place-loop``) is timed per step over its whole sequence from a fresh
start in each round, the mean (its collector pauses included). WORKLOAD is a name
from ``benchmarks/workloads.py`` (``python -m benchmarks --help`` lists them); METHOD one of
its leafgrad methods (default: the first). A tree runs its compiled core only where it was
built (``python setup.py build_ext --inplace`` in it; ``git worktree add`` gives a pure one):
build every tree, or none, so that they differ only by their code.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

_CHILD = r"""
import json, statistics, sys, time
import numpy  # loaded first: threadpool_limits limits only libraries already loaded
from threadpoolctl import threadpool_limits
threadpool_limits(1)
import torch
torch.set_num_threads(1)
import leafgrad
leafgrad.utils.tune_malloc()
from benchmarks import workloads

name, method = sys.argv[1], sys.argv[2]
workload = {w.name: w for w in workloads.all_workloads()}[name]
methods = list(workload.methods)
reference = next(m for m in methods if m.startswith("torch"))
method = method or next(m for m in methods if not m.startswith("torch"))
makes = ((workload.methods[reference], torch), (workload.methods[method], leafgrad))


def cpu_time(step, reps):
    start = time.process_time()
    for _ in range(reps):
        step()
    return (time.process_time() - start) / reps


def sequence_time(make, lib):
    # A loop whose steps keep their history: each round runs the whole sequence from a
    # fresh start (its first step, with one-time costs, left out), so every tree times the
    # same history; repetitions calibrated per tree would run a faster one longer.
    step = make(lib)
    step()
    return cpu_time(step, workload.sequence)


times = ([], [])
if workload.sequence:
    for make, lib in makes:
        sequence_time(make, lib)
    for _ in range(7):
        for (make, lib), out in zip(makes, times):
            out.append(sequence_time(make, lib))
else:
    steps = [make(lib) for make, lib in makes]
    for step in steps:
        step()
        step()
    reps = 1
    while cpu_time(steps[1], reps) * reps < 0.2:
        reps *= 2
    for _ in range(7):
        for step, out in zip(steps, times):
            out.append(cpu_time(step, reps))
print(json.dumps([statistics.median(t) for t in times]))
"""


def main(argv: list) -> None:
    if len(argv) < 2:
        sys.exit(__doc__)
    trees = argv[0].split(",")
    name, _, method = argv[1].partition(":")
    processes = int(argv[2]) if len(argv) > 2 else 3
    ratios: dict = {tree: [] for tree in trees}
    for _ in range(processes):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=tree)
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, name, method],
                env=env, cwd=tree, capture_output=True, text=True,
            )  # fmt: skip
            if done.returncode:
                sys.exit(done.stderr[-2000:])
            torch_s, leafgrad_s = json.loads(done.stdout.strip().splitlines()[-1])
            ratios[tree].append(leafgrad_s / torch_s)
            print(
                f"{tree} {argv[1]}: torch {torch_s * 1e6:.1f} us, leafgrad "
                f"{leafgrad_s * 1e6:.1f} us, ratio {leafgrad_s / torch_s:.3f}",
                flush=True,
            )
    for tree in trees:
        print(f"median {tree} {argv[1]}: {statistics.median(ratios[tree]):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
