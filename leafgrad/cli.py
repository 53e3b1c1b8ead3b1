"""The ``leafgrad`` command.

``leafgrad solve PROBLEM`` trains a PINN on a benchmark problem; ``leafgrad run script.py``
runs a PyTorch script on leafgrad (``import torch`` resolves to leafgrad).
"""

from __future__ import annotations

import argparse
import os

from ._as_torch import run as run_as_torch
from .pinn import cli as pinn_cli
from .utils import tune_malloc


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="leafgrad", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    solve = commands.add_parser(
        "solve", help="train a PINN on a benchmark problem", description=pinn_cli.__doc__
    )
    pinn_cli.add_arguments(solve)
    solve.set_defaults(run=pinn_cli.solve, subparser=solve)
    run = commands.add_parser(
        "run",
        help="run a PyTorch script with torch bound to leafgrad",
        description="Run SCRIPT as `python SCRIPT ARGS` would, `import torch` giving leafgrad.",
    )
    run.add_argument("-m", dest="module", action="store_true", help="run a module, as python -m")
    run.add_argument("script", help="the script (or, with -m, the module) to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    run.set_defaults(run=_run_script, subparser=run)
    return parser


def _run_script(args, parser) -> int:
    # A missing script is a usage error; whatever the script itself raises (a data file it
    # cannot find included) propagates with its traceback, exit status 1, as under python.
    if not args.module and not os.path.exists(args.script):
        parser.error(f"leafgrad run: no such script: {args.script!r}")
    run_as_torch(args.script, args.args, module=args.module)
    return 0


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.run(args, args.subparser)


def program() -> int:
    """The ``leafgrad`` program: ``main`` in a process of its own, so it tunes malloc for it.

    ``main`` itself leaves malloc alone, for callers that share their process (tests,
    notebooks). Tuned, a Burgers training run has 15x fewer page faults.
    """
    tune_malloc()
    return main()


if __name__ == "__main__":
    raise SystemExit(program())
