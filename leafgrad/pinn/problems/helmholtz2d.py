"""The Helmholtz equation Laplacian u + k^2 u = q on [-1, 1]^2 with u = 0 on the boundary,
k = 1 and q chosen so that u = sin(pi x) sin(4 pi y) is the exact solution."""

from __future__ import annotations

import numpy as np

from ... import sin
from ..conditions import DirichletBC
from ..geometry import Rectangle
from ..operators import laplacian
from ..problem import Problem

K = 1.0
A1, A2 = 1, 4
PI = np.pi
GEOMETRY = Rectangle([-1.0, -1.0], [1.0, 1.0])


def _residual(x, u):
    q = (K**2 - (A1**2 + A2**2) * PI**2) * _solution(x)
    return laplacian(u, x) + K**2 * u - q


def _solution(x):
    return sin(A1 * PI * x[:, 0:1]) * sin(A2 * PI * x[:, 1:2])


def _hard_constraint(x, y):
    xs, ys = x[:, 0:1], x[:, 1:2]
    return (1 - xs * xs) * (1 - ys * ys) * y


def make() -> Problem:
    return Problem(
        name="helmholtz2d",
        geometry=GEOMETRY,
        residual=_residual,
        conditions=[DirichletBC(GEOMETRY, 0.0, name="boundary", weight=10.0)],
        columns=("x", "y"),
        grid=lambda: {"x": np.linspace(-1, 1, 101), "y": np.linspace(-1, 1, 101)},
        solution=_solution,
        hard_constraint=_hard_constraint,
        hard_constrained=("boundary",),
        defaults={"width": 32, "depth": 4, "activation": "sin", "collocation": 4000,
                  "boundary": 400, "adam_steps": 2000, "lbfgs_steps": 1500,
                  "hard_constraints": True},
        presets={"tiny": {"width": 8, "depth": 2, "collocation": 64, "boundary": 16,
                          "adam_steps": 20, "lbfgs_steps": 10, "checkpoint_every": 10}},
        description="Laplacian u + u = q on [-1, 1]^2, u = sin(pi x) sin(4 pi y)",
    )  # fmt: skip
