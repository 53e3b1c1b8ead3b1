"""Geometries: samplers land where they should, normals point outward, bad input is refused."""

import numpy as np
import pytest

from leafgrad.pinn.geometry import (
    Box,
    Disk,
    Interval,
    Polygon,
    Rectangle,
    SpaceTime,
    TimeDomain,
    periodic_pairs,
)
from leafgrad.pinn.sampling import METHODS

RANDOM_METHODS = [m for m in METHODS if m != "grid"]
# Given clockwise, so the tests also check that orientation does not flip the normals.
L_SHAPE = [[0, 0], [0, 2], [1, 2], [1, 1], [2, 1], [2, 0]]

GEOMETRIES = {
    "interval": lambda: Interval(-1.0, 2.0),
    "rectangle": lambda: Rectangle([0.0, -1.0], [2.0, 1.0]),
    "box3": lambda: Box([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]),
    "disk": lambda: Disk([1.0, -0.5], 2.0),
    "triangle": lambda: Polygon([[0, 0], [3, 0], [0, 1]]),
    "l_shape": lambda: Polygon(L_SHAPE),
    "interval_x_time": lambda: SpaceTime(Interval(0.0, 1.0), TimeDomain(0.0, 1.0)),
    "rectangle_x_time": lambda: SpaceTime(Rectangle([0, 0], [1, 2]), TimeDomain(1.0, 3.0)),
    "disk_x_time": lambda: SpaceTime(Disk([0.0, 0.0], 1.0), TimeDomain(0.0, 2.0)),
    "l_shape_x_time": lambda: SpaceTime(Polygon(L_SHAPE), TimeDomain(0.5, 1.0)),
}


@pytest.fixture(params=list(GEOMETRIES), ids=list(GEOMETRIES))
def geometry(request):
    return GEOMETRIES[request.param]()


def _outside(geometry, x):
    return ~geometry.inside(x)


@pytest.mark.parametrize("method", RANDOM_METHODS)
def test_interior_points_are_inside_with_the_requested_count(geometry, method):
    x = geometry.interior_points(123, method, seed=0)
    assert x.shape == (123, geometry.dim)
    assert x.dtype == np.float64
    assert geometry.inside(x).all()


def test_grid_interior_keeps_the_bbox_grid_points_inside(geometry):
    x = geometry.interior_points(100, "grid")
    k = int(np.ceil(100 ** (1 / geometry.dim) - 1e-9))
    assert geometry.inside(x).all()
    assert 0 < len(x) <= k**geometry.dim
    if isinstance(geometry, Box):
        assert len(x) == k**geometry.dim


@pytest.mark.parametrize("method", RANDOM_METHODS)
def test_boundary_points_are_on_the_boundary_with_outward_unit_normals(geometry, method):
    x, normals = geometry.boundary_points(101, method, seed=1)
    assert x.shape == normals.shape == (101, geometry.dim)
    assert geometry.on_boundary(x).all()
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-12)
    eps = 1e-6
    assert _outside(geometry, x + eps * normals).all()
    assert geometry.inside(x - eps * normals).all()
    np.testing.assert_allclose(geometry.boundary_normal(x), normals, atol=1e-12)


def test_grid_boundary_points_are_on_the_boundary(geometry):
    x, normals = geometry.boundary_points(50, "grid")
    assert len(x) >= 50
    assert geometry.on_boundary(x).all()
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("method", RANDOM_METHODS)
def test_same_seed_repeats_samples_and_different_seeds_differ(geometry, method):
    a = geometry.interior_points(40, method, seed=7)
    np.testing.assert_array_equal(a, geometry.interior_points(40, method, seed=7))
    assert not np.array_equal(a, geometry.interior_points(40, method, seed=8))
    b, _ = geometry.boundary_points(40, method, seed=7)
    np.testing.assert_array_equal(b, geometry.boundary_points(40, method, seed=7)[0])
    if geometry.dim > 1:  # an interval's boundary is its two endpoints whatever the seed
        assert not np.array_equal(b, geometry.boundary_points(40, method, seed=8)[0])


def test_boundary_normal_of_an_interior_point_raises(geometry):
    interior = geometry.interior_points(1, "uniform", seed=0)
    with pytest.raises(ValueError, match=rf"{type(geometry).__name__}\.boundary_normal"):
        geometry.boundary_normal(interior)


def test_points_of_the_wrong_shape_raise_naming_the_class(geometry):
    name = type(geometry).__name__
    for bad in (np.zeros(geometry.dim), np.zeros((4, geometry.dim + 1))):
        with pytest.raises(ValueError, match=rf"{name}: points must have shape \(N, "):
            geometry.inside(bad)


def test_inside_allows_round_off_but_not_more():
    square = Rectangle([0.0, 0.0], [1.0, 1.0])
    assert square.inside([[1 + 1e-14, 0.5], [-1e-14, 0.5]]).all()
    assert not square.inside([[1 + 1e-6, 0.5]]).any()
    assert square.on_boundary([[1 + 1e-14, 0.5]]).all()
    assert not square.on_boundary([[0.5, 0.5]]).any()


def test_interval_boundary_splits_points_between_the_endpoints():
    x, normals = Interval(-1.0, 2.0).boundary_points(5)
    np.testing.assert_array_equal(x[:, 0], [-1, -1, -1, 2, 2])
    np.testing.assert_array_equal(normals[:, 0], [-1, -1, -1, 1, 1])


def test_box_boundary_points_are_spread_over_faces_in_proportion_to_area():
    box = Box([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])  # face areas 6, 3, 2, each twice: 22 in all
    _, normals = box.boundary_points(2200, "uniform", seed=0)
    faces = {tuple(f): c for f, c in zip(*np.unique(normals, axis=0, return_counts=True))}
    for axis, area in enumerate([6, 3, 2]):
        for sign in (-1, 1):
            face = tuple(sign * np.eye(3)[axis])
            assert faces[face] == 2200 * area // 22


def test_box_face_points_are_spread_over_the_face():
    rectangle = Rectangle([0.0, 0.0], [4.0, 1.0])
    x, normals = rectangle.boundary_points(10000, "uniform", seed=0)
    bottom = x[normals[:, 1] == -1]
    # Uniform on [0, 4]: the fraction left of 1 is 1/4; sigma ~ 0.006 for ~4000 points.
    assert abs(np.mean(bottom[:, 0] < 1) - 0.25) < 0.03


def test_corner_and_edge_normals_are_the_normalized_sum_of_the_faces():
    box = Box([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    normals = box.boundary_normal([[0, 0, 0], [1, 1, 0.5], [1, 0.5, 0.5]])
    np.testing.assert_allclose(normals[0], -np.ones(3) / np.sqrt(3))
    np.testing.assert_allclose(normals[1], [1 / np.sqrt(2), 1 / np.sqrt(2), 0])
    np.testing.assert_allclose(normals[2], [1, 0, 0])


@pytest.mark.parametrize("method", RANDOM_METHODS)
def test_disk_interior_is_uniform_in_area(method):
    disk = Disk([3.0, -2.0], 2.0)
    x = disk.interior_points(20000, method, seed=0)
    r = np.hypot(*(x - disk.center).T)
    # Binomial sigma for p = 1/4 and n = 20000 is about 0.003; allow 4 sigma.
    assert abs(np.mean(r < 1.0) - 0.25) < 0.012
    assert abs(np.mean(x[:, 0] > 3.0) - 0.5) < 0.014


def test_disk_boundary_grid_is_evenly_spaced_by_angle():
    x, normals = Disk([0.0, 0.0], 1.0).boundary_points(8, "grid")
    angles = np.sort(np.mod(np.arctan2(x[:, 1], x[:, 0]), 2 * np.pi))
    np.testing.assert_allclose(np.diff(angles), np.pi / 4)
    np.testing.assert_allclose(normals, x)


def test_polygon_orientation_does_not_change_normals_or_inside():
    clockwise, anticlockwise = Polygon(L_SHAPE), Polygon(L_SHAPE[::-1])
    points = [[0.5, 0.0], [1.5, 1.0], [0.0, 1.5]]
    expected = [[0, -1], [0, 1], [-1, 0]]
    np.testing.assert_allclose(clockwise.boundary_normal(points), expected)
    np.testing.assert_allclose(anticlockwise.boundary_normal(points), expected)
    assert clockwise.measure == anticlockwise.measure == 3.0


def test_polygon_inside_excludes_the_notch_of_an_l_shape():
    shape = Polygon(L_SHAPE)
    np.testing.assert_array_equal(
        shape.inside([[0.5, 0.5], [0.5, 1.5], [1.5, 0.5], [1.5, 1.5], [1.0, 1.0], [3.0, 0.5]]),
        [True, True, True, False, True, False],
    )


def test_polygon_vertex_normal_is_the_normalized_sum_of_its_edges():
    shape = Polygon(L_SHAPE)
    np.testing.assert_allclose(shape.boundary_normal([[0.0, 0.0]]), [[-1, -1]] / np.sqrt(2))
    # The reflex corner points into the notch.
    np.testing.assert_allclose(shape.boundary_normal([[1.0, 1.0]]), [[1, 1]] / np.sqrt(2))


def test_polygon_boundary_points_follow_edge_length():
    triangle = Polygon([[0, 0], [3, 0], [0, 4]])  # edges 3, 5, 4
    _, normals = triangle.boundary_points(12000, "uniform", seed=0)
    fractions = [np.mean(normals[:, 1] == -1), np.mean(normals[:, 0] == -1)]
    np.testing.assert_allclose(fractions, [3 / 12, 4 / 12], atol=0.015)
    grid, _ = triangle.boundary_points(12, "grid")
    np.testing.assert_allclose(grid[:2], [[0.5, 0.0], [1.5, 0.0]])


def test_polygon_drops_a_closing_repeat_of_the_first_vertex():
    np.testing.assert_array_equal(
        Polygon([[0, 0], [1, 0], [0, 1], [0, 0]]).vertices, [[0, 0], [1, 0], [0, 1]]
    )


def test_spacetime_columns_are_space_then_time():
    domain = SpaceTime(Disk([0.0, 0.0], 1.0), TimeDomain(2.0, 5.0))
    assert domain.dim == 3
    lo, hi = domain.bbox
    np.testing.assert_array_equal(lo, [-1, -1, 2])
    np.testing.assert_array_equal(hi, [1, 1, 5])
    x = domain.interior_points(500, "sobol", seed=0)
    assert domain.space.inside(x[:, :2]).all()
    assert ((x[:, 2] >= 2) & (x[:, 2] < 5)).all()


def test_spacetime_boundary_is_lateral_with_zero_time_normal():
    domain = SpaceTime(Rectangle([0, 0], [1, 1]), TimeDomain(0.0, 1.0))
    x, normals = domain.boundary_points(64, "lhs", seed=0)
    np.testing.assert_array_equal(normals[:, 2], 0.0)
    assert domain.space.on_boundary(x[:, :2]).all()
    # The initial and final caps are not part of the lateral boundary.
    assert not domain.on_boundary([[0.5, 0.5, 0.0], [0.5, 0.5, 1.0]]).any()
    assert domain.on_boundary([[0.0, 0.5, 0.3]]).all()
    assert not domain.inside([[0.5, 0.5, 1.5]]).any()


def test_spacetime_grid_boundary_is_a_product_of_space_and_time_grids():
    x, _ = SpaceTime(Interval(0.0, 1.0), TimeDomain(0.0, 1.0)).boundary_points(10, "grid")
    assert len(x) == 10
    np.testing.assert_array_equal(np.unique(x[:, 0]), [0, 1])
    np.testing.assert_allclose(np.unique(x[:, 1]), (np.arange(5) + 0.5) / 5)


@pytest.mark.parametrize("method", METHODS)
def test_spacetime_initial_points_sit_at_t0_inside_the_space(method):
    domain = SpaceTime(Polygon(L_SHAPE), TimeDomain(0.25, 1.0))
    x = domain.initial_points(64, method, seed=0)
    np.testing.assert_array_equal(x[:, 2], 0.25)
    assert domain.space.inside(x[:, :2]).all()
    assert domain.on_initial(x).all()
    if method != "grid":
        assert x.shape == (64, 3)


def test_polygon_in_spacetime_samples_by_rejection_deterministically():
    domain = SpaceTime(Polygon([[0, 0], [1, 0], [0, 1]]), TimeDomain(0.0, 1.0))
    a = domain.interior_points(300, "halton", seed=4)
    assert a.shape == (300, 3) and domain.inside(a).all()
    np.testing.assert_array_equal(a, domain.interior_points(300, "halton", seed=4))


@pytest.mark.parametrize(
    ("geometry", "axis"),
    [
        (Rectangle([0.0, -1.0], [2.0, 1.0]), 0),
        (Box([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]), -1),
        (SpaceTime(Interval(-1.0, 1.0), TimeDomain(0.0, 1.0)), 0),
        (SpaceTime(Rectangle([0, 0], [1, 2]), TimeDomain(0.0, 1.0)), 1),
    ],
)
@pytest.mark.parametrize("method", RANDOM_METHODS)
def test_periodic_pairs_match_except_along_the_axis(geometry, axis, method):
    lo_points, hi_points = periodic_pairs(geometry, 30, axis, method, seed=0)
    assert lo_points.shape == hi_points.shape == (30, geometry.dim)
    lo, hi = geometry.bbox
    np.testing.assert_array_equal(lo_points[:, axis], lo[axis])
    np.testing.assert_array_equal(hi_points[:, axis], hi[axis])
    others = np.delete(np.arange(geometry.dim), axis % geometry.dim)
    np.testing.assert_array_equal(lo_points[:, others], hi_points[:, others])
    assert geometry.inside(lo_points).all() and geometry.inside(hi_points).all()


def test_periodic_pairs_refuse_shapes_that_are_not_boxes_and_bad_axes():
    with pytest.raises(ValueError, match=r"periodic_pairs.*Disk"):
        periodic_pairs(Disk([0, 0], 1.0), 10, 0)
    with pytest.raises(ValueError, match="periodic_pairs: axis"):
        periodic_pairs(Rectangle([0, 0], [1, 1]), 10, 2)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Interval(1.0, 1.0), "Interval: lo must be below hi"),
        (lambda: TimeDomain(2.0, 1.0), "TimeDomain: lo must be below hi"),
        (lambda: Box([0, 0], [1, 0]), "Box: lo must be below hi"),
        (lambda: Box([0, 0], [1, 1, 1]), "Box: lo and hi must be"),
        (lambda: Rectangle([0, 0, 0], [1, 1, 1]), "Rectangle: lo and hi need 2"),
        (lambda: Interval([0.0], [1.0]), "Interval: lo and hi must be scalars"),
        (lambda: Disk([0, 0], 0.0), "Disk: radius"),
        (lambda: Disk([0, 0], -1.0), "Disk: radius"),
        (lambda: Disk([0, 0, 0], 1.0), "Disk: center"),
        (lambda: Polygon([[0, 0], [1, 1]]), "Polygon: needs at least 3"),
        (lambda: Polygon([[0, 0], [1, 1], [2, 2]]), "Polygon: .*no enclosed area"),
        (lambda: Polygon([0, 1, 2]), r"Polygon: vertices must have shape \(M, 2\)"),
        (lambda: SpaceTime(Disk([0, 0], 1.0), 1.0), "SpaceTime: time"),
    ],
)
def test_bad_construction_raises_value_error_naming_the_class(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("n", [0, -3, 2.5])
def test_bad_counts_and_methods_raise(n):
    disk = Disk([0, 0], 1.0)
    with pytest.raises(ValueError, match=r"Disk\.interior_points"):
        disk.interior_points(n)
    with pytest.raises(ValueError, match="number of points"):
        disk.boundary_points(n)
    with pytest.raises(ValueError, match="unknown sampling method 'mesh'"):
        Box([0], [1]).boundary_points(4, "mesh")
