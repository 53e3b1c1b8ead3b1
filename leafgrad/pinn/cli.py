"""``leafgrad solve PROBLEM``: train a PINN on a benchmark problem and write what it found."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

import numpy as np

from . import plots, problems
from .config import SAMPLERS, TrainConfig
from .history import write_text
from .trainer import Trainer, TrainingDiverged

# Flag -> TrainConfig field, for the settings a user tunes most.
_FLAGS = {
    "width": ("width", int, "neurons per hidden layer"),
    "depth": ("depth", int, "hidden layers"),
    "points": ("collocation", int, "collocation points inside the domain"),
    "boundary_points": ("boundary", int, "points per initial/boundary condition"),
    "adam": ("adam_steps", int, "Adam steps"),
    "lbfgs": ("lbfgs_steps", int, "L-BFGS steps, after Adam"),
    "lr": ("lr", float, "Adam's learning rate"),
    "seed": ("seed", int, "seed for the weights and the points (runs repeat exactly)"),
    "resample_every": ("resample_every", int, "new collocation points every K Adam steps"),
    "checkpoint_every": ("checkpoint_every", int, "write the checkpoint every K steps"),
    "time_limit": ("time_limit", float, "stop training after this many seconds (0: no limit)"),
    "tol": ("tol", float, "stop once the total loss is below this"),
    "causal": ("causal", float, "causal weighting of time slices with this epsilon (0: off)"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("problem", nargs="?", help="the problem to solve (see --list)")
    parser.add_argument("--list", action="store_true", help="list the problems and exit")
    parser.add_argument("--preset", help="a named set of settings, e.g. 'accurate' or 'paper'")
    for flag, (_, kind, text) in _FLAGS.items():
        parser.add_argument(f"--{flag.replace('_', '-')}", type=kind, help=text)
    parser.add_argument("--dtype", choices=("float32", "float64"), help="default float64")
    parser.add_argument("--method", choices=("reverse", "taylor"), help="how derivatives are taken")
    parser.add_argument("--sampler", choices=SAMPLERS, help="how collocation points are drawn")
    hard = parser.add_mutually_exclusive_group()
    hard.add_argument(
        "--hard",
        dest="hard_constraints",
        action="store_const",
        const=True,
        help="build the initial/boundary conditions into the network",
    )
    hard.add_argument("--soft", dest="hard_constraints", action="store_const", const=False,
                      help="train the initial/boundary conditions as loss terms")  # fmt: skip
    parser.add_argument("--out", help="output folder (default: runs/PROBLEM)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue from the checkpoint in --out (step counts are totals, not extra steps)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _list() -> None:
    for name in problems.PROBLEMS:
        problem = problems.get(name)
        presets = ", ".join(sorted(problem.presets)) or "-"
        print(f"{name:16s} {problem.description}  [presets: {presets}]")


def _prepare_output(parser, path: str) -> None:
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, f".write-test.{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as exc:
        parser.error(f"cannot write to the output folder {path!r}: {exc.strerror or exc}")


def solve(args, parser) -> int:
    if args.list:
        _list()
        return 0
    if not args.problem:
        parser.error("name a problem to solve (leafgrad solve --list shows them)")
    if args.problem not in problems.PROBLEMS:
        parser.error(
            f"unknown problem {args.problem!r}; choose one of: {', '.join(problems.PROBLEMS)}"
        )
    problem = problems.get(args.problem)
    overrides = {field: getattr(args, flag) for flag, (field, _, _) in _FLAGS.items()}
    overrides.update(dtype=args.dtype, method=args.method, sampler=args.sampler,
                     hard_constraints=args.hard_constraints)  # fmt: skip
    try:
        config = TrainConfig.for_problem(problem, args.preset, **overrides)
    except ValueError as exc:
        parser.error(str(exc))
    out = args.out or os.path.join("runs", problem.name)
    _prepare_output(parser, out)
    checkpoint = os.path.join(out, "checkpoint.lg")
    if args.resume and not os.path.exists(checkpoint):
        parser.error(f"--resume: no checkpoint at {checkpoint!r}")

    _describe(problem, config)
    trainer = Trainer(problem, config, checkpoint=checkpoint, progress=not args.no_progress)
    started = time.perf_counter()
    status = 0
    try:
        trainer.run(resume=args.resume)
    except TrainingDiverged as exc:
        print(f"\nleafgrad solve: {exc}", file=sys.stderr)
        status = 1
    except ValueError as exc:  # a problem whose residual has the wrong shape, say
        print(f"\nleafgrad solve: {exc}", file=sys.stderr)
        return 2
    _report(trainer, out, time.perf_counter() - started, status)
    if args.preset in problem.published:
        source, error = problem.published[args.preset]
        print(f"published for this configuration: relative L2 {error:.1e} ({source})")
    return status


def _describe(problem, config: TrainConfig) -> None:
    hard = " (initial/boundary conditions built in)" if config.hard_constraints else ""
    print(f"{problem.name}: {problem.description}")
    print(
        f"network {problem.dim} -> {config.width} x {config.depth} ({config.activation}) -> "
        f"{len(problem.outputs)}{hard}; {config.collocation} {config.sampler} points; "
        f"Adam {config.adam_steps} steps (lr {config.lr:g}), then L-BFGS {config.lbfgs_steps}; "
        f"{config.dtype}; seed {config.seed}"
    )
    why = "faster for these residuals" if config.method == "taylor" else "chosen"
    print(f"derivatives: {config.method} mode ({why}; --method switches)")


def _report(trainer: Trainer, out: str, seconds: float, status: int) -> None:
    problem = trainer.problem
    history = trainer.history
    history.write_csv(os.path.join(out, "history.csv"))
    error = trainer.relative_l2() if status == 0 else None
    axes, points, shape = problem.grid_points()
    u = trainer.predict(points)
    u_ref = problem.exact(points) if problem.exact else None
    fields = {name: axis for name, axis in axes.items()}
    m = u.shape[1]
    fields["u"] = u.reshape(shape) if m == 1 else u.reshape((*shape, m))
    if u_ref is not None:
        fields["u_ref"] = np.asarray(u_ref).reshape(fields["u"].shape)
    _write_npz(os.path.join(out, "prediction.npz"), fields)
    if plots.available() and m == 1 and len(axes) == 2:
        plots.fields(os.path.join(out, "solution.png"), axes, fields["u"], fields.get("u_ref"),
                     problem.name)  # fmt: skip
        plots.slices(os.path.join(out, "slices.png"), axes, fields["u"], fields.get("u_ref"),
                     "u")  # fmt: skip
        plots.losses(os.path.join(out, "loss.png"), history)
        figures = "solution.png, slices.png, loss.png"
    else:
        figures = "none (pip install 'leafgrad[plot]' for figures)"
    last = {name: values[-1] for name, values in history.terms.items()} if history.steps else {}
    metrics = {
        "problem": problem.name,
        "status": "ok" if status == 0 else "diverged",
        "relative_l2": error,
        "seconds": round(seconds, 3),
        "steps": trainer.step,
        "adam_steps": sum(p == "adam" for p in history.phases),
        "lbfgs_steps": sum(p == "lbfgs" for p in history.phases),
        "stop_reason": trainer.stop_reason or ("diverged" if status else "all steps done"),
        "final_loss": last,
        "coefficients": trainer.learned_coefficients(),
        "true_coefficients": problem.true_parameters,
        "settings": dataclasses.asdict(trainer.config),
    }
    write_text(os.path.join(out, "metrics.json"), json.dumps(metrics, indent=2) + "\n")
    if error is not None:
        print(f"relative L2 error: {error:.3e}  ({trainer.step} steps, {seconds:.1f} s)")
    for name, value in trainer.learned_coefficients().items():
        true = problem.true_parameters.get(name)
        versus = f" (true {true:.6g}, error {abs(value - true) / abs(true):.2%})" if true else ""
        print(f"learned {name} = {value:.6g}{versus}")
    print(f"wrote {out}/: metrics.json, history.csv, prediction.npz, checkpoint.lg; "
          f"figures: {figures}")  # fmt: skip


def _write_npz(path: str, arrays: dict) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    os.replace(tmp, path)
