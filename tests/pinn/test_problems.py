"""Each benchmark problem: its exact solution makes the residual and the conditions vanish."""

import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import pinn
from leafgrad.pinn import MLP, problems
from leafgrad.pinn.problems import _burgers_reference, allen_cahn

CLOSED_FORM = ["poisson2d", "heat1d", "wave1d", "helmholtz2d"]


def _interior(problem, n=200, seed=0):
    points = problem.geometry.interior_points(n, method="uniform", seed=seed)
    return lg.tensor(points, dtype=lg.float64)


@pytest.mark.parametrize("method", ["reverse", "taylor"])
@pytest.mark.parametrize("name", CLOSED_FORM)
def test_the_exact_solution_makes_the_residual_vanish(name, method):
    problem = problems.get(name)
    with pinn.Evaluation(problem.solution, _interior(problem), method) as ev:
        r = problem.residual(ev.inputs, ev.output)
    scale = np.abs(ev.output.detach().numpy()).max()
    assert np.abs(r.detach().numpy()).max() < 1e-11 * max(scale, 1.0) * 100


@pytest.mark.parametrize("name", CLOSED_FORM)
def test_the_exact_solution_meets_every_condition(name):
    problem = problems.get(name)
    rng = np.random.default_rng(0)
    for condition in problem.conditions:
        condition.n = 64
        condition.sample("uniform", rng)
        condition.setup(lg.float64)
        loss = condition.loss(problem.solution, "reverse").item()
        assert loss < 1e-26, (condition.name, loss)


HARD = [name for name in problems.PROBLEMS if problems.get(name).hard_constraint is not None]


@pytest.mark.parametrize("name", HARD)
def test_the_hard_constraint_meets_the_conditions_it_replaces_for_any_network(name):
    problem = problems.get(name)
    lg.manual_seed(5)
    model = MLP(
        problem.dim,
        len(problem.outputs),
        width=8,
        depth=2,
        bounds=problem.geometry.bbox,
        output_transform=problem.hard_constraint,
        periodic=problem.periodic,
    ).to(lg.float64)
    with lg.no_grad():
        for p in model.parameters():  # biases too: any network, not the zero-bias start
            p.add_(lg.randn(p.shape, dtype=lg.float64) * 0.5)

    rng = np.random.default_rng(1)
    replaced = [c for c in problem.conditions if c.name in problem.hard_constrained]
    assert replaced
    for condition in replaced:
        condition.n = 64
        condition.sample("uniform", rng)
        condition.setup(lg.float64)
        if condition.kind == "periodic":
            # Values are periodic exactly; slopes see test_allen_cahn_slopes_under_hard_mode.
            condition.derivative = False
        assert condition.loss(model, "reverse").item() < 1e-26, condition.name


def test_allen_cahn_slopes_under_hard_mode_jump_as_the_initial_condition_does():
    # u = x^2 cos(pi x) + t N with N periodic in x: the slope jump across x = +-1 is the
    # initial condition's own, g'(-1) - g'(1) = 4, whatever the network; no smooth u meets the
    # initial condition and periodic slopes at once, so the term is left out under hard mode.
    problem = problems.get("allen-cahn")
    t = np.linspace(0, 1, 5)
    ends = [lg.tensor(np.stack([np.full(5, side), t], axis=1)) for side in (-1.0, 1.0)]
    for seed in (0, 1):
        lg.manual_seed(seed)
        model = MLP(
            2,
            1,
            8,
            2,
            bounds=problem.geometry.bbox,
            output_transform=problem.hard_constraint,
            periodic=problem.periodic,
        )
        model = model.to(lg.float64)
        slopes = []
        for x in ends:
            with pinn.operators.Evaluation(model, x) as ev:
                slopes.append(pinn.partial(ev.output, ev.inputs, 0).detach().numpy())
        np.testing.assert_allclose(slopes[0] - slopes[1], 4.0, rtol=1e-12)


def test_the_evaluation_grid_and_reference_of_burgers():
    problem = problems.get("burgers")
    axes, points, shape = problem.grid_points()
    np.testing.assert_array_equal(axes["x"], np.linspace(-1, 1, 256))
    np.testing.assert_allclose(axes["t"], np.arange(100) / 100, rtol=0, atol=1e-15)
    assert shape == (100, 256)
    u = problem.exact(points).reshape(shape)
    np.testing.assert_allclose(u[0], -np.sin(np.pi * axes["x"]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(u[:, 0], 0, atol=1e-10)
    np.testing.assert_allclose(u[:, -1], 0, atol=1e-10)


def _cole_hopf(nu, nodes=128):
    """Burgers' reference written in leafgrad ops (so the operators can differentiate it)."""
    z, log_w = _burgers_reference._hermite_rule(nodes)
    z = lg.tensor(z, dtype=lg.float64)
    log_w = lg.tensor(log_w, dtype=lg.float64)

    def u(x):
        xs, t = x[:, 0:1], x[:, 1:2]
        y = xs - lg.sqrt(4 * nu * t) * z
        p = lg.softmax(log_w - lg.cos(math.pi * y) / (2 * math.pi * nu), dim=1)
        return -(p * lg.sin(math.pi * y)).sum(dim=1, keepdim=True)

    return u


@pytest.mark.parametrize("method", ["reverse", "taylor"])
def test_burgers_reference_makes_the_residual_vanish_to_quadrature_accuracy(method):
    problem = problems.get("burgers")
    rng = np.random.default_rng(2)
    points = np.column_stack([rng.uniform(-1, 1, 300), rng.uniform(0.05, 1, 300)])
    func = _cole_hopf(_burgers_reference.NU)
    x = lg.tensor(points, dtype=lg.float64)
    with pinn.Evaluation(func, x, method) as ev:
        r = problem.residual(ev.inputs, ev.output).detach().numpy()
        u_t = pinn.partial(ev.output, ev.inputs, 1).detach().numpy()
    np.testing.assert_allclose(
        ev.output.detach().numpy()[:, 0],
        _burgers_reference.burgers_reference(*points.T),
        atol=1e-12,
    )
    assert np.abs(r).max() < 1e-9 * np.abs(u_t).max()


def test_allen_cahn_reference_meets_its_equation_and_conditions():
    x = np.linspace(-0.9, 0.9, 7)
    for t in (0.2, 0.6, 0.95):
        h_t, h_x = 1e-5, 2e-5
        ts = np.full_like(x, t)
        u = allen_cahn.reference(x, ts)
        u_t = (allen_cahn.reference(x, ts + h_t) - allen_cahn.reference(x, ts - h_t)) / (2 * h_t)
        u_xx = (allen_cahn.reference(x + h_x, ts) - 2 * u + allen_cahn.reference(x - h_x, ts)) / (
            h_x * h_x
        )
        residual = u_t - allen_cahn.EPS * u_xx + allen_cahn.REACTION * (u**3 - u)
        assert np.abs(residual).max() < 1e-4, (t, residual)
    t = np.linspace(0, 1, 11)
    np.testing.assert_allclose(
        allen_cahn.reference(-1.0, t), allen_cahn.reference(1.0, t), atol=1e-12
    )
    x0 = np.linspace(-1, 1, 41)
    np.testing.assert_allclose(allen_cahn.reference(x0, 0.0), x0**2 * np.cos(np.pi * x0), atol=0)


def test_burgers_inverse_reports_nu_and_knows_the_true_value():
    problem = problems.get("burgers-inverse")
    assert set(problem.parameters) == {"log_nu"}
    assert problem.report({"log_nu": math.log(0.05)}) == pytest.approx({"nu": 0.05})
    assert problem.true_parameters == {"nu": pytest.approx(0.01 / math.pi)}
    data = problem.conditions[0]
    assert data.points.shape == (2000, 2)
    assert problem.geometry.inside(data.points).all()


def test_unknown_problem_names_list_the_known_ones():
    with pytest.raises(KeyError, match="burgers"):
        problems.get("navier-stokes")
