"""Domains for PINNs: interior and boundary points with outward unit normals, as NumPy arrays.

Points are float64 arrays of shape (N, dim); methods given anything else raise ValueError.
Every geometry is a closed set. ``inside`` and ``on_boundary`` allow 1e-12 times the
geometry's scale: its size, or its largest coordinate if larger, since coordinates far from
the origin carry more round-off.

Sampling methods are those of :mod:`.sampling`; every method other than ``"grid"`` returns
exactly n points. With ``"grid"``, n sets a resolution instead:

- interior: the cell-centred grid with k = ceil(n ** (1/dim)) points per axis over the
  bounding box, keeping those inside (k**dim points for a box, fewer for other shapes);
- boundary: n evenly spaced points where the boundary is a curve or a pair of endpoints;
  on a box of dim >= 3 each face gets its own grid, so the total can exceed n.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .sampling import Seed, _check_count, check_method, sample_unit_cube

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


class SpaceTime(Geometry):
    """The product space x [t0, t1]: rows are the space coordinates followed by t.

    ``on_boundary``, ``boundary_points`` and ``boundary_normal`` concern the lateral
    boundary (space boundary x time, normals with a zero time component); the initial slice
    has ``initial_points`` and ``on_initial``.
    """

    def __init__(self, space: Geometry, time: Interval):
        if not isinstance(space, Geometry) or isinstance(space, SpaceTime):
            raise ValueError(f"SpaceTime: space must be a spatial Geometry, got {space!r}")
        if not isinstance(time, Interval):
            raise ValueError(f"SpaceTime: time must be a TimeDomain, got {time!r}")
        self.space, self.time = space, time
        self._unit_cube_fills = space._unit_cube_fills
        (slo, shi), (tlo, thi) = space.bbox, time.bbox
        super().__init__(np.concatenate([slo, tlo]), np.concatenate([shi, thi]))

    @property
    def measure(self) -> float:
        return self.space.measure * self.time.measure

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self._as_points(x)
        return x[:, :-1], x[:, -1:]

    def inside(self, x: np.ndarray) -> np.ndarray:
        space_x, t = self._split(x)
        return self.space.inside(space_x) & self.time.inside(t)

    def on_boundary(self, x: np.ndarray) -> np.ndarray:
        space_x, t = self._split(x)
        return self.space.on_boundary(space_x) & self.time.inside(t)

    def on_initial(self, x: np.ndarray) -> np.ndarray:
        """Whether each point lies in the initial slice t = t0: bool (N,)."""
        space_x, t = self._split(x)
        return self.space.inside(space_x) & (np.abs(t[:, 0] - self.time.lo) <= self.time.tol)

    def _normals(self, x: np.ndarray) -> np.ndarray:
        return np.hstack([self.space._normals(x[:, :-1]), np.zeros((len(x), 1))])

    def _from_unit_cube(self, u: np.ndarray) -> np.ndarray:
        space_x = self.space._from_unit_cube(u[:, :-1])
        return np.hstack([space_x, self.time._from_unit_cube(u[:, -1:])])

    def boundary_points(self, n: int, method: str = "uniform", seed: Seed = None) -> WithNormals:
        """Sample the lateral boundary: (points (n, dim), normals (n, dim)).

        Space boundary points and times are drawn with ``method`` and paired row by row.
        ``"grid"`` takes the product of a space boundary grid of about n ** ((d-1)/d)
        points (both endpoints when d = 1) and enough cell-centred time levels to reach n.
        """
        n = _check_count(n, "SpaceTime.boundary_points")
        check_method(method)
        rng = np.random.default_rng(seed)
        if method == "grid":
            d = self.space.dim
            space_count = 2 if d == 1 else max(1, round(n ** ((d - 1) / d)))
            space_x, normals = self.space.boundary_points(space_count, "grid")
            levels = sample_unit_cube(int(np.ceil(n / space_count)), 1, "grid")
            t = np.tile(self.time._from_unit_cube(levels), (len(space_x), 1))
            space_x = np.repeat(space_x, len(levels), axis=0)
            normals = np.repeat(normals, len(levels), axis=0)
        else:
            space_x, normals = self.space.boundary_points(n, method, rng)
            t = self.time._from_unit_cube(sample_unit_cube(n, 1, method, rng))
        return np.hstack([space_x, t]), np.hstack([normals, np.zeros((len(t), 1))])

    def initial_points(self, n: int, method: str = "uniform", seed: Seed = None) -> np.ndarray:
        """Sample the space domain at t = t0: (n, dim); ``"grid"`` as for the space interior."""
        space_x = self.space.interior_points(n, method, seed)
        return np.hstack([space_x, np.full((len(space_x), 1), self.time.lo)])


def periodic_pairs(
    geometry: Geometry, n: int, axis: int, method: str = "uniform", seed: Seed = None
) -> tuple[np.ndarray, np.ndarray]:
    """Matched points on the two faces opposite along ``axis``: (lo_points, hi_points), (n, dim).

    Row i of both has the same coordinates except along ``axis``, where it is the bounding
    box's lo and hi. ``geometry`` is a Box (Rectangle, Interval) or a SpaceTime over one;
    the other coordinates are drawn with ``method`` (``"grid"``: k**(dim-1) rows as in
    :func:`.sampling.sample_unit_cube`).
    """
    space = geometry.space if isinstance(geometry, SpaceTime) else geometry
    if not isinstance(space, Box):
        raise ValueError(
            "periodic_pairs: needs a Box, Rectangle, Interval or a SpaceTime over one, "
            f"got {type(geometry).__name__}"
        )
    n = _check_count(n, "periodic_pairs")
    check_method(method)
    dim = geometry.dim
    if isinstance(axis, bool) or int(axis) != axis or not -dim <= axis < dim:
        raise ValueError(f"periodic_pairs: axis must be an integer in [{-dim}, {dim}), got {axis}")
    axis = int(axis) % dim
    lo, hi = geometry.bbox
    others = np.delete(np.arange(dim), axis)
    u = sample_unit_cube(n, others.size, method, seed) if others.size else np.empty((n, 0))
    lo_points = np.empty((len(u), dim))
    lo_points[:, others] = lo[others] + u * (hi - lo)[others]
    hi_points = lo_points.copy()
    lo_points[:, axis], hi_points[:, axis] = lo[axis], hi[axis]
    return lo_points, hi_points
