"""The training workload of setup.py's profile-guided build (tools/pgo_training.py)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import leafgrad

SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "pgo_training.py"


def _training():
    spec = importlib.util.spec_from_file_location("pgo_training", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_training_workload_has_a_leafgrad_method():
    training = _training()
    chosen = training.training_workloads()
    names = [w.name for w in chosen]
    assert len(names) == len(set(names)) > 20
    for workload in chosen:
        assert any(not m.startswith("torch") and m != "numpy-floor" for m in workload.methods)
    assert any(n.startswith("burgers-") and n.endswith("float32") for n in names)
    assert any(n.startswith("op-") for n in names)


def test_the_training_runs_each_leafgrad_method(capsys):
    training = _training()
    chosen = [w for w in training.training_workloads() if w.name.startswith(("chain-", "burgers"))]
    methods = sum(
        1 for w in chosen for m in w.methods if not m.startswith("torch") and m != "numpy-floor"
    )
    assert training.run(chosen) == methods == 3 + 2 * 3
    assert "skipped" not in capsys.readouterr().err


def test_the_training_refuses_a_leafgrad_from_elsewhere(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--expect", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    where = Path(leafgrad.__file__).resolve().parent.parent
    assert f"leafgrad was imported from {where}, not {tmp_path}" in done.stdout
