"""DeepXDE's PyTorch backend on leafgrad: its 1D Poisson example (examples/pinn_forward/
Poisson_Dirichlet_1d.py with its PyTorch lines, fewer iterations) runs unchanged under
``leafgrad run`` and trains to a small error. Skipped where DeepXDE is not installed (it is
no dependency of leafgrad's).

With PyTorch 2.13 the same script reaches an L2 relative error of about 1e-2 after 300
Adam steps; the starting weights differ (each library's own random generator)."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

POISSON = """
import json
import deepxde as dde
import numpy as np
import torch

dde.config.set_random_seed(0)


def pde(x, y):
    dy_xx = dde.grad.hessian(y, x)
    return -dy_xx - np.pi ** 2 * torch.sin(np.pi * x)


def boundary(x, on_boundary):
    return on_boundary


def func(x):
    return np.sin(np.pi * x)


geom = dde.geometry.Interval(-1, 1)
bc = dde.icbc.DirichletBC(geom, func, boundary)
data = dde.data.PDE(geom, pde, bc, 16, 2, solution=func, num_test=100)
net = dde.nn.FNN([1] + [50] * 3 + [1], "tanh", "Glorot uniform")
model = dde.Model(data, net)
model.compile("adam", lr=0.001, metrics=["l2 relative error"])
losshistory, train_state = model.train(iterations=600, display_every=100)
print(json.dumps({
    "torch_is_leafgrad": "leafgrad" in torch.__version__,
    "first_loss": float(np.sum(losshistory.loss_train[0])),
    "last_loss": float(np.sum(losshistory.loss_train[-1])),
    "l2_error": float(train_state.best_metrics[0]),
}))
"""


@pytest.mark.skipif(importlib.util.find_spec("deepxde") is None, reason="DeepXDE not installed")
def test_deepxde_poisson_example_trains_under_leafgrad_run(tmp_path):
    script = tmp_path / "poisson.py"
    script.write_text(POISSON)
    env = {
        **os.environ,
        "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "DDE_BACKEND": "pytorch",
        "MPLBACKEND": "Agg",
    }
    done = subprocess.run(
        [sys.executable, "-m", "leafgrad", "run", str(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["torch_is_leafgrad"]
    assert facts["last_loss"] < facts["first_loss"] / 10
    assert facts["l2_error"] < 3e-2
