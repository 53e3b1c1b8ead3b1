"""End to end: nn + optim train real models (no torch needed)."""

import math

import numpy as np

import leafgrad as lg
from leafgrad import nn, optim


def test_mlp_learns_a_1d_regression_with_adam_then_lbfgs():
    lg.manual_seed(0)
    x = lg.linspace(-math.pi, math.pi, 128, dtype=lg.float64).reshape(-1, 1)
    y = (2 * x).sin() * 0.5 + 0.3 * x
    model = nn.Sequential(
        nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)
    ).double()
    loss_fn = nn.MSELoss()
    opt = optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(400):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    after_adam = loss.item()
    lbfgs = optim.LBFGS(model.parameters(), lr=1.0, max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        out = loss_fn(model(x), y)
        out.backward()
        return out

    lbfgs.step(closure)
    final = loss_fn(model(x), y).item()
    assert after_adam < 5e-3
    assert final < after_adam and final < 1e-4


def _two_moons(n, rng):
    t = rng.uniform(0, math.pi, n)
    upper = np.stack([np.cos(t), np.sin(t)], 1)
    lower = np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)
    x = np.concatenate([upper, lower]) + rng.normal(0, 0.08, (2 * n, 2))
    y = np.concatenate([np.zeros(n, np.int64), np.ones(n, np.int64)])
    return lg.tensor(x.astype(np.float32)), lg.tensor(y)


def test_classifier_learns_two_moons_with_cross_entropy():
    lg.manual_seed(1)
    rng = np.random.default_rng(1)
    x, y = _two_moons(200, rng)
    model = nn.Sequential(
        nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2)
    )
    opt = optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(300):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    x_test, y_test = _two_moons(200, np.random.default_rng(2))
    with lg.no_grad():
        accuracy = (model(x_test).argmax(dim=1) == y_test).float().mean().item()
    assert loss.item() < 0.1
    assert accuracy > 0.95


def test_a_pinn_fits_a_poisson_problem_through_the_taylor_laplacian():
    """-u'' = pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0: the solution is sin(pi x)."""
    from leafgrad.autograd import taylor

    lg.manual_seed(2)
    model = nn.Sequential(
        nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)
    ).double()
    x = lg.linspace(0, 1, 64, dtype=lg.float64).reshape(-1, 1)
    boundary = lg.tensor([[0.0], [1.0]], dtype=lg.float64)
    opt = optim.Adam(model.parameters(), lr=5e-3)

    def loss_fn():
        _, _, lap = taylor.laplacian(model, x)
        residual = -lap - math.pi**2 * (math.pi * x).sin()
        return (residual * residual).mean() + (model(boundary) ** 2).mean() * 10

    for _ in range(1500):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
    with lg.no_grad():
        error = (model(x) - (math.pi * x).sin()).abs().max().item()
    assert error < 0.05
