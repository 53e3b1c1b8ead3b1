"""``leafgrad run`` / ``install_as_torch``: PyTorch scripts run unchanged on leafgrad."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import leafgrad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = """
import json, sys
import torch
import torch.nn.functional as F
from torch import nn
import leafgrad
print(json.dumps({
    "argv": sys.argv, "name": __name__, "is_leafgrad": torch.Tensor is leafgrad.Tensor,
    "functional": F is leafgrad.nn.functional, "nn": nn is leafgrad.nn,
    "torch_version": torch.__version__, "version_module": torch.version.__version__,
    "leafgrad_version": leafgrad.__version__, "cuda": torch.cuda.is_available(),
}))
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""


def _run(args, **kwargs):
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "leafgrad", *args], capture_output=True,
                          text=True, env=env, **kwargs)  # fmt: skip


def test_a_script_runs_as_python_would_with_torch_bound_to_leafgrad(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    done = _run(["run", str(script), "3", "--flag"])
    assert done.returncode == 3, done.stderr
    facts = json.loads(done.stdout)
    assert facts["argv"] == [str(script), "3", "--flag"]
    assert facts["name"] == "__main__"
    assert facts["is_leafgrad"] and facts["functional"] and facts["nn"]
    assert facts["torch_version"] == facts["version_module"] == "2.13.0+leafgrad.0.1.0"
    assert facts["leafgrad_version"] == leafgrad.__version__ == "0.1.0"
    assert facts["cuda"] is False


def test_a_module_runs_with_dash_m(tmp_path):
    (tmp_path / "probe_module.py").write_text(PROBE)
    done = _run(["run", "-m", "probe_module"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["name"] == "__main__"


def test_a_failing_script_exits_1_with_its_traceback_and_a_missing_one_2(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text("import torch\nraise ValueError('boom in the script')\n")
    done = _run(["run", str(script)])
    assert done.returncode == 1
    assert "ValueError: boom in the script" in done.stderr
    missing = _run(["run", str(tmp_path / "nope.py")])
    assert missing.returncode == 2 and "nope.py" in missing.stderr
    # a data file the script cannot find is the script's error, not a usage error
    reads = tmp_path / "reads.py"
    reads.write_text("open('no_such_dataset.npz')\n")
    done = _run(["run", str(reads)])
    assert done.returncode == 1
    assert "FileNotFoundError" in done.stderr and "no_such_dataset.npz" in done.stderr
    assert "usage:" not in done.stderr


def test_a_torch_submodule_leafgrad_lacks_is_named_in_the_error(tmp_path):
    script = tmp_path / "missing.py"
    script.write_text("import torch.distributions.nonexistent_thing\n")
    done = _run(["run", str(script)])
    assert done.returncode == 1
    assert "ModuleNotFoundError" in done.stderr and "torch.distributions" in done.stderr


def test_install_as_torch_refuses_once_pytorch_is_imported():
    pytest.importorskip("torch")
    code = (
        "import torch, leafgrad\n"
        "try:\n    leafgrad.install_as_torch()\n"
        "except RuntimeError as e:\n    print('refused', e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT})  # fmt: skip
    assert done.stdout.startswith("refused") and "already imported" in done.stdout


TRAINING = textwrap.dedent(
    """
    import sys
    import numpy as np
    import torch
    from torch import nn

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1)).double().to(device)
    weights = np.load(sys.argv[1])
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.from_numpy(weights[f"p{i}"]))
    points = torch.utils.data.TensorDataset(torch.tensor(weights["x"]))
    loader = torch.utils.data.DataLoader(points, batch_size=16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    schedule = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for epoch in range(5):
        for (x,) in loader:
            x = x.to(device).requires_grad_()
            opt.zero_grad()
            u = model(x)
            (u_x,) = torch.autograd.grad(u.sum(), x, create_graph=True)
            loss = ((u_x[:, 0:1] - torch.cos(x[:, 0:1])) ** 2).mean() + (u**2).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            print(repr(loss.item()))
        schedule.step()
    """
)


def test_a_pytorch_training_script_gives_pytorchs_losses_from_the_same_weights(tmp_path):
    pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    shapes = [(16, 2), (16,), (1, 16), (1,)]
    weights = {f"p{i}": rng.standard_normal(s) * 0.5 for i, s in enumerate(shapes)}
    weights["x"] = rng.uniform(-1, 1, (64, 2))
    np.savez(tmp_path / "w.npz", **weights)
    script = tmp_path / "train.py"
    script.write_text(TRAINING)
    ours = _run(["run", str(script), str(tmp_path / "w.npz")])
    assert ours.returncode == 0, ours.stderr
    theirs = subprocess.run([sys.executable, str(script), str(tmp_path / "w.npz")],
                            capture_output=True, text=True)  # fmt: skip
    assert theirs.returncode == 0, theirs.stderr
    a = np.array([float(v) for v in ours.stdout.split()])
    b = np.array([float(v) for v in theirs.stdout.split()])
    assert len(a) == len(b) == 20
    np.testing.assert_allclose(a, b, rtol=1e-8)  # float64, 20 dependent steps
    assert a[-1] < a[0]


def test_torch_version_under_leafgrad_run_compares_as_a_version(tmp_path):
    """Libraries gate features on ``torch.__version__ >= (1, 10)``: a plain string raised."""
    script = tmp_path / "version_check.py"
    script.write_text(
        "import torch\n"
        "assert torch.__version__ >= (2, 0) and torch.__version__ > '2.9'\n"
        "print(type(torch.__version__).__name__)\n"
    )
    done = _run(["run", str(script)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "TorchVersion"


# Module paths PyTorch scripts import names from (``from torch.utils.data.dataloader import
# DataLoader``), with the names each must offer.
IMPORT_PATHS = {
    "utils.data.dataloader": [
        "DataLoader",
        "default_collate",
        "default_convert",
        "get_worker_info",
    ],
    "utils.data._utils.collate": ["default_collate", "default_convert"],
    "optim.adamw": ["AdamW"],
    "autograd.grad_mode": ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"],
    "autograd.anomaly_mode": ["detect_anomaly", "set_detect_anomaly"],
    "storage": ["TypedStorage", "UntypedStorage"],
}


@pytest.mark.parametrize("path", list(IMPORT_PATHS))
def test_pytorchs_module_paths_import(path):
    import importlib  # why: the module under test is named at run time

    module = importlib.import_module(f"leafgrad.{path}")
    for name in IMPORT_PATHS[path]:
        assert getattr(module, name) is not None, (path, name)
    loader = importlib.import_module("leafgrad.utils.data").DataLoader
    assert getattr(module, "DataLoader", loader) is loader


def test_dataloader_module_path_under_leafgrad_run(tmp_path):
    script = tmp_path / "loader.py"
    script.write_text(
        "import torch\n"
        "from torch.utils.data.dataloader import DataLoader, default_collate\n"
        "from torch.utils.data import TensorDataset\n"
        "from torch.autograd.grad_mode import no_grad\n"
        "batches = list(DataLoader(TensorDataset(torch.arange(4.0)), batch_size=2))\n"
        "print(len(batches), default_collate([torch.ones(2), torch.ones(2)]).shape)\n"
    )
    done = _run(["run", str(script)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2 torch.Size([2, 2])"
