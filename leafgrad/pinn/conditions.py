"""Initial, boundary and data conditions: each a loss term on its own points, with a weight.

A condition samples its points once per training run (and again when the trainer resamples),
evaluates the network there and returns the mean squared misfit. ``value`` arguments are a
number or a function of the points ``x`` (an (N, d) NumPy array) returning (N,) or (N, 1).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .. import cat, tensor
from .geometry import periodic_pairs
from .operators import Evaluation, grad, partial

__all__ = [
    "Condition",
    "DirichletBC",
    "InitialCondition",
    "NeumannBC",
    "PeriodicBC",
    "PointData",
    "RobinBC",
]


def _values(value, x: np.ndarray, name: str) -> np.ndarray:
    """``value`` at points ``x`` as an (N, 1) array."""
    out = value(x) if callable(value) else np.full(len(x), float(value))
    out = np.asarray(out, dtype=np.float64)
    if out.shape not in ((len(x),), (len(x), 1)):
        raise ValueError(
            f"{name}: the value function returned shape {out.shape} for {len(x)} points; "
            f"expected ({len(x)},) or ({len(x)}, 1)"
        )
    return out.reshape(len(x), 1)


class Condition(ABC):
    """A loss term: ``weight * mean(misfit ** 2)`` over the condition's points."""

    kind = "condition"

    def __init__(self, n: int, weight: float, component: int, name: str | None) -> None:
        # n None: the trainer's TrainConfig.boundary points.
        if n is not None and (not isinstance(n, int) or n < 1):
            raise ValueError(f"{type(self).__name__}: n must be a positive int, got {n!r}")
        self.n = n
        self.weight = float(weight)
        self.component = component
        self.name = name or self.kind
        self.points: np.ndarray | None = None

    def sample(self, method: str, rng: np.random.Generator) -> None:  # noqa: B027
        """Draw this condition's points; conditions on fixed points keep theirs."""

    def setup(self, dtype) -> None:
        """Turn the sampled points and targets into tensors of ``dtype``."""
        self._x = tensor(self.points, dtype=dtype)
        self._target = tensor(self.targets(), dtype=dtype)

    def targets(self) -> np.ndarray:
        return np.zeros((len(self.points), 1))

    @abstractmethod
    def misfit(self, model, method: str):
        """The (N, 1) misfit of ``model`` at the condition's points."""

    def loss(self, model, method: str):
        r = self.misfit(model, method)
        return (r * r).mean()

    def _check_inside(self, geometry, points: np.ndarray) -> None:
        if points.ndim != 2 or points.shape[1] != geometry.dim:
            raise ValueError(
                f"{self.name}: points must be (N, {geometry.dim}) for this geometry, got "
                f"{points.shape}"
            )
        outside = ~geometry.inside(points)
        if outside.any():
            raise ValueError(
                f"{self.name}: {int(outside.sum())} of {len(points)} points lie outside the "
                f"geometry, e.g. {points[outside][0].tolist()}"
            )


class _OnBoundary(Condition):
    """Points on a geometry's boundary, optionally only where ``where(x)`` holds."""

    def __init__(self, geometry, value, n, where, weight, component, name) -> None:
        super().__init__(n, weight, component, name)
        self.geometry = geometry
        self.value = value
        self.where = where

    def sample(self, method: str, rng: np.random.Generator) -> None:
        points, normals = _boundary_where(self.geometry, self.n, self.where, method, rng, self.name)
        self.points, self.normals = points, normals

    def targets(self) -> np.ndarray:
        return _values(self.value, self.points, self.name)

    def setup(self, dtype) -> None:
        super().setup(dtype)
        self._normals = tensor(self.normals, dtype=dtype)


def _boundary_where(geometry, n, where, method, rng, name):
    """``n`` boundary points (and normals) where ``where`` holds, drawn in rounds."""
    if where is None:
        return geometry.boundary_points(n, method=method, seed=rng)
    got_points, got_normals, have = [], [], 0
    for _ in range(50):
        points, normals = geometry.boundary_points(max(2 * n, 16), method="uniform", seed=rng)
        keep = np.asarray(where(points), dtype=bool).reshape(-1)
        got_points.append(points[keep])
        got_normals.append(normals[keep])
        have += int(keep.sum())
        if have >= n:
            return np.concatenate(got_points)[:n], np.concatenate(got_normals)[:n]
    raise ValueError(f"{name}: the where= filter keeps (almost) no boundary points")


class DirichletBC(_OnBoundary):
    """``u = value`` on the boundary (or the part of it where ``where(x)`` is true)."""

    kind = "dirichlet"

    def __init__(
        self, geometry, value=0.0, n=None, *, where=None, weight=1.0, component=None, name=None
    ) -> None:
        super().__init__(geometry, value, n, where, weight, component, name)

    def misfit(self, model, method: str):
        u = model(self._x)
        return u[:, _index(u, self.component, self.name)] - self._target


class NeumannBC(_OnBoundary):
    """``du/dn = value`` (outward normal derivative) on the boundary."""

    kind = "neumann"

    def __init__(
        self, geometry, value=0.0, n=None, *, where=None, weight=1.0, component=None, name=None
    ) -> None:
        super().__init__(geometry, value, n, where, weight, component, name)

    def misfit(self, model, method: str):
        with Evaluation(model, self._x, method) as ev:
            du_dn = _normal_derivative(ev, self._normals, self.component, self.name)
            return du_dn - self._target


class RobinBC(_OnBoundary):
    """``a u + b du/dn = value`` on the boundary."""

    kind = "robin"

    def __init__(
        self,
        geometry,
        a: float,
        b: float,
        value=0.0,
        n=None,
        *,
        where=None,
        weight=1.0,
        component=None,
        name=None,
    ) -> None:
        super().__init__(geometry, value, n, where, weight, component, name)
        self.a, self.b = float(a), float(b)

    def misfit(self, model, method: str):
        with Evaluation(model, self._x, method) as ev:
            c = _index(ev.output, self.component, self.name)
            du_dn = _normal_derivative(ev, self._normals, self.component, self.name)
            return self.a * ev.output[:, c] + self.b * du_dn - self._target


def _normal_derivative(ev: Evaluation, normals, component, name):
    c = _index(ev.output, component, name)
    g = grad(ev.output, ev.inputs, component=c.start)
    return (g * normals).sum(dim=1, keepdim=True)


def _index(u, component, name) -> slice:
    """The (N, 1) column of ``u`` that ``component`` names, as a slice."""
    m = u.shape[1]
    if component is None:
        if m != 1:
            raise ValueError(f"{name}: the network has {m} outputs; say which with component=")
        component = 0
    if not -m <= component < m:
        raise IndexError(f"{name}: component {component} is out of range for {m} outputs")
    component %= m
    return slice(component, component + 1)


class InitialCondition(Condition):
    """``u(x, t0) = value`` (``order=0``) or ``du/dt(x, t0) = value`` (``order=1``).

    ``geometry`` is a space-time domain; its last column is time.
    """

    kind = "initial"

    def __init__(
        self, geometry, value=0.0, n=None, *, order: int = 0, weight=1.0, component=None, name=None
    ) -> None:
        if order not in (0, 1):
            raise ValueError(f"InitialCondition: order must be 0 or 1, got {order!r}")
        super().__init__(n, weight, component, name or ("initial" if order == 0 else "initial_t"))
        self.geometry, self.value, self.order = geometry, value, order

    def sample(self, method: str, rng: np.random.Generator) -> None:
        self.points = self.geometry.initial_points(self.n, method=method, seed=rng)

    def targets(self) -> np.ndarray:
        return _values(self.value, self.points, self.name)

    def misfit(self, model, method: str):
        if self.order == 0:
            u = model(self._x)
            return u[:, _index(u, self.component, self.name)] - self._target
        with Evaluation(model, self._x, method) as ev:
            c = _index(ev.output, self.component, self.name).start
            return partial(ev.output, ev.inputs, self._x.shape[1] - 1, component=c) - self._target


class PeriodicBC(Condition):
    """``u`` (and, with ``derivative=True``, ``du/dx_axis``) equal on opposite faces."""

    kind = "periodic"

    def __init__(
        self,
        geometry,
        axis: int,
        n=None,
        *,
        derivative: bool = False,
        weight=1.0,
        component=None,
        name=None,
    ) -> None:
        super().__init__(n, weight, component, name)
        self.geometry, self.axis, self.derivative = geometry, axis, derivative

    def sample(self, method: str, rng: np.random.Generator) -> None:
        lo, hi = periodic_pairs(self.geometry, self.n, self.axis, method=method, seed=rng)
        self.points = np.concatenate([lo, hi])

    def misfit(self, model, method: str):
        n = len(self.points) // 2
        with Evaluation(model, self._x, method) as ev:
            c = _index(ev.output, self.component, self.name)
            u = ev.output[:, c]
            terms = [u[:n] - u[n:]]
            if self.derivative:
                du = partial(ev.output, ev.inputs, self.axis, component=c.start)
                terms.append(du[:n] - du[n:])
        return cat(terms, dim=0)


class PointData(Condition):
    """Observations ``u(points) = values``: the data term of an inverse problem."""

    kind = "data"

    def __init__(
        self, points, values, *, geometry=None, weight=1.0, component=None, name=None
    ) -> None:
        points = np.asarray(points, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        super().__init__(len(points), weight, component, name)
        if values.shape not in ((len(points),), (len(points), 1)):
            raise ValueError(
                f"{self.name}: {len(points)} points but values of shape {values.shape}"
            )
        if geometry is not None:
            self._check_inside(geometry, points)
        self.points, self.values = points, values.reshape(-1, 1)

    def targets(self) -> np.ndarray:
        return self.values

    def misfit(self, model, method: str):
        u = model(self._x)
        return u[:, _index(u, self.component, self.name)] - self._target
