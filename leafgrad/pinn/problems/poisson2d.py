"""Poisson's equation on the unit square: -Laplacian u = 2 pi^2 sin(pi x) sin(pi y), u = 0 on
the boundary; the exact solution is u = sin(pi x) sin(pi y)."""

from __future__ import annotations

import numpy as np

from ... import sin
from ..conditions import DirichletBC
from ..geometry import Rectangle
from ..operators import laplacian
from ..problem import Problem

GEOMETRY = Rectangle([0.0, 0.0], [1.0, 1.0])
PI = np.pi


def _residual(x, u):
    xs, ys = x[:, 0:1], x[:, 1:2]
    return laplacian(u, x) + 2 * PI**2 * sin(PI * xs) * sin(PI * ys)


def _solution(x):
    return sin(PI * x[:, 0:1]) * sin(PI * x[:, 1:2])


def _hard_constraint(x, y):
    # x (1 - x) y (1 - y) vanishes on the whole boundary.
    xs, ys = x[:, 0:1], x[:, 1:2]
    return xs * (1 - xs) * ys * (1 - ys) * y


def make() -> Problem:
    return Problem(
        name="poisson2d",
        geometry=GEOMETRY,
        residual=_residual,
        conditions=[DirichletBC(GEOMETRY, 0.0, name="boundary", weight=10.0)],
        columns=("x", "y"),
        grid=lambda: {"x": np.linspace(0, 1, 101), "y": np.linspace(0, 1, 101)},
        solution=_solution,
        hard_constraint=_hard_constraint,
        hard_constrained=("boundary",),
        defaults={"width": 20, "depth": 4, "collocation": 2000, "boundary": 400,
                  "adam_steps": 1000, "lbfgs_steps": 500},
        presets={"tiny": {"width": 8, "depth": 2, "collocation": 64, "boundary": 16,
                          "adam_steps": 20, "lbfgs_steps": 10, "checkpoint_every": 10}},
        description="-Laplacian u = 2 pi^2 sin(pi x) sin(pi y) on [0, 1]^2, u = 0 on the boundary",
    )  # fmt: skip
