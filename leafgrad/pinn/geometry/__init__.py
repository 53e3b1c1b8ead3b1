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

from .base import Geometry
from .box import Box, Interval, Rectangle, TimeDomain
from .shapes import Disk, Polygon
from .spacetime import SpaceTime, periodic_pairs

__all__ = [
    "Box", "Disk", "Geometry", "Interval", "Polygon", "Rectangle", "SpaceTime", "TimeDomain",
    "periodic_pairs",
]  # fmt: skip
