"""Accuracy and time of `leafgrad solve` on every benchmark problem, as a README table.

    python benchmarks/pinn_accuracy.py [--problems burgers heat1d ...] [--preset NAME]
                                       [--out runs/accuracy]

Each problem runs in its own process with its default settings (or --preset), one BLAS
thread, and reports the relative L2 error on the problem's evaluation grid, the wall time and
the steps taken (from metrics.json). For Burgers, Raissi et al. (2019) report 6.7e-4 with
L-BFGS to convergence on a GPU (--preset paper runs that configuration).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from leafgrad.pinn import problems


def run(name: str, preset: str | None, out: str) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "leafgrad.cli", "solve", name, "--no-progress", "--out", out]
    if preset:
        command += ["--preset", preset]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{name}: {done.stderr.strip()}")
    with open(os.path.join(out, "metrics.json")) as fh:
        return json.load(fh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=list(problems.PROBLEMS))
    parser.add_argument("--preset")
    parser.add_argument("--out", default=os.path.join("runs", "accuracy"))
    args = parser.parse_args()
    print("| problem | preset | relative L2 | time | Adam + L-BFGS steps | coefficients |")
    print("|---|---|---|---|---|---|")
    for name in args.problems:
        m = run(name, args.preset, os.path.join(args.out, name))
        coefficients = ", ".join(
            f"{k} = {v:.5g} (true {m['true_coefficients'][k]:.5g})"
            for k, v in m["coefficients"].items()
        )
        error = "diverged" if m["relative_l2"] is None else f"{m['relative_l2']:.2e}"
        print(
            f"| {name} | {args.preset or 'default'} | {error} | {m['seconds']:.0f} s | "
            f"{m['adam_steps']} + {m['lbfgs_steps']} | {coefficients or '-'} |"
        )


if __name__ == "__main__":
    main()
