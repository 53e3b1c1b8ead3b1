"""Space-time domains (space x [t0, t1]) and periodic point pairs."""

from __future__ import annotations

import numpy as np

from ..sampling import Seed, _check_count, check_method, sample_unit_cube
from .base import Geometry, WithNormals
from .box import Box, Interval


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
