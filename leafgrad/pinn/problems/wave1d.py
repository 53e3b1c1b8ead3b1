"""The wave equation u_tt = c^2 u_xx on x in [0, 1], t in [0, 1], c = 1, with u(t, 0) =
u(t, 1) = 0, u_t(0, x) = 0 and u(0, x) = sin(pi x) + sin(3 pi x) / 2; exactly
u = sin(pi x) cos(pi t) + sin(3 pi x) cos(3 pi t) / 2 (two standing waves)."""

from __future__ import annotations

import numpy as np

from ... import cos, sin
from ..conditions import DirichletBC, InitialCondition
from ..geometry import Interval, SpaceTime, TimeDomain
from ..operators import partial
from ..problem import Problem

C = 1.0
PI = np.pi
GEOMETRY = SpaceTime(Interval(0.0, 1.0), TimeDomain(0.0, 1.0))


def _initial(p: np.ndarray) -> np.ndarray:
    return np.sin(PI * p[:, 0]) + 0.5 * np.sin(3 * PI * p[:, 0])


def _residual(x, u):
    return partial(u, x, 1, 1) - C**2 * partial(u, x, 0, 0)


def _solution(x):
    xs, t = x[:, 0:1], x[:, 1:2]
    return sin(PI * xs) * cos(C * PI * t) + 0.5 * sin(3 * PI * xs) * cos(3 * C * PI * t)


def _hard_constraint(x, y):
    # u(0, x) = u0(x), u_t(0, x) = 0 (the t^2 factor) and u = 0 at x = 0, 1 hold exactly.
    xs, t = x[:, 0:1], x[:, 1:2]
    u0 = sin(PI * xs) + 0.5 * sin(3 * PI * xs)
    return u0 + t * t * xs * (1 - xs) * y


def make() -> Problem:
    return Problem(
        name="wave1d",
        geometry=GEOMETRY,
        residual=_residual,
        conditions=[
            InitialCondition(GEOMETRY, _initial, name="initial", weight=10.0),
            InitialCondition(GEOMETRY, 0.0, order=1, name="initial_t", weight=10.0),
            DirichletBC(GEOMETRY, 0.0, name="boundary", weight=10.0),
        ],
        columns=("x", "t"),
        grid=lambda: {"x": np.linspace(0, 1, 101), "t": np.linspace(0, 1, 101)},
        solution=_solution,
        hard_constraint=_hard_constraint,
        hard_constrained=("initial", "initial_t", "boundary"),
        defaults={"width": 32, "depth": 4, "collocation": 3000, "boundary": 300,
                  "adam_steps": 2000, "lbfgs_steps": 1500, "hard_constraints": True},
        presets={"tiny": {"width": 8, "depth": 2, "collocation": 64, "boundary": 16,
                          "adam_steps": 20, "lbfgs_steps": 10, "checkpoint_every": 10}},
        description="u_tt = u_xx, two standing waves, fixed ends, starting at rest",
    )  # fmt: skip
