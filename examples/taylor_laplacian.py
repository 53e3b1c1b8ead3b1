"""Taylor mode: u, grad u and the Laplacian of a network in one forward pass, and its shapes.

    python examples/taylor_laplacian.py

taylor.laplacian(f, x) takes points x of shape (N, d) and a function acting row by row, and
returns u (N, m), the gradient (N, m, d) and the Laplacian (N, m); for u of shape (N,) the
gradient is (N, d). The result agrees with nested reverse mode and keeps its graph, so a
PINN loss built on it trains with backward().
"""

import leafgrad as torch
from leafgrad import nn
from leafgrad.autograd import grad, taylor

torch.manual_seed(0)
N, d, m = 50, 4, 2
net = nn.Sequential(nn.Linear(d, 24), nn.Tanh(), nn.Linear(24, m)).double()
x = torch.rand(N, d, dtype=torch.float64)

u, du, lap = taylor.laplacian(net, x)
assert (u.shape, du.shape, lap.shape) == ((N, m), (N, m, d), (N, m))
print("u", tuple(u.shape), "grad", tuple(du.shape), "laplacian", tuple(lap.shape))

# The same Laplacian by nested reverse mode, one output component and one input at a time.
xr = x.clone().requires_grad_()
ur = net(xr)
for k in range(m):
    (g,) = grad(ur[:, k].sum(), xr, create_graph=True)
    lap_k = sum(grad(g[:, i].sum(), xr, retain_graph=True)[0][:, i] for i in range(d))
    assert torch.allclose(lap[:, k], lap_k) and torch.allclose(du[:, k, :], g)
print("agrees with nested reverse mode")

# A scalar function of each point: u of shape (N,) gives a gradient of shape (N, d).
u1, du1, lap1 = taylor.laplacian(lambda p: (p**2).sum(dim=1), x)
assert du1.shape == (N, d) and torch.allclose(lap1, torch.full((N,), 2.0 * d, dtype=torch.float64))

# A diffusion operator sum_ij A_ij d2u/dx_i dx_j with a symmetric A, still one pass.
A = torch.eye(d, dtype=torch.float64) + 0.1
_, _, op_u = taylor.collapsed(net, x, A)
assert op_u.shape == (N, m)

# Everything keeps its graph: the loss of the PDE  Lap u = 0  trains the weights.
loss = (lap**2).mean() + ((u - 1) ** 2).mean()
loss.backward()
assert all(p.grad is not None for p in net.parameters())
print("backward through the Taylor pass: every weight has a gradient")
