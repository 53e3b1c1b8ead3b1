"""The Geometry base class: what every domain answers, and how it samples."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..sampling import Seed, _check_count, check_method, sample_unit_cube

_REL_TOL = 1e-12

# Boundary samples: (points (n, dim), outward unit normals (n, dim)).
WithNormals = tuple[np.ndarray, np.ndarray]


class Geometry(ABC):
    """A closed domain in R^dim that can sample its interior and boundary."""

    # Whether _from_unit_cube lands every sample inside, so interior sampling needs no
    # rejection; shapes mapped through their bounding box set it False.
    _unit_cube_fills = True

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        self.dim = len(lo)
        self._lo, self._hi = lo, hi
        self.tol = _REL_TOL * max(np.max(hi - lo), np.max(np.abs(lo)), np.max(np.abs(hi)))

    @property
    def bbox(self) -> tuple[np.ndarray, np.ndarray]:
        """The bounding box as (lo, hi), each of shape (dim,)."""
        return self._lo.copy(), self._hi.copy()

    @property
    @abstractmethod
    def measure(self) -> float:
        """Length, area or volume."""

    @abstractmethod
    def inside(self, x: np.ndarray) -> np.ndarray:
        """Whether each point of x: (N, dim) lies in the closed domain: bool (N,)."""

    @abstractmethod
    def on_boundary(self, x: np.ndarray) -> np.ndarray:
        """Whether each point of x: (N, dim) lies on the boundary: bool (N,)."""

    @abstractmethod
    def boundary_points(self, n: int, method: str = "uniform", seed: Seed = None) -> WithNormals:
        """Sample the boundary: (points (n, dim), outward unit normals (n, dim))."""

    @abstractmethod
    def _normals(self, x: np.ndarray) -> np.ndarray:
        """Outward unit normals at points x already known to lie on the boundary."""

    def boundary_normal(self, x: np.ndarray) -> np.ndarray:
        """Outward unit normals (N, dim) at boundary points x: (N, dim).

        Raises ValueError if any point is not on the boundary.
        """
        x = self._as_points(x)
        off = ~self.on_boundary(x)
        if off.any():
            raise ValueError(
                f"{type(self).__name__}.boundary_normal: {off.sum()} of {len(x)} points are "
                f"not on the boundary (the first is {x[np.argmax(off)]})"
            )
        return self._normals(x)

    def interior_points(self, n: int, method: str = "uniform", seed: Seed = None) -> np.ndarray:
        """Sample n points of the closed domain: (n, dim); ``"grid"`` as in the module notes.

        Shapes without an exact map from the unit cube draw from their bounding box and keep
        the points inside, drawing again until n are found; a seed fixes the result.
        """
        n = _check_count(n, f"{type(self).__name__}.interior_points")
        check_method(method)
        if method == "grid":
            x = self._from_bbox(sample_unit_cube(n, self.dim, "grid"))
            return x[self.inside(x)]
        rng = np.random.default_rng(seed)
        if self._unit_cube_fills:
            return self._from_unit_cube(sample_unit_cube(n, self.dim, method, rng))
        acceptance = self.measure / np.prod(self._hi - self._lo)
        chunks, found = [], 0
        while found < n:
            # Oversampling makes one batch almost always enough; a short batch just loops.
            batch = int(np.ceil((n - found) / acceptance * 1.2)) + 16
            x = self._from_unit_cube(sample_unit_cube(batch, self.dim, method, rng))
            chunks.append(x[self.inside(x)])
            found += len(chunks[-1])
        return np.concatenate(chunks)[:n]

    def _from_bbox(self, u: np.ndarray) -> np.ndarray:
        return self._lo + u * (self._hi - self._lo)

    def _from_unit_cube(self, u: np.ndarray) -> np.ndarray:
        """Map unit-cube samples (N, dim) into the domain (or its bbox if not _unit_cube_fills)."""
        return self._from_bbox(u)

    def _as_points(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise ValueError(
                f"{type(self).__name__}: points must have shape (N, {self.dim}), got {x.shape}"
            )
        return x


def _split_by_weight(n: int, weights: np.ndarray) -> np.ndarray:
    """Split n into integer counts proportional to weights (largest remainder, ties by order)."""
    quotas = n * weights / weights.sum()
    counts = np.floor(quotas).astype(int)
    shortfall = n - counts.sum()
    counts[np.argsort(-(quotas - counts), kind="stable")[:shortfall]] += 1
    return counts
