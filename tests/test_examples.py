"""Every script in examples/ runs to the end (each checks its own results with asserts).

``pytorch_*.py`` are plain PyTorch scripts, run with ``leafgrad run`` (and once with PyTorch
itself, to show they are genuine PyTorch); ``deepxde_*.py`` run DeepXDE's PyTorch backend on
leafgrad, when DeepXDE is installed. Each runs in a fresh process in an empty folder.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from leafgrad import tour

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*.py"))
ON_LEAFGRAD = "tensors from leafgrad"


def _run(args, cwd, **env):
    environ = dict(
        os.environ, MPLBACKEND="Agg", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **env
    )
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=environ, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_the_example_runs(script, tmp_path):
    env = {}
    if script.name.startswith("deepxde_"):
        if importlib.util.find_spec("deepxde") is None:
            pytest.skip("DeepXDE is not installed (pip install deepxde)")
        env["DDE_BACKEND"] = "pytorch"
    via_run = script.name.startswith(("pytorch_", "deepxde_"))
    args = ["-m", "leafgrad", "run", str(script)] if via_run else [str(script)]
    done = _run(args, tmp_path, **env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip(), "the example printed nothing"
    if via_run:
        assert ON_LEAFGRAD in done.stdout, "import torch did not give leafgrad"


def test_the_pytorch_example_is_plain_pytorch(tmp_path):
    pytest.importorskip("torch")
    script = REPO / "examples" / "pytorch_regression.py"
    done = _run([str(script)], tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "tensors from torch" in done.stdout


def test_every_example_is_listed_in_the_docs():
    listed = (REPO / "docs" / "examples.md").read_text(encoding="utf-8")
    assert EXAMPLES, "examples/ is empty"
    for script in EXAMPLES:
        assert f"examples/{script.name}" in listed, f"docs/examples.md does not list {script.name}"


def test_the_tour_runs_every_step(capsys):
    tour.main()
    out = capsys.readouterr().out
    for step in range(1, 7):
        assert f"== {step}. " in out
    assert "d2b/da2 = 18.0" in out
