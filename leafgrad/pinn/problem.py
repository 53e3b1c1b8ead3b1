"""A PINN problem: a domain, a residual written with the operators, conditions, a reference."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import float64, no_grad, tensor


@dataclass
class Problem:
    """What to solve; :func:`leafgrad.pinn.solve` trains a network on it.

    ``residual(x, u)``: x the (N, d) collocation points (a tensor that requires grad), u the
    network's (N, m) output there; returns the (N, k) residual, or a list of them for a
    system. ``parameters``: trainable PDE coefficients (leaf tensors that require grad, used
    by ``residual``); ``report`` turns their values into the coefficients to report (e.g.
    ``nu`` from ``log_nu``) and ``true_parameters`` gives those coefficients' true values.
    ``exact(points) -> (M, m)``: the exact or reference solution as NumPy, for the error;
    ``solution(x) -> u``: the exact solution in leafgrad ops where one is known in closed
    form (``exact`` then defaults to it).
    ``grid()``: the evaluation grid: a dict of named axes (e.g. ``{"x": (256,), "t": (100,)}``)
    whose product, in that key order, gives the points; the prediction has shape
    ``tuple(len(axis) for axis in reversed(axes))`` (e.g. ``(100, 256)`` for ``u[t, x]``).
    ``columns``: the names of the input columns, in order (e.g. ``("x", "t")``).
    ``hard_constraint(x, y)``: an output transform that satisfies some conditions exactly.
    ``periodic``: ``{column: period}`` built into the network's inputs (see ``MLP``) when hard
    constraints are on; name the periodic conditions this replaces in ``hard_constrained``.
    ``defaults``: training settings that suit the problem (see ``TrainConfig``).
    """

    name: str
    geometry: object
    residual: Callable
    conditions: list
    columns: tuple
    grid: Callable[[], dict]
    exact: Callable | None = None
    solution: Callable | None = None
    outputs: tuple = ("u",)
    parameters: dict = field(default_factory=dict)
    true_parameters: dict = field(default_factory=dict)
    hard_constraint: Callable | None = None
    hard_constrained: tuple = ()  # names of the conditions the hard constraint replaces
    periodic: dict = field(default_factory=dict)
    report: Callable[[dict], dict] | None = None  # trained parameters -> reported coefficients
    defaults: dict = field(default_factory=dict)
    presets: dict = field(default_factory=dict)
    published: dict = field(default_factory=dict)  # preset -> (source, relative L2 error)
    description: str = ""

    def __post_init__(self) -> None:
        if self.exact is None and self.solution is not None:
            self.exact = self._exact_from_solution

    def _exact_from_solution(self, points: np.ndarray) -> np.ndarray:
        with no_grad():
            return self.solution(tensor(points, dtype=float64)).numpy()

    @property
    def dim(self) -> int:
        return len(self.columns)

    def grid_points(self) -> tuple[dict, np.ndarray, tuple]:
        """``(axes, points (M, d), shape)`` of the evaluation grid, last axis varying slowest."""
        axes = self.grid()
        names = list(axes)
        if [n for n in self.columns] != names:
            raise ValueError(
                f"{self.name}: grid axes {names} must be the input columns {list(self.columns)}"
            )
        mesh = np.meshgrid(*[axes[n] for n in reversed(names)], indexing="ij")
        points = np.stack([m.reshape(-1) for m in reversed(mesh)], axis=1)
        shape = tuple(len(axes[n]) for n in reversed(names))
        return axes, points, shape
