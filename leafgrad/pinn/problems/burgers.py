"""Viscous Burgers' equation, the PINN benchmark of Raissi et al. (2019), and its inverse.

u_t + u u_x = nu u_xx on x in [-1, 1], t in [0, 1], u(0, x) = -sin(pi x), u(t, +-1) = 0,
nu = 0.01 / pi. The reference solution comes from the Cole-Hopf transformation
(``_burgers_reference``). ``burgers-inverse`` learns nu from noisy observations of it.
"""

from __future__ import annotations

import math

import numpy as np

from ... import exp, float64, sin, tensor
from ..conditions import DirichletBC, InitialCondition, PointData
from ..geometry import Interval, SpaceTime, TimeDomain
from ..operators import partial
from ..problem import Problem
from ._burgers_reference import NU, burgers_reference

GEOMETRY = SpaceTime(Interval(-1.0, 1.0), TimeDomain(0.0, 1.0))


def _grid() -> dict:
    # The evaluation grid of prediction.npz: x (256,), t = 0.00, 0.01, ..., 0.99.
    return {"x": np.linspace(-1.0, 1.0, 256), "t": np.arange(100) * 0.01}


def _exact(points: np.ndarray) -> np.ndarray:
    return burgers_reference(points[:, 0], points[:, 1]).reshape(-1, 1)


def _hard_constraint(x, y):
    # u = -sin(pi x) + t (1 - x^2) N(x, t): the initial and boundary values hold exactly.
    xs, t = x[:, 0:1], x[:, 1:2]
    return -sin(math.pi * xs) + t * (1 - xs * xs) * y


def _conditions() -> list:
    return [
        InitialCondition(GEOMETRY, lambda p: -np.sin(np.pi * p[:, 0]), name="initial"),
        DirichletBC(GEOMETRY, 0.0, name="boundary"),
    ]


def _residual(nu):
    def residual(x, u):
        u_t, u_x, u_xx = partial(u, x, 1), partial(u, x, 0), partial(u, x, 0, 0)
        return u_t + u * u_x - nu() * u_xx

    return residual


# Measured on a 2-core x86-64 machine, one thread, float64 (README's table): the default
# reaches a relative L2 error below 1e-2 in under 5 minutes.
DEFAULTS = {
    "width": 20,
    "depth": 6,
    "collocation": 4000,
    "boundary": 200,
    "sampler": "lhs",
    "adam_steps": 2000,
    "lr": 2e-3,
    "lbfgs_steps": 2500,
    "hard_constraints": True,
    "time_limit": 270.0,
}
PRESETS = {
    # Raissi et al. 2019: 2 -> 20 x 8 -> 1, 10,000 LHS points, 100 initial/boundary points.
    "paper": {
        "width": 20, "depth": 8, "collocation": 10000, "boundary": 50, "adam_steps": 1000,
        "lr": 1e-3, "lbfgs_steps": 20000, "hard_constraints": False, "time_limit": 0.0,
    },
    "accurate": {
        "width": 20, "depth": 6, "collocation": 6000, "adam_steps": 3000, "lr": 2e-3,
        "resample_every": 500, "resample": "rad", "lbfgs_steps": 20000,
        "lbfgs_resample_every": 2000, "hard_constraints": True, "time_limit": 840.0,
    },
    "tiny": {
        "width": 8, "depth": 2, "collocation": 64, "boundary": 16, "adam_steps": 20,
        "lbfgs_steps": 10, "checkpoint_every": 10, "time_limit": 0.0,
    },
}  # fmt: skip


def make() -> Problem:
    """The forward problem: find u."""
    return Problem(
        name="burgers",
        geometry=GEOMETRY,
        residual=_residual(lambda: NU),
        conditions=_conditions(),
        columns=("x", "t"),
        grid=_grid,
        exact=_exact,
        hard_constraint=_hard_constraint,
        hard_constrained=("initial", "boundary"),
        defaults=DEFAULTS,
        presets=PRESETS,
        published={"paper": ("Raissi et al. 2019 (L-BFGS to convergence, GPU)", 6.7e-4)},
        description="1-D viscous Burgers, nu = 0.01/pi, shock at x = 0 (Raissi et al. 2019)",
    )


def make_inverse(observations: int = 2000, noise: float = 0.01, seed: int = 1234) -> Problem:
    """The inverse problem: learn nu (started at 0.05) from noisy observations of u."""
    rng = np.random.default_rng(seed)
    points = GEOMETRY.interior_points(observations, method="uniform", seed=rng)
    u = _exact(points)
    u_noisy = u + noise * np.std(u) * rng.standard_normal(u.shape)
    parameters = {"log_nu": tensor(math.log(0.05), dtype=float64)}

    def nu():
        return exp(parameters["log_nu"])

    problem = Problem(
        name="burgers-inverse",
        geometry=GEOMETRY,
        residual=_residual(nu),
        conditions=[PointData(points, u_noisy, geometry=GEOMETRY, weight=1.0, name="data")],
        columns=("x", "t"),
        grid=_grid,
        exact=_exact,
        parameters=parameters,
        true_parameters={"nu": NU},
        report=lambda p: {"nu": math.exp(p["log_nu"])},
        defaults={**DEFAULTS, "hard_constraints": False, "adam_steps": 3000},
        presets={"tiny": PRESETS["tiny"]},
        description=f"learn nu of Burgers from {observations} observations with {noise:.0%} noise",
    )
    return problem
