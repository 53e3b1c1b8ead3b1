"""The heat equation u_t = alpha u_xx on x in [0, 1], t in [0, 1], alpha = 0.1, with
u(0, x) = sin(pi x) and u(t, 0) = u(t, 1) = 0; exactly u = exp(-alpha pi^2 t) sin(pi x)."""

from __future__ import annotations

import numpy as np

from ... import exp, sin
from ..conditions import DirichletBC, InitialCondition
from ..geometry import Interval, SpaceTime, TimeDomain
from ..operators import partial
from ..problem import Problem

ALPHA = 0.1
PI = np.pi
GEOMETRY = SpaceTime(Interval(0.0, 1.0), TimeDomain(0.0, 1.0))


def _residual(x, u):
    return partial(u, x, 1) - ALPHA * partial(u, x, 0, 0)


def _solution(x):
    return exp(-ALPHA * PI**2 * x[:, 1:2]) * sin(PI * x[:, 0:1])


def _hard_constraint(x, y):
    xs, t = x[:, 0:1], x[:, 1:2]
    return sin(PI * xs) + t * xs * (1 - xs) * y


def make() -> Problem:
    return Problem(
        name="heat1d",
        geometry=GEOMETRY,
        residual=_residual,
        conditions=[
            InitialCondition(GEOMETRY, lambda p: np.sin(PI * p[:, 0]), name="initial"),
            DirichletBC(GEOMETRY, 0.0, name="boundary"),
        ],
        columns=("x", "t"),
        grid=lambda: {"x": np.linspace(0, 1, 101), "t": np.linspace(0, 1, 101)},
        solution=_solution,
        hard_constraint=_hard_constraint,
        hard_constrained=("initial", "boundary"),
        defaults={"width": 20, "depth": 4, "collocation": 2000, "boundary": 200,
                  "adam_steps": 1000, "lbfgs_steps": 500},
        presets={"tiny": {"width": 8, "depth": 2, "collocation": 64, "boundary": 16,
                          "adam_steps": 20, "lbfgs_steps": 10, "checkpoint_every": 10}},
        description="u_t = 0.1 u_xx, u(0, x) = sin(pi x), u = 0 at x = 0, 1",
    )  # fmt: skip
