"""Conditions: each loss is the mean squared misfit on its own points, and bad input is refused.

Models are plain functions of the (N, d) input tensor (or a small MLP), so every expected loss
is computed by hand from the condition's sampled points: zero for a model that meets the
condition, a closed-form misfit for one that does not.
"""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.pinn import TrainConfig, Trainer, problems
from leafgrad.pinn.conditions import (
    DirichletBC,
    InitialCondition,
    NeumannBC,
    PeriodicBC,
    PointData,
    RobinBC,
)
from leafgrad.pinn.geometry import Interval, Rectangle, SpaceTime, TimeDomain
from leafgrad.pinn.network import MLP

METHODS = ["reverse", "taylor"]
EXACT = 1e-20  # a float64 loss of a model that meets its condition


def unit_square():
    return Rectangle([0.0, 0.0], [1.0, 1.0])


def rod():
    """x in [-1, 1], t in [0, 1]."""
    return SpaceTime(Interval(-1.0, 1.0), TimeDomain(0.0, 1.0))


def ready(condition, seed=0):
    """Sample the condition's points and make its tensors, as the trainer does."""
    condition.sample("uniform", np.random.default_rng(seed))
    condition.setup(lg.float64)
    return condition


def loss(condition, model, method="reverse"):
    return condition.loss(model, method).item()


def columns(X):
    return X[:, 0:1], X[:, 1:2]


def square_outward_normals(p):
    """Outward unit normals of the unit square at points on its faces, from the coordinates."""
    normal = np.stack(
        [(p[:, 0] == 1.0) * 1.0 - (p[:, 0] == 0.0), (p[:, 1] == 1.0) * 1.0 - (p[:, 1] == 0.0)],
        axis=1,
    )
    assert np.all(np.abs(normal).sum(axis=1) > 0), "a sampled point is on no face"
    return normal / np.linalg.norm(normal, axis=1, keepdims=True)


def two_outputs(X):
    x, y = columns(X)
    return lg.cat([x + y, x * y], dim=1)


# ----------------------------------------------------------------------------- Dirichlet
def test_dirichlet_loss_vanishes_for_a_model_with_the_boundary_values():
    c = ready(DirichletBC(unit_square(), lambda p: p[:, 0] + 2 * p[:, 1], n=50))
    assert c.points.shape == (50, 2)
    x, y = c.points[:, 0], c.points[:, 1]
    faces = [x == 0.0, x == 1.0, y == 0.0, y == 1.0]
    assert np.all(np.any(faces, axis=0)) and all(face.sum() >= 5 for face in faces)
    assert loss(c, lambda X: X[:, 0:1] + 2 * X[:, 1:2]) < EXACT


def test_dirichlet_loss_is_the_mean_squared_misfit():
    c = ready(DirichletBC(unit_square(), lambda p: p[:, 0] + 2 * p[:, 1], n=50))
    x, y = c.points[:, 0], c.points[:, 1]
    expected = np.mean((x**2 + y - (x + 2 * y)) ** 2)
    assert loss(c, lambda X: X[:, 0:1] ** 2 + X[:, 1:2]) == pytest.approx(expected, rel=1e-12)


def test_a_constant_dirichlet_value_and_an_n_by_1_value_function_mean_the_same():
    constant = ready(DirichletBC(unit_square(), 3.0, n=40))
    column = ready(DirichletBC(unit_square(), lambda p: np.full((len(p), 1), 3.0), n=40))
    model = lambda X: X[:, 0:1] * X[:, 1:2]
    expected = np.mean((constant.points[:, 0] * constant.points[:, 1] - 3.0) ** 2)
    assert loss(constant, model) == pytest.approx(expected, rel=1e-12)
    assert loss(column, model) == pytest.approx(expected, rel=1e-12)


def test_component_picks_the_output_a_condition_constrains():
    c = ready(DirichletBC(unit_square(), lambda p: p[:, 0] * p[:, 1], n=30, component=1))
    assert loss(c, two_outputs) < EXACT
    c0 = ready(DirichletBC(unit_square(), lambda p: p[:, 0] * p[:, 1], n=30, component=0))
    x, y = c0.points[:, 0], c0.points[:, 1]
    assert loss(c0, two_outputs) == pytest.approx(np.mean((x + y - x * y) ** 2), rel=1e-12)


def test_a_negative_component_counts_from_the_last_output():
    last = ready(DirichletBC(unit_square(), 0.0, n=30, component=-1))
    second = ready(DirichletBC(unit_square(), 0.0, n=30, component=1))
    assert loss(last, two_outputs) == pytest.approx(loss(second, two_outputs), rel=1e-12)


def test_a_component_beyond_the_outputs_is_refused():
    c = ready(DirichletBC(unit_square(), 0.0, n=30, component=2, name="wall"))
    with pytest.raises((IndexError, ValueError), match=r"wall|component"):
        c.loss(two_outputs, "reverse")


# ----------------------------------------------------------------------------- Neumann, Robin
@pytest.mark.parametrize("method", METHODS)
def test_neumann_uses_outward_normals(method):
    # u = x^2 + y^2: du/dn = 2 on the faces x = 1 and y = 1, 0 on x = 0 and y = 0.
    model = lambda X: X[:, 0:1] ** 2 + X[:, 1:2] ** 2
    right = lambda p: 2.0 * ((p[:, 0] == 1.0) | (p[:, 1] == 1.0))
    c = ready(NeumannBC(unit_square(), right, n=60))
    assert loss(c, model, method) < EXACT
    zero = ready(NeumannBC(unit_square(), 0.0, n=60))
    on_high_faces = (zero.points[:, 0] == 1.0) | (zero.points[:, 1] == 1.0)
    assert 0 < on_high_faces.sum() < 60
    assert loss(zero, model, method) == pytest.approx(4.0 * on_high_faces.mean(), rel=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_neumann_loss_is_the_mean_squared_normal_derivative_misfit(method):
    # u = x^2 y + y: grad u = (2 x y, x^2 + 1).
    model = lambda X: X[:, 0:1] ** 2 * X[:, 1:2] + X[:, 1:2]
    c = ready(NeumannBC(unit_square(), lambda p: p[:, 0] - p[:, 1], n=60))
    x, y = c.points[:, 0], c.points[:, 1]
    du_dn = np.sum(np.stack([2 * x * y, x**2 + 1], axis=1) * square_outward_normals(c.points), 1)
    expected = np.mean((du_dn - (x - y)) ** 2)
    assert loss(c, model, method) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_robin_combines_value_and_normal_derivative(method):
    # a u + b du/dn with u = x^2 + y^2, a = 2, b = 3.
    model = lambda X: X[:, 0:1] ** 2 + X[:, 1:2] ** 2
    c = ready(RobinBC(unit_square(), 2.0, 3.0, lambda p: p[:, 0], n=60))
    x, y = c.points[:, 0], c.points[:, 1]
    du_dn = np.sum(np.stack([2 * x, 2 * y], axis=1) * square_outward_normals(c.points), axis=1)
    expected = np.mean((2 * (x**2 + y**2) + 3 * du_dn - x) ** 2)
    assert loss(c, model, method) == pytest.approx(expected, rel=1e-12)
    exact = ready(RobinBC(unit_square(), 2.0, 3.0, lambda p: 2 * (p**2).sum(1) + 6 * (
        (p[:, 0] == 1.0) | (p[:, 1] == 1.0)), n=60))  # fmt: skip
    assert loss(exact, model, method) < EXACT


def test_neumann_of_a_chosen_component_of_a_network_with_two_outputs():
    # Second output x y: du/dn = y on x = 1, -y on x = 0, x on y = 1, -x on y = 0.
    c = ready(NeumannBC(unit_square(), 0.0, n=40, component=1))
    x, y = c.points[:, 0], c.points[:, 1]
    du_dn = np.sum(np.stack([y, x], axis=1) * square_outward_normals(c.points), axis=1)
    assert loss(c, two_outputs) == pytest.approx(np.mean(du_dn**2), rel=1e-12)


# ----------------------------------------------------------------------------- periodic
@pytest.mark.parametrize("method", METHODS)
def test_periodic_loss_vanishes_for_a_periodic_model_with_and_without_derivative(method):
    model = lambda X: lg.cos(np.pi * X[:, 0:1]) * (1 + X[:, 1:2])  # period 2 in x
    for derivative in (False, True):
        c = ready(PeriodicBC(rod(), axis=0, n=40, derivative=derivative))
        assert loss(c, model, method) < EXACT


@pytest.mark.parametrize("method", METHODS)
def test_periodic_loss_compares_opposite_faces_point_by_point(method):
    # u = x t + x^2: u(1, t) - u(-1, t) = 2 t and u_x(1, t) - u_x(-1, t) = 4.
    model = lambda X: X[:, 0:1] * X[:, 1:2] + X[:, 0:1] ** 2
    c = ready(PeriodicBC(rod(), axis=0, n=40))
    lo, hi = c.points[:40], c.points[40:]
    assert np.all(lo[:, 0] == -1.0) and np.all(hi[:, 0] == 1.0)
    np.testing.assert_array_equal(lo[:, 1], hi[:, 1])
    t = lo[:, 1]
    assert loss(c, model, method) == pytest.approx(np.mean(4 * t**2), rel=1e-12)
    with_derivative = ready(PeriodicBC(rod(), axis=0, n=40, derivative=True))
    t = with_derivative.points[:40, 1]
    expected = (np.mean(4 * t**2) + 16.0) / 2  # the mean over both halves of the misfit
    assert loss(with_derivative, model, method) == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------------------- initial
def time_from_half():
    """x in [0, 1], t in [0.5, 2]: t0 is not 0, so t0 must be read from the geometry."""
    return SpaceTime(Interval(0.0, 1.0), TimeDomain(0.5, 2.0))


def test_initial_condition_samples_the_initial_slice():
    c = ready(InitialCondition(time_from_half(), 0.0, n=50))
    assert c.points.shape == (50, 2)
    assert np.all(c.points[:, 1] == 0.5)
    assert np.all((c.points[:, 0] >= 0) & (c.points[:, 0] <= 1))
    assert len(np.unique(c.points[:, 0])) == 50


def test_initial_condition_of_order_0_compares_u_at_t0():
    g = lambda p: np.sin(np.pi * p[:, 0])
    c = ready(InitialCondition(time_from_half(), g, n=50))
    assert loss(c, lambda X: lg.sin(np.pi * X[:, 0:1]) + (X[:, 1:2] - 0.5)) < EXACT
    x = c.points[:, 0]
    off = lambda X: lg.sin(np.pi * X[:, 0:1]) + X[:, 1:2]  # 0.5 too high at t0
    assert loss(c, off) == pytest.approx(0.25, rel=1e-12)
    assert loss(c, lambda X: X[:, 0:1]) == pytest.approx(np.mean((x - g(c.points)) ** 2))


@pytest.mark.parametrize("method", METHODS)
def test_initial_condition_of_order_1_compares_u_t_at_t0(method):
    model = lambda X: lg.sin(np.pi * X[:, 0:1]) * lg.exp(X[:, 1:2])  # u_t = u
    c = ready(InitialCondition(time_from_half(), lambda p: np.sin(np.pi * p[:, 0]) * np.exp(0.5),
                               n=50, order=1))  # fmt: skip
    assert c.name == "initial_t"
    assert loss(c, model, method) < EXACT
    zero = ready(InitialCondition(time_from_half(), 0.0, n=50, order=1))
    expected = np.mean((np.sin(np.pi * zero.points[:, 0]) * np.exp(0.5)) ** 2)
    assert loss(zero, model, method) == pytest.approx(expected, rel=1e-12)


def test_an_initial_condition_of_order_2_is_refused():
    with pytest.raises(ValueError, match="order"):
        InitialCondition(rod(), 0.0, n=10, order=2)


# ----------------------------------------------------------------------------- data
def test_point_data_loss_is_the_misfit_against_the_data_at_fixed_points():
    points = np.array([[0.1, 0.2], [0.5, 0.5], [0.9, 0.3], [1.0, 0.0]])
    values = np.array([1.0, 2.0, 3.0, 4.0])
    c = PointData(points, values, geometry=unit_square())
    assert c.n == 4
    ready(c)
    np.testing.assert_array_equal(c.points, points)  # sampling keeps the observation points
    expected = np.mean((points[:, 0] + points[:, 1] - values) ** 2)
    assert loss(c, lambda X: X[:, 0:1] + X[:, 1:2]) == pytest.approx(expected, rel=1e-12)
    fits = PointData(points, (points[:, 0] + points[:, 1])[:, None], name="obs")
    assert loss(ready(fits), lambda X: X[:, 0:1] + X[:, 1:2]) < EXACT


def test_point_data_outside_its_geometry_is_refused():
    with pytest.raises(ValueError, match=r"obs: 1 of 2 points lie outside"):
        PointData([[0.5, 0.5], [1.5, 0.5]], [0.0, 0.0], geometry=unit_square(), name="obs")


def test_point_data_with_values_of_another_length_is_refused():
    with pytest.raises(ValueError, match="obs: 2 points but values of shape"):
        PointData([[0.5, 0.5], [0.2, 0.5]], [0.0, 0.0, 1.0], name="obs")


# ----------------------------------------------------------------------------- with a network
@pytest.mark.parametrize("method", METHODS)
def test_derivative_conditions_on_a_network_match_its_autograd_derivatives(method):
    lg.manual_seed(0)
    model = MLP(2, 1, width=6, depth=2, bounds=rod().bbox).to(lg.float64)
    c = ready(PeriodicBC(rod(), axis=0, n=20, derivative=True))
    x = lg.tensor(c.points, dtype=lg.float64).requires_grad_()
    u = model(x)
    (g,) = lg.autograd.grad(u.sum(), x)
    u, u_x = u.detach().numpy()[:, 0], g.numpy()[:, 0]
    expected = np.mean(np.concatenate([u[:20] - u[20:], u_x[:20] - u_x[20:]]) ** 2)
    assert expected > 1e-6
    assert loss(c, model, method) == pytest.approx(expected, rel=1e-10)

    ic = ready(InitialCondition(rod(), 1.0, n=20, order=1))
    x = lg.tensor(ic.points, dtype=lg.float64).requires_grad_()
    (g,) = lg.autograd.grad(model(x).sum(), x)
    expected = np.mean((g.numpy()[:, 1] - 1.0) ** 2)
    assert loss(ic, model, method) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("method", METHODS)
def test_neumann_on_a_network_matches_its_autograd_normal_derivative(method):
    lg.manual_seed(0)
    model = MLP(2, 1, width=6, depth=2, bounds=unit_square().bbox).to(lg.float64)
    c = ready(NeumannBC(unit_square(), 0.5, n=20))
    x = lg.tensor(c.points, dtype=lg.float64).requires_grad_()
    (g,) = lg.autograd.grad(model(x).sum(), x)
    du_dn = np.sum(g.numpy() * square_outward_normals(c.points), axis=1)
    assert loss(c, model, method) == pytest.approx(np.mean((du_dn - 0.5) ** 2), rel=1e-10)


def test_the_loss_trains_the_network():
    lg.manual_seed(0)
    model = MLP(2, 1, width=6, depth=2).to(lg.float64)
    c = ready(DirichletBC(unit_square(), 1.0, n=20))
    c.loss(model, "reverse").backward()
    grads = [p.grad for p in model.parameters()]
    assert all(g is not None for g in grads)
    assert any(np.abs(g.numpy()).max() > 0 for g in grads)


# ----------------------------------------------------------------------------- where=
def test_where_keeps_only_the_boundary_points_where_it_holds_and_still_gives_n():
    c = ready(DirichletBC(rod(), 0.0, n=50, where=lambda p: p[:, 0] > 0))
    assert c.points.shape == (50, 2)
    assert np.all(c.points[:, 0] == 1.0)
    assert len(np.unique(c.points[:, 1])) == 50
    np.testing.assert_array_equal(c.normals, np.tile([1.0, 0.0], (50, 1)))


def test_where_restricts_the_loss_to_that_part_of_the_boundary():
    top = lambda p: p[:, 1] == 1.0
    c = ready(DirichletBC(unit_square(), 0.0, n=30, where=top))
    assert np.all(c.points[:, 1] == 1.0) and len(c.points) == 30
    assert loss(c, lambda X: X[:, 1:2] - 1) < EXACT  # zero on top only
    everywhere = ready(DirichletBC(unit_square(), 0.0, n=30))
    assert loss(everywhere, lambda X: X[:, 1:2] - 1) > 0.1


def test_a_where_that_keeps_no_point_is_refused_by_name():
    c = DirichletBC(unit_square(), 0.0, n=10, where=lambda p: p[:, 0] > 5, name="nowhere")
    with pytest.raises(ValueError, match="nowhere: the where= filter"):
        c.sample("uniform", np.random.default_rng(0))


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "make",
    [
        lambda g: DirichletBC(unit_square(), g, n=10, name="lid"),
        lambda g: NeumannBC(unit_square(), g, n=10, name="lid"),
        lambda g: RobinBC(unit_square(), 1.0, 1.0, g, n=10, name="lid"),
        lambda g: InitialCondition(rod(), g, n=10, name="lid"),
    ],
    ids=["dirichlet", "neumann", "robin", "initial"],
)
@pytest.mark.parametrize(
    "value",
    [lambda p: np.zeros((len(p), 2)), lambda p: np.zeros(len(p) - 1), lambda p: 0.0],
    ids=["two-columns", "one-short", "scalar"],
)
def test_a_value_function_of_the_wrong_shape_is_refused_naming_the_condition(make, value):
    c = make(value)
    with pytest.raises(ValueError, match=r"lid: the value function returned shape"):
        ready(c)


@pytest.mark.parametrize("n", [0, -3, 2.5, "10"])
@pytest.mark.parametrize(
    "make",
    [
        lambda n: DirichletBC(unit_square(), 0.0, n),
        lambda n: NeumannBC(unit_square(), 0.0, n),
        lambda n: RobinBC(unit_square(), 1.0, 1.0, 0.0, n),
        lambda n: PeriodicBC(rod(), 0, n),
        lambda n: InitialCondition(rod(), 0.0, n),
    ],
    ids=["dirichlet", "neumann", "robin", "periodic", "initial"],
)
def test_a_bad_number_of_points_is_refused(make, n):
    with pytest.raises(ValueError, match="n must be a positive int"):
        make(n)


def test_point_data_without_points_is_refused():
    with pytest.raises(ValueError, match="positive"):
        PointData(np.empty((0, 2)), np.empty(0))


@pytest.mark.parametrize(
    "make",
    [
        lambda: DirichletBC(unit_square(), 0.0, n=10, name="lid"),
        lambda: NeumannBC(unit_square(), 0.0, n=10, name="lid"),
        lambda: RobinBC(unit_square(), 1.0, 1.0, 0.0, n=10, name="lid"),
        lambda: PeriodicBC(unit_square(), 0, n=10, name="lid"),
        lambda: PeriodicBC(unit_square(), 0, n=10, derivative=True, name="lid"),
        lambda: InitialCondition(rod(), 0.0, n=10, name="lid"),
        lambda: InitialCondition(rod(), 0.0, n=10, order=1, name="lid"),
        lambda: PointData([[0.5, 0.5]], [1.0], name="lid"),
    ],
    ids=[
        "dirichlet",
        "neumann",
        "robin",
        "periodic",
        "periodic-du",
        "initial",
        "initial-t",
        "data",
    ],
)
@pytest.mark.parametrize("method", METHODS)
def test_a_network_with_two_outputs_needs_component_naming_the_condition(make, method):
    c = ready(make())
    with pytest.raises(ValueError, match="lid: the network has 2 outputs; say which"):
        c.loss(two_outputs, method)


# ----------------------------------------------------------------------------- in the trainer
def heat_trainer(boundary_weight=None):
    problem = problems.get("heat1d")
    if boundary_weight is not None:
        (boundary,) = [c for c in problem.conditions if c.name == "boundary"]
        boundary.weight = boundary_weight
    config = TrainConfig.for_problem(problem, preset="tiny", hard_constraints=False)
    return Trainer(problem, config, progress=False)


def test_the_trainer_fills_in_n_and_samples_every_condition():
    trainer = heat_trainer()
    assert [c.name for c in trainer.conditions] == ["initial", "boundary"]
    for c in trainer.conditions:
        assert c.n == trainer.config.boundary == 16
        assert c.points.shape == (16, 2)
    initial, boundary = trainer.conditions
    assert np.all(initial.points[:, 1] == 0.0)
    assert np.all((boundary.points[:, 0] == 0.0) | (boundary.points[:, 0] == 1.0))


def test_loss_terms_are_each_condition_times_its_weight():
    plain = heat_trainer().loss_terms()
    doubled = heat_trainer(boundary_weight=2.0).loss_terms()
    assert list(plain) == ["pde", "initial", "boundary"]
    assert list(doubled) == ["pde", "initial", "boundary"]
    assert plain["boundary"].item() > 0
    assert doubled["boundary"].item() == pytest.approx(2 * plain["boundary"].item(), rel=1e-14)
    assert doubled["pde"].item() == plain["pde"].item()
    assert doubled["initial"].item() == plain["initial"].item()

    trainer = heat_trainer(boundary_weight=2.0)
    boundary = trainer.conditions[1]
    unweighted = boundary.loss(trainer.model, trainer.config.method).item()
    assert trainer.loss_terms()["boundary"].item() == pytest.approx(2 * unweighted, rel=1e-14)
