"""DeepXDE's PyTorch backend on leafgrad: its 1D Poisson example (examples/pinn_forward/
Poisson_Dirichlet_1d.py with its PyTorch lines, fewer iterations) runs unchanged under
``leafgrad run`` and trains to a small error. Skipped where DeepXDE is not installed (it is
no dependency of leafgrad's).

From the same starting weights (PyTorch's, handed over in a file) the two libraries give the
same losses step by step, to float32 rounding."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests._tolerance import assert_close

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

POISSON = """
import json
import os
import sys

import deepxde as dde
import numpy as np
import torch

dde.config.set_random_seed(0)
iterations, init = int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None


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
if init:  # the same starting weights: written by the first run, read by the second
    with torch.no_grad():
        if os.path.exists(init):
            saved = np.load(init)
            for i, p in enumerate(net.parameters()):
                p.copy_(torch.tensor(saved[str(i)]))
        else:
            np.savez(init, **{str(i): p.detach().numpy() for i, p in enumerate(net.parameters())})
model.compile("adam", lr=0.001, metrics=["l2 relative error"])
losshistory, train_state = model.train(iterations=iterations, display_every=10)
print(json.dumps({
    "torch_is_leafgrad": "leafgrad" in torch.__version__,
    "losses": [float(np.sum(loss)) for loss in losshistory.loss_train],
    "l2_error": float(train_state.best_metrics[0]),
}))
"""


def _run(tmp_path, args, leafgrad=True):
    script = tmp_path / "poisson.py"
    script.write_text(POISSON)
    env = {
        **os.environ,
        "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "DDE_BACKEND": "pytorch",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
    }
    command = ["-m", "leafgrad", "run", str(script)] if leafgrad else [str(script)]
    done = subprocess.run(
        [sys.executable, *command, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


needs_deepxde = pytest.mark.skipif(
    importlib.util.find_spec("deepxde") is None, reason="DeepXDE not installed"
)


@needs_deepxde
def test_deepxde_poisson_example_trains_under_leafgrad_run(tmp_path):
    facts = _run(tmp_path, ["600"])
    assert facts["torch_is_leafgrad"]
    assert facts["losses"][-1] < facts["losses"][0] / 10
    assert facts["l2_error"] < 3e-2


@needs_deepxde
def test_deepxde_gives_pytorchs_losses_from_the_same_starting_weights(tmp_path):
    pytest.importorskip("torch")
    init = str(tmp_path / "init.npz")
    theirs = _run(tmp_path, ["60", init], leafgrad=False)
    ours = _run(tmp_path, ["60", init])
    assert not theirs["torch_is_leafgrad"] and ours["torch_is_leafgrad"]
    assert len(ours["losses"]) == len(theirs["losses"]) == 7
    assert_close(
        np.array(ours["losses"]), np.array(theirs["losses"], dtype=np.float32), "iterative"
    )
