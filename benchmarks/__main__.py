"""Every benchmark workload, leafgrad against PyTorch, interleaved in one process.

    python -m benchmarks [--out DIR] [--quick] [--large] [--rounds 7] [--only NAME ...]
                         [--threads 1 default] [--default-malloc]

For each workload (benchmarks/workloads.py) and each thread setting (1 thread for both
libraries, then each library's default), every method builds its tensors, runs two warm-up
steps, then the methods take turns for ``--rounds`` rounds; the medians and their ratios to
the first method (PyTorch) are reported, with the peak memory of one step (1-thread pass).
Writes DIR/results.md and DIR/results.json (default: benchmark-results/). ``--quick``: small
sizes, 3 rounds (what the tests run); ``--large`` adds the N = 1e5 Burgers steps (several
GiB). Without PyTorch installed leafgrad is measured alone and the ratios are empty.
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

import leafgrad

from . import measure, report
from .workloads import all_workloads


def run_workload(workload, thread_count, rounds: int, with_memory: bool) -> list:
    """The rows of one workload at one thread setting."""
    methods = {m: f for m, f in workload.methods.items() if measure.library(m) is not None}
    rows = []
    with measure.threads(thread_count):
        steps = {m: make(measure.library(m)) for m, make in methods.items()}
        if workload.sequence:
            times = measure.time_sequence(steps, workload.sequence)
        else:
            for step in steps.values():
                step()
                step()
            times = measure.time_interleaved(workload, steps, rounds)
        memory = {m: measure.peak_step_mib(s) if with_memory else None for m, s in steps.items()}
    del steps
    gc.collect()
    reference = next(iter(methods))
    base_t = times.get(reference, {}).get("median") if measure.torch is not None else None
    base_m = memory.get(reference) if measure.torch is not None else None
    for method, t in times.items():
        row = {
            "workload": workload.name,
            "description": workload.description,
            "config": workload.config,
            "threads": "default" if thread_count is None else thread_count,
            "method": method,
            "median_s": t["median"],
            "min_s": t["min"],
            "rounds": t["rounds"],
            "ratio": t["median"] / base_t if base_t else None,
            "peak_mib": memory[method],
            "memory_ratio": memory[method] / base_m
            if base_m and memory[method] is not None
            else None,
        }
        if "growth" in t:
            row.update(first_s=t["first"], last_s=t["last"], growth=t["growth"])
        rows.append(row)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=Path("benchmark-results"))
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 rounds")
    parser.add_argument("--large", action="store_true", help="add N=1e5 (several GiB)")
    parser.add_argument("--rounds", type=int, default=None, help="default 7 (quick: 3)")
    parser.add_argument("--only", nargs="+", default=None, help="workload name prefixes")
    parser.add_argument("--threads", nargs="+", default=["1", "default"])
    parser.add_argument("--default-malloc", action="store_true", help="skip tune_malloc()")
    args = parser.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 7)
    tuned = False if args.default_malloc else leafgrad.utils.tune_malloc()
    info = report.machine()
    thread_settings = [None if t == "default" else int(t) for t in args.threads]
    rows = []
    for workload in all_workloads(quick=args.quick, large=args.large):
        if args.only and not any(workload.name.startswith(p) for p in args.only):
            continue
        for i, count in enumerate(thread_settings):
            new = run_workload(workload, count, rounds, with_memory=i == 0)
            rows += new
            for r in new:
                print(
                    f"{r['workload']:<22} threads={r['threads']!s:<7} {r['method']:<20} "
                    f"{r['median_s'] * 1e3:10.3f} ms  ratio {r['ratio'] or float('nan'):5.2f}"
                    f"  peak {r['peak_mib'] if r['peak_mib'] is not None else float('nan'):7.1f}"
                    " MiB",
                    flush=True,
                )
    settings = {
        "quick": args.quick,
        "large": args.large,
        "rounds": rounds,
        "threads": args.threads,
        "tune_malloc": tuned,
        "command": " ".join(["python -m benchmarks", *(argv or sys.argv[1:])]),
    }
    info["load_average_end"] = report.machine()["load_average"]
    json_path, md_path = report.write(args.out, info, settings, rows)
    print(f"wrote {md_path} and {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
