"""``python -m benchmarks --quick`` runs every workload and writes its Markdown and JSON
(the files and their fields are checked, never the timings)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = {
    "chain-small",
    "chain-medium",
    "mlp-regression",
    "burgers-64-float64",
    "burgers-64-float32",
    "laplacian-d3-32",
    "tiny-pinn",
    "pinn-script",
    "allen-cahn",
    "pinn-minibatch",
    "out-of-place-loop",
    "op-topk",
    "op-cdist",
    "activation-silu-32-float32",
}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--rounds", "1", "--threads", "1"]
        + ["--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads((out / "results.json").read_text())


def test_quick_run_measures_every_workload_with_every_method(quick_run):
    _, data = quick_run
    has_torch = importlib.util.find_spec("torch") is not None
    by_workload: dict = {}
    for row in data["results"]:
        by_workload.setdefault(row["workload"], set()).add(row["method"])
    assert set(by_workload) == WORKLOADS
    assert by_workload["burgers-64-float64"] >= {
        "leafgrad-nested",
        "leafgrad-operators",
        "leafgrad-collapsed",
        "numpy-floor",
    }
    assert ("torch-nested" in by_workload["burgers-64-float64"]) == has_torch
    assert by_workload["activation-silu-32-float32"] >= {"leafgrad-nested", "leafgrad-collapsed"}


def test_quick_run_rows_carry_times_ratios_and_peak_memory(quick_run):
    _, data = quick_run
    has_torch = importlib.util.find_spec("torch") is not None
    for row in data["results"]:
        assert row["threads"] == 1
        assert row["median_s"] > 0 and row["min_s"] <= row["median_s"]
        assert row["rounds"] >= 1
        assert isinstance(row["config"], dict) and row["description"]
        assert (row["ratio"] is not None) == has_torch
        if row["peak_mib"] is not None:  # None only without Linux's /proc counters
            assert row["peak_mib"] >= 0
    loop = [r for r in data["results"] if r["workload"] == "out-of-place-loop"]
    assert loop and all(r["growth"] > 0 and r["first_s"] > 0 for r in loop)
    assert all(r["rounds"] == 6 for r in loop)  # every step of the loop timed


def test_quick_run_describes_the_machine_and_settings(quick_run):
    out, data = quick_run
    assert data["machine"]["cores"] >= 1 and data["machine"]["numpy"]
    assert data["machine"]["simd"] in ("AVX512_SKX", "AVX2", "SSE42", "-")
    blas = data["machine"]["blas"]  # NumPy's BLAS and its kernels, e.g. "openblas 0.3.31 Haswell"
    assert blas == "-" or blas.split()[0] in ("openblas", "mkl", "blis", "flexiblas")
    assert f"BLAS {blas}" in (out / "results.md").read_text()
    assert data["settings"]["quick"] is True and data["settings"]["threads"] == ["1"]
    markdown = (out / "results.md").read_text()
    assert "| workload | threads | method |" in markdown
    for name in WORKLOADS:
        assert f"| {name} | 1 |" in markdown


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_numpy_floor_gives_the_collapsed_steps_loss_gradients_and_update(dtype):
    """The hand-written NumPy Burgers step (benchmarks/floor.py) computes what leafgrad's
    ``taylor.collapsed`` step does: the same loss, gradients and Adam update."""
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import floor, workloads
    finally:
        sys.path.remove(str(ROOT))
    import leafgrad

    n, tol = 200, (1e-12 if dtype == "float64" else 2e-5)
    params = workloads._mlp_params(leafgrad, workloads.BURGERS_SIZES, dtype)
    x, xb, ub = workloads._burgers_data(leafgrad, n, dtype, requires_grad=False)
    arrays = [(w.detach().numpy().copy(), b.detach().numpy().copy()) for w, b in params]
    loss, grads = floor.loss_and_gradients(arrays, x.numpy(), xb.numpy(), ub.numpy())
    opt = leafgrad.optim.Adam(workloads._flat(params), lr=1e-3)
    net = lambda z: workloads.mlp(leafgrad, params, z)
    r = workloads._residual_collapsed(leafgrad, net, x)
    boundary = workloads.mlp(leafgrad, params, xb) - ub
    expected = (r * r).mean() + (boundary * boundary).mean()
    expected.backward()
    assert abs(loss - expected.item()) <= tol * abs(expected.item())
    for (gw, gb), (w, b) in zip(grads, params):
        assert gw.dtype == np.dtype(dtype)
        for got, want in ((gw, w.grad.numpy()), (gb, b.grad.numpy())):
            assert np.abs(got - want).max() <= tol * np.abs(want).max()
    opt.step()
    floor.burgers_step(arrays, x.numpy(), xb.numpy(), ub.numpy())()
    for (w_np, b_np), (w, b) in zip(arrays, params):
        np.testing.assert_allclose(w_np, w.detach().numpy(), rtol=0, atol=10 * tol)
        np.testing.assert_allclose(b_np, b.detach().numpy(), rtol=0, atol=10 * tol)


def _small_ops():
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import small_ops
    finally:
        sys.path.remove(str(ROOT))
    return small_ops


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_small_ops_cases_compute_pytorchs_values(dtype):
    """Every case of ``benchmarks/small_ops.py`` runs in leafgrad (recording, then with its
    backward) and, where PyTorch is installed, gives its values; the timer reports a time."""
    small_ops = _small_ops()
    import leafgrad

    torch = small_ops.torch
    for name, fn in small_ops.CASES.items():
        ours = fn(leafgrad, *small_ops._inputs(leafgrad, True, dtype))
        small_ops._call(leafgrad, fn, "backward", dtype)()
        if torch is None:
            continue
        theirs = fn(torch, *small_ops._inputs(torch, True, dtype))
        if isinstance(theirs, torch.Tensor):
            assert tuple(ours.shape) == tuple(theirs.shape), name
            tol = 1e-5 if dtype == "float32" else 1e-12
            np.testing.assert_allclose(
                ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol, err_msg=name
            )
        else:
            assert ours == pytest.approx(theirs, rel=1e-5), name
    assert (
        small_ops.best_us(small_ops._call(leafgrad, small_ops.CASES["add"], "record", dtype), 3, 1)
        > 0
    )
