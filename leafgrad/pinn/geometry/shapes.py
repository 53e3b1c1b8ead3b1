"""Two-dimensional shapes: Disk and Polygon."""

from __future__ import annotations

import numpy as np

from ..sampling import Seed, _check_count, sample_unit_cube
from .base import Geometry, WithNormals


class Disk(Geometry):
    """The closed disk of ``radius`` about ``center`` (dim 2).

    Interior samples map the unit square by r = radius * sqrt(u0), angle = 2 pi u1, which
    is uniform in area and keeps the spread of quasi-random methods.
    """

    def __init__(self, center: np.ndarray, radius: float):
        center = np.asarray(center, dtype=np.float64)
        if center.shape != (2,) or not np.isfinite(center).all():
            raise ValueError(f"Disk: center must be 2 finite coordinates, got {center}")
        if np.ndim(radius) != 0 or not (np.isfinite(radius) and radius > 0):
            raise ValueError(f"Disk: radius must be a positive finite number, got {radius}")
        self.center, self.radius = center, float(radius)
        super().__init__(center - radius, center + radius)

    @property
    def measure(self) -> float:
        return np.pi * self.radius**2

    def _distance_from_center(self, x: np.ndarray) -> np.ndarray:
        return np.hypot(x[:, 0] - self.center[0], x[:, 1] - self.center[1])

    def inside(self, x: np.ndarray) -> np.ndarray:
        return self._distance_from_center(self._as_points(x)) <= self.radius + self.tol

    def on_boundary(self, x: np.ndarray) -> np.ndarray:
        r = self._distance_from_center(self._as_points(x))
        return np.abs(r - self.radius) <= self.tol

    def _normals(self, x: np.ndarray) -> np.ndarray:
        return (x - self.center) / self._distance_from_center(x)[:, None]

    def _from_unit_cube(self, u: np.ndarray) -> np.ndarray:
        r = self.radius * np.sqrt(u[:, 0])
        angle = 2 * np.pi * u[:, 1]
        return self.center + np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1)

    def boundary_points(self, n: int, method: str = "uniform", seed: Seed = None) -> WithNormals:
        """Sample the circle by angle, 2 pi u with u from ``method``: (points, normals)."""
        n = _check_count(n, "Disk.boundary_points")
        angle = 2 * np.pi * sample_unit_cube(n, 1, method, seed)[:, 0]
        normals = np.stack([np.cos(angle), np.sin(angle)], axis=1)
        return self.center + self.radius * normals, normals


class Polygon(Geometry):
    """A simple polygon (dim 2) from its vertices in either orientation, stored anticlockwise.

    Simplicity (no crossing edges) is assumed, not checked; a closing repeat of the first
    vertex is dropped. A point at a vertex has the normalized sum of its edges' normals.
    """

    _unit_cube_fills = False

    def __init__(self, vertices: np.ndarray):
        v = np.asarray(vertices, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 2:
            raise ValueError(f"Polygon: vertices must have shape (M, 2), got {v.shape}")
        if len(v) > 3 and np.array_equal(v[0], v[-1]):
            v = v[:-1]
        if len(v) < 3 or not np.isfinite(v).all():
            raise ValueError(f"Polygon: needs at least 3 finite vertices, got {len(v)}")
        signed_area = 0.5 * np.sum(v[:, 0] * np.roll(v[:, 1], -1) - np.roll(v[:, 0], -1) * v[:, 1])
        self.vertices = v if signed_area > 0 else v[::-1].copy()
        self._area = abs(signed_area)
        super().__init__(v.min(axis=0), v.max(axis=0))
        self._edge_vectors = np.roll(self.vertices, -1, axis=0) - self.vertices
        self._edge_lengths = lengths = np.hypot(*self._edge_vectors.T)
        if lengths.min() <= self.tol or self._area <= self.tol * lengths.max():
            raise ValueError("Polygon: repeated consecutive vertices or no enclosed area")
        # Anticlockwise order puts the interior on the left of each edge, so outward is right.
        self._edge_normals = np.stack([self._edge_vectors[:, 1], -self._edge_vectors[:, 0]], 1)
        self._edge_normals /= self._edge_lengths[:, None]

    @property
    def measure(self) -> float:
        return self._area

    def _edge_distances(self, x: np.ndarray) -> np.ndarray:
        """Distance from each point to each edge: (N, M)."""
        offset = x[:, None, :] - self.vertices[None]
        along = np.sum(offset * self._edge_vectors, axis=2) / self._edge_lengths**2
        gap = offset - np.clip(along, 0, 1)[..., None] * self._edge_vectors
        return np.hypot(gap[..., 0], gap[..., 1])

    def on_boundary(self, x: np.ndarray) -> np.ndarray:
        return np.min(self._edge_distances(self._as_points(x)), axis=1) <= self.tol

    def inside(self, x: np.ndarray) -> np.ndarray:
        x = self._as_points(x)
        px, py = x[:, :1], x[:, 1:]
        (x0, y0), (x1, y1) = self.vertices.T, np.roll(self.vertices, -1, axis=0).T
        # Ray casting to +x: an odd number of edge crossings means inside; the boundary is
        # added separately because the ray test is arbitrary exactly on it.
        crosses = (y0 > py) != (y1 > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            crossing_x = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
        odd = np.sum(crosses & (px < crossing_x), axis=1) % 2 == 1
        return odd | self.on_boundary(x)

    def _normals(self, x: np.ndarray) -> np.ndarray:
        normal = (self._edge_distances(x) <= self.tol) @ self._edge_normals
        return normal / np.linalg.norm(normal, axis=1, keepdims=True)

    def boundary_points(self, n: int, method: str = "uniform", seed: Seed = None) -> WithNormals:
        """Sample the edges by arc length (perimeter * u, u from ``method``): (points, normals)."""
        n = _check_count(n, "Polygon.boundary_points")
        edge_starts = np.concatenate([[0.0], np.cumsum(self._edge_lengths)])
        s = edge_starts[-1] * sample_unit_cube(n, 1, method, seed)[:, 0]
        edge = np.clip(np.searchsorted(edge_starts, s, side="right") - 1, 0, len(self.vertices) - 1)
        fraction = (s - edge_starts[edge]) / self._edge_lengths[edge]
        x = self.vertices[edge] + fraction[:, None] * self._edge_vectors[edge]
        return x, self._normals(x)
