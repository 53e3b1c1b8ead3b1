"""The training run of setup.py's profile-guided build: every benchmark workload's leafgrad
methods, a few steps each at small sizes (``python tools/pgo_training.py``, ~5 s here).

The build runs it on modules compiled to count their branches (``-fprofile-generate``), then
compiles them again laid out for the paths it took. So the paths taken here are the ones
made fast: the small op chains, nn training steps, nested ``autograd.grad`` PINN steps and
the fused Taylor path in both dtypes, the activations and the op survey (PyTorch's common
ops). Nothing here depends on PyTorch; a workload that fails is skipped (the profile is
only a hint: every path stays correct, an untrained one is compiled as without a profile).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The benchmarks package, from this source; leafgrad from the build (PYTHONPATH, first).
sys.path.append(str(ROOT))

import leafgrad  # noqa: E402
from benchmarks import workloads  # noqa: E402
from benchmarks.activations import activation_step  # noqa: E402
from benchmarks.minibatch import pinn_minibatch  # noqa: E402
from benchmarks.op_survey import survey  # noqa: E402

# Activations the fused Taylor path fuses (benchmarks/activations.py's names).
ACTIVATIONS = ("Tanh", "SiLU", "Sigmoid", "Softplus", "GELU")
STEPS = 4  # per method, after its first (which compiles numba's loops, if installed)


def training_workloads() -> list:
    """Small instances of the benchmark workloads, each of their paths once."""
    chosen = [
        workloads.op_chain("small", (8,), "float64"),
        workloads.op_chain("small32", (8,), "float32"),
        workloads.op_chain("medium", (100, 10)),
        workloads.mlp_regression(64),
        workloads.tiny_pinn(32),
        workloads.pinn_script(64),
        workloads.allen_cahn(64),
        pinn_minibatch(128, 32),
        workloads.out_of_place_loop(steps=8, n=16),
        workloads.laplacian(64, d=3),
    ]
    for dtype in ("float64", "float32"):
        chosen.append(workloads.burgers(300, dtype))
        chosen += [activation_step(name, 64, dtype) for name in ACTIVATIONS]
    return chosen + survey(number=1)


def run(chosen: list | None = None, budget_s: float = 120.0) -> int:
    """Run each workload's leafgrad methods (all of ``training_workloads``, or ``chosen``);
    the number of methods that ran."""
    start, ran = time.perf_counter(), 0
    for workload in training_workloads() if chosen is None else chosen:
        for name, make in workload.methods.items():
            if name.startswith("torch") or name == "numpy-floor":
                continue  # PyTorch's (the leafgrad method runs the same code), NumPy's
            try:
                step = make(leafgrad)
                for _ in range(STEPS + 1):
                    step()
            except Exception as error:  # a path the profile does not see; the rest do
                print(f"pgo training: {workload.name} {name} skipped ({error})", file=sys.stderr)
                continue
            ran += 1
            if time.perf_counter() - start > budget_s:
                return ran
    return ran


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expect", help="fail unless leafgrad is imported from this folder")
    args = parser.parse_args()
    imported = Path(leafgrad.__file__).resolve().parent.parent
    if args.expect and imported != Path(args.expect).resolve():
        print(f"pgo training: leafgrad was imported from {imported}, not {args.expect}")
        return 1
    count = run()
    print(f"pgo training: {count} workload methods ran")
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())
