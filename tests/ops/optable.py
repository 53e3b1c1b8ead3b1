"""The op table: one OpSample per op overload (and per interesting variant) drives gradcheck
and gradgradcheck in float64. Each op family lists its samples in ``samples_<family>.py``.

Samples name the registry's keys, PyTorch's ``name.overload`` (``sum.dim_IntList``,
``clamp_min.Tensor``), so the guards see every overload, and ``exercised`` checks that a
sample really calls what it names."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import leafgrad as lg
from leafgrad import _compiled
from leafgrad.ops import arithmetic


@dataclass
class OpSample:
    """``fn`` applied to float64 inputs of ``shapes`` drawn uniformly from ``domain``.

    ``name``: the registry key (``name.overload``) of the primitive it is about; ``covers``:
    the keys it exercises, forward or backward, when more than that one.
    ``make_inputs(rng)`` overrides the drawing (e.g. SPD matrices or distinct values).
    ``gradgrad=False`` needs a ``reason``.
    ``round_off``: the dtype whose round-off its results carry (``"float32"`` for a round trip
    through float32): two float64 computations of its derivatives (forward and reverse mode)
    agree to that dtype's ``"direct"`` tolerance.
    """

    name: str
    fn: Callable
    shapes: tuple
    domain: tuple = (-2.0, 2.0)
    covers: tuple = ()
    make_inputs: Callable | None = None
    gradgrad: bool = True
    reason: str = ""
    atol: float = 1e-5
    rtol: float = 1e-3
    eps: float = 1e-6
    round_off: str = "float64"
    id: str = field(default="")

    def inputs(self, seed: int = 0) -> tuple:
        rng = np.random.default_rng(seed)
        if self.make_inputs is not None:
            arrays = self.make_inputs(rng)
        else:
            lo, hi = self.domain
            arrays = [rng.uniform(lo, hi, size=s) for s in self.shapes]
        return tuple(lg.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays)

    @property
    def covered(self) -> tuple:
        return self.covers or (self.name,)

    @property
    def test_id(self) -> str:
        return self.id or f"{self.name}-{'x'.join(str(s) for s in self.shapes)}"


def away_from(points, margin=0.1, lo=-2.0, hi=2.0):
    """Inputs maker drawing values at least ``margin`` from each kink in ``points``."""

    def make(shapes):
        def inner(rng):
            out = []
            for s in shapes:
                v = rng.uniform(lo, hi, size=s)
                for p in points:
                    close = np.abs(v - p) < margin
                    v = np.where(close, p + np.sign(v - p + 1e-12) * (margin + 0.05), v)
                out.append(v)
            return out

        return inner

    return make


# Every op shares the code object of the closure ``primitive`` builds, and names itself ``op``.
_OP_CODE = arithmetic.mul.__code__


def exercised(sample: OpSample) -> set:
    """The registry keys of the primitives ``sample`` calls, in its forward and in a backward
    pass that records a graph (so rules that call primitives count too)."""
    if _compiled.running_compiled("leafgrad.ops._primitive"):
        # A compiled op runs no Python frame to profile: ask the pure-Python source.
        return set(_exercised_by_pure_python()[sample.test_id])
    return _exercised_here(sample)


@functools.cache
def _exercised_by_pure_python() -> dict:
    """``exercised`` for every sample of the table, from one process running the source."""
    code = (
        "import json\n"
        "from tests.ops.optable import exercised\n"
        "from tests.ops.test_op_table import SAMPLES\n"
        "print(json.dumps({s.test_id: sorted(exercised(s)) for s in SAMPLES}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "LEAFGRAD_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def _exercised_here(sample: OpSample) -> set:
    keys = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is _OP_CODE:
            keys.add(frame.f_locals["op"].primitive.key)

    inputs = sample.inputs()
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        out = sample.fn(*inputs)
        outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad]
        if outs:
            lg.autograd.grad([o.sum() for o in outs], inputs, create_graph=True, allow_unused=True)
    finally:
        sys.setprofile(previous)
    return keys
