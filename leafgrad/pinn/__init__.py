"""Physics-informed neural networks: derivative operators, geometry, conditions, training.

A problem is a geometry, a residual written with the operators, and conditions::

    from leafgrad import pinn

    geometry = pinn.SpaceTime(pinn.Interval(0, 1), pinn.TimeDomain(0, 1))
    problem = pinn.Problem(
        name="heat",
        geometry=geometry,
        residual=lambda x, u: pinn.partial(u, x, 1) - 0.1 * pinn.partial(u, x, 0, 0),
        conditions=[pinn.InitialCondition(geometry, lambda p: np.sin(np.pi * p[:, 0])),
                    pinn.DirichletBC(geometry, 0.0)],
        columns=("x", "t"),
        grid=lambda: {"x": np.linspace(0, 1, 101), "t": np.linspace(0, 1, 101)},
    )
    trainer = pinn.solve(problem, adam_steps=1000, lbfgs_steps=500)

``leafgrad solve PROBLEM`` does the same for the benchmark problems in ``pinn.problems``.
"""

from . import problems
from .conditions import (
    Condition,
    DirichletBC,
    InitialCondition,
    NeumannBC,
    PeriodicBC,
    PointData,
    RobinBC,
)
from .config import TrainConfig
from .geometry import (
    Box,
    Disk,
    Geometry,
    Interval,
    Polygon,
    Rectangle,
    SpaceTime,
    TimeDomain,
    periodic_pairs,
)
from .history import History
from .network import MLP
from .operators import (
    Evaluation,
    divergence,
    grad,
    hessian,
    jacobian,
    laplacian,
    partial,
)
from .problem import Problem
from .sampling import sample_unit_cube
from .trainer import Trainer, TrainingDiverged, solve

__all__ = [
    # operators
    "Evaluation", "divergence", "grad", "hessian", "jacobian", "laplacian", "partial",
    # geometry and sampling
    "Box", "Disk", "Geometry", "Interval", "Polygon", "Rectangle", "SpaceTime", "TimeDomain",
    "periodic_pairs", "sample_unit_cube",
    # conditions
    "Condition", "DirichletBC", "InitialCondition", "NeumannBC", "PeriodicBC", "PointData",
    "RobinBC",
    # problems and training
    "MLP", "History", "Problem", "TrainConfig", "Trainer", "TrainingDiverged", "problems",
    "solve",
]  # fmt: skip
