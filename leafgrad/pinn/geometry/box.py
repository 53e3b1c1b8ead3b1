"""Axis-aligned boxes: Box (any dim), Rectangle, Interval and TimeDomain."""

from __future__ import annotations

import numpy as np

from ..sampling import Seed, _check_count, check_method, sample_unit_cube
from .base import Geometry, WithNormals, _split_by_weight


class Box(Geometry):
    """The axis-aligned box [lo_0, hi_0] x ... x [lo_{d-1}, hi_{d-1}] for any dim >= 1.

    A point on several faces (an edge or a corner) has the normalized sum of those faces'
    outward normals as its normal.
    """

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        name = type(self).__name__
        lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        if lo.ndim != 1 or lo.shape != hi.shape or lo.size == 0 or not np.isfinite([lo, hi]).all():
            raise ValueError(f"{name}: lo and hi must be finite, 1-D, one length, got {lo}, {hi}")
        if not np.all(lo < hi):
            raise ValueError(f"{name}: lo must be below hi on every axis, got lo={lo}, hi={hi}")
        super().__init__(lo, hi)
        if np.any(hi - lo <= 2 * self.tol):
            raise ValueError(f"{name}: too thin to tell its faces apart, lo={lo}, hi={hi}")

    @property
    def measure(self) -> float:
        return float(np.prod(self._hi - self._lo))

    def inside(self, x: np.ndarray) -> np.ndarray:
        x = self._as_points(x)
        return np.all((x >= self._lo - self.tol) & (x <= self._hi + self.tol), axis=1)

    def on_boundary(self, x: np.ndarray) -> np.ndarray:
        x = self._as_points(x)
        at_lo, at_hi = self._on_faces(x)
        return self.inside(x) & np.any(at_lo | at_hi, axis=1)

    def _on_faces(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.abs(x - self._lo) <= self.tol, np.abs(x - self._hi) <= self.tol

    def _normals(self, x: np.ndarray) -> np.ndarray:
        at_lo, at_hi = self._on_faces(x)
        normal = at_hi.astype(np.float64) - at_lo
        return normal / np.linalg.norm(normal, axis=1, keepdims=True)

    def boundary_points(self, n: int, method: str = "uniform", seed: Seed = None) -> WithNormals:
        """Sample the faces, n split over them in proportion to their measure: (points, normals).

        Faces come in order (axis 0 lo, axis 0 hi, axis 1 lo, ...); each face is sampled
        with ``method``. A 0-dimensional face (an interval's endpoint) repeats its point.
        """
        n = _check_count(n, f"{type(self).__name__}.boundary_points")
        check_method(method)
        rng = np.random.default_rng(seed)
        extent = self._hi - self._lo
        face_measure = np.repeat([np.prod(np.delete(extent, a)) for a in range(self.dim)], 2)
        chunks = []
        for face, count in enumerate(_split_by_weight(n, face_measure)):
            if count == 0:
                continue
            axis, at_hi = divmod(face, 2)
            others = np.delete(np.arange(self.dim), axis)
            if others.size:
                u = sample_unit_cube(count, others.size, method, rng)
            else:
                u = np.empty((count, 0))
            x = np.empty((len(u), self.dim))
            x[:, others] = self._lo[others] + u * extent[others]
            x[:, axis] = self._hi[axis] if at_hi else self._lo[axis]
            chunks.append(x)
        x = np.concatenate(chunks)
        return x, self._normals(x)


class Rectangle(Box):
    """The axis-aligned rectangle [lo_0, hi_0] x [lo_1, hi_1]: a Box with dim 2."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        if np.shape(lo) != (2,) or np.shape(hi) != (2,):
            raise ValueError(f"Rectangle: lo and hi need 2 coordinates each, got {lo}, {hi}")
        super().__init__(lo, hi)


class Interval(Box):
    """The closed interval [lo, hi] (dim 1); its boundary is the two endpoints.

    ``boundary_points(n)`` puts ceil(n/2) points at lo (normal -1) then floor(n/2) at hi (+1).
    """

    def __init__(self, lo: float, hi: float):
        if np.ndim(lo) != 0 or np.ndim(hi) != 0:
            raise ValueError(f"{type(self).__name__}: lo and hi must be scalars, got {lo}, {hi}")
        super().__init__([lo], [hi])
        self.lo, self.hi = float(lo), float(hi)


class TimeDomain(Interval):
    """The time axis [t0, t1]: an Interval."""

    def __init__(self, t0: float, t1: float):
        super().__init__(t0, t1)
        self.t0, self.t1 = self.lo, self.hi
