"""A small MLP learns a 1-D regression with hand-written gradient descent (no optim)."""

import leafgrad as torch
from leafgrad import nn


def test_mlp_fits_sin_2x_with_plain_gradient_descent():
    """64 points of sin(2x) on [-1, 1], a 1-16-16-1 tanh MLP, full-batch gradient descent
    (lr 0.3, 800 steps): the MSE falls from about 1 to below 5e-3 (about 1.4e-3 in practice)."""
    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 64).reshape(64, 1)
    y = torch.sin(2 * x)
    model = nn.Sequential(
        nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)
    )
    loss_fn = nn.MSELoss()
    first = loss_fn(model(x), y).item()
    for _ in range(800):
        model.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p.sub_(0.3 * p.grad)
    final = loss_fn(model(x), y).item()
    assert first > 0.5
    assert final < 5e-3, final
    assert all(
        p.is_leaf and p.requires_grad and isinstance(p, nn.Parameter) for p in model.parameters()
    )
