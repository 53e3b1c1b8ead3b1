"""``leafgrad solve``: what it writes, what it prints, and how it refuses bad usage.

Runs use ``--preset tiny --no-progress`` and are made in-process with ``leafgrad.cli.main``;
one runs through ``python -m leafgrad.cli`` to show the module entry works.
"""

import csv
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import cli
from leafgrad.pinn import TrainConfig, Trainer, plots, problems
from leafgrad.pinn.problems._burgers_reference import burgers_reference

TINY = ["--preset", "tiny", "--no-progress"]
FILES = ["metrics.json", "history.csv", "checkpoint.lg", "prediction.npz"]
FIGURES = ["solution.png", "slices.png", "loss.png"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    # A run without --out writes runs/PROBLEM under the working directory: keep that here.
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def no_figures(monkeypatch):
    """Skip the figures (a second each) in tests about something else."""
    monkeypatch.setattr(plots, "available", lambda: False)


def solve(capsys, *args):
    """Run ``leafgrad solve ARGS`` in-process: (exit status, stdout, stderr)."""
    status = cli.main(["solve", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def usage_error(capsys, *args):
    """Run a command that must be refused as bad usage: its stderr."""
    with pytest.raises(SystemExit) as exc:
        cli.main(["solve", *map(str, args)])
    assert exc.value.code == 2
    return capsys.readouterr().err


def read_history(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def read_metrics(out):
    with open(out / "metrics.json") as fh:
        return json.load(fh)


@pytest.fixture(scope="module")
def burgers_run(tmp_path_factory):
    """One ``solve burgers --preset tiny`` shared by the tests of what it writes."""
    out = tmp_path_factory.mktemp("burgers")
    status = cli.main(["solve", "burgers", *TINY, "--out", str(out)])
    return status, out


# ----------------------------------------------------------------------------- a run's files
def test_solve_burgers_writes_every_promised_file(burgers_run):
    status, out = burgers_run
    assert status == 0
    names = set(os.listdir(out))
    assert names == set(FILES + FIGURES)  # and no temporary file left behind


def test_metrics_json_describes_the_run(burgers_run):
    _, out = burgers_run
    metrics = read_metrics(out)
    assert metrics["problem"] == "burgers"
    assert metrics["status"] == "ok"
    assert isinstance(metrics["relative_l2"], float) and 0 < metrics["relative_l2"] < 2
    assert metrics["seconds"] > 0
    assert (metrics["steps"], metrics["adam_steps"], metrics["lbfgs_steps"]) == (30, 20, 10)
    settings = metrics["settings"]
    assert (settings["width"], settings["depth"], settings["collocation"]) == (8, 2, 64)
    assert settings["method"] == "taylor" and settings["dtype"] == "float64"
    assert (settings["adam_steps"], settings["lbfgs_steps"]) == (20, 10)
    assert settings["hard_constraints"] is True  # burgers' default, kept by the preset
    assert metrics["coefficients"] == {} and metrics["true_coefficients"] == {}


def test_relative_l2_is_that_of_the_written_prediction(burgers_run):
    _, out = burgers_run
    data = np.load(out / "prediction.npz")
    u, u_ref = data["u"], data["u_ref"]
    expected = np.linalg.norm(u - u_ref) / np.linalg.norm(u_ref)
    assert read_metrics(out)["relative_l2"] == pytest.approx(expected, rel=1e-12)


def test_history_csv_has_one_row_per_step_adam_then_lbfgs(burgers_run):
    _, out = burgers_run
    header, rows = read_history(out / "history.csv")
    # burgers builds its initial and boundary values in by default: the PDE is the only term.
    assert header == ["step", "phase", "seconds", "pde", "total"]
    assert [int(r[0]) for r in rows] == list(range(1, 31))
    assert [r[1] for r in rows] == ["adam"] * 20 + ["lbfgs"] * 10
    seconds = [float(r[2]) for r in rows]
    assert seconds == sorted(seconds) and seconds[0] > 0
    pde, total = (np.array([float(r[k]) for r in rows]) for k in (3, 4))
    np.testing.assert_array_equal(pde, total)
    assert np.all(np.isfinite(total)) and total[-1] < total[0]
    assert read_metrics(out)["final_loss"] == {"pde": pde[-1], "total": total[-1]}


def test_the_checkpoint_loads_and_holds_the_trained_network(burgers_run):
    _, out = burgers_run
    state = lg.load(str(out / "checkpoint.lg"))
    assert state["step"] == 30 and state["phase"] == "lbfgs"
    assert len(state["history"]["steps"]) == 30
    problem = problems.get("burgers")
    trainer = Trainer(problem, TrainConfig.for_problem(problem, "tiny"), progress=False)
    trainer.model.load_state_dict(state["model"])
    _, points, shape = problem.grid_points()
    u = np.load(out / "prediction.npz")["u"]
    np.testing.assert_allclose(trainer.predict(points).reshape(shape), u, rtol=0, atol=1e-14)


def test_prediction_npz_holds_the_grid_the_prediction_and_the_reference(burgers_run):
    _, out = burgers_run
    data = np.load(out / "prediction.npz")
    assert sorted(data.files) == ["t", "u", "u_ref", "x"]
    x, t, u, u_ref = data["x"], data["t"], data["u"], data["u_ref"]
    assert x.shape == (256,) and t.shape == (100,)
    np.testing.assert_array_equal(x, np.linspace(-1, 1, 256))
    np.testing.assert_allclose(t, np.arange(100) / 100, rtol=0, atol=1e-15)
    assert u.shape == u_ref.shape == (100, 256)
    assert np.all(np.isfinite(u))
    np.testing.assert_allclose(u_ref[0], -np.sin(np.pi * x), rtol=0, atol=1e-12)
    for i, j in [(1, 0), (25, 100), (50, 128), (99, 127), (99, 200), (70, 255)]:
        assert u_ref[i, j] == pytest.approx(burgers_reference(x[j], t[i]), rel=1e-12, abs=1e-14)
    # u[t, x], not u[x, t]: at the last time the shock at x = 0 is steep.
    assert u_ref[99, 124] > 0.7 and u_ref[99, 131] < -0.7


@pytest.mark.parametrize("name", FIGURES)
def test_figures_are_png_images(burgers_run, name):
    import matplotlib.image

    _, out = burgers_run
    with open(out / name, "rb") as fh:
        assert fh.read(8) == PNG_SIGNATURE
    image = matplotlib.image.imread(out / name)
    assert image.ndim in (2, 3)
    height, width = image.shape[:2]
    assert 150 < height < 3000 and 150 < width < 5000
    assert image.std() > 0  # not a blank canvas


@pytest.mark.usefixtures("no_figures")
def test_the_output_gives_the_error_and_the_derivative_method(capsys, tmp_path):
    status, out, _ = solve(capsys, "heat1d", *TINY, "--out", tmp_path / "run")
    assert status == 0
    error = read_metrics(tmp_path / "run")["relative_l2"]
    assert f"relative L2 error: {error:.3e}" in out
    assert "derivatives: taylor mode" in out
    assert "wrote" in out and "metrics.json" in out

    status, out, _ = solve(capsys, "heat1d", *TINY, "--method", "reverse", "--out", tmp_path / "t")
    assert status == 0
    assert "derivatives: reverse mode" in out
    assert read_metrics(tmp_path / "t")["settings"]["method"] == "reverse"


def test_the_module_runs_as_a_program(tmp_path):
    out = tmp_path / "run"
    args = ["solve", "poisson2d", *TINY, "--adam", "3", "--lbfgs", "2", "--out", str(out)]
    # The leafgrad under test, not whichever one is installed.
    root = os.path.dirname(os.path.dirname(lg.__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "leafgrad.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "relative L2 error" in done.stdout
    assert read_metrics(out)["steps"] == 5


# ----------------------------------------------------------------------------- --list
def test_list_names_every_problem_and_exits_0(capsys):
    status, out, _ = solve(capsys, "--list")
    assert status == 0
    listed = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert listed == list(problems.PROBLEMS)
    assert "tiny" in out


# ----------------------------------------------------------------------------- usage errors
@pytest.mark.parametrize(
    "args, message",
    [
        (["nope", *TINY], "unknown problem 'nope'"),
        (["burgers", "--bogus", *TINY], "unrecognized arguments: --bogus"),
        (["burgers", "--preset", "huge", "--no-progress"], "unknown preset 'huge'"),
        (["burgers", *TINY, "--width", "0"], "width must be positive"),
        (["burgers", *TINY, "--width", "abc"], "argument --width: invalid int value: 'abc'"),
        (["burgers", *TINY, "--adam", "-1"], "adam_steps must be >= 0"),
        (["burgers", *TINY, "--lr", "0"], "lr must be positive"),
        (["burgers", *TINY, "--dtype", "float16"], "argument --dtype: invalid choice: 'float16'"),
        (["burgers", *TINY, "--method", "forward"], "argument --method: invalid choice"),
        (["burgers", *TINY, "--resume"], "--resume: no checkpoint"),
        ([*TINY], "name a problem"),
    ],
    ids=[
        "unknown-problem", "unknown-flag", "unknown-preset", "zero-width", "non-int-width",
        "negative-steps", "zero-lr", "bad-dtype", "bad-method", "resume-without-checkpoint",
        "no-problem",
    ],
)  # fmt: skip
def test_usage_errors_exit_with_status_2_naming_the_problem_and_write_nothing(
    capsys, tmp_path, args, message
):
    out = tmp_path / "run"
    err = usage_error(capsys, *args, "--out", out)
    assert message in err
    assert not out.exists() or os.listdir(out) == []


def test_unknown_problem_lists_the_known_ones(capsys):
    err = usage_error(capsys, "nope", *TINY)
    assert all(name in err for name in problems.PROBLEMS)


def test_an_output_folder_that_cannot_be_made_exits_with_status_2(capsys, tmp_path):
    (tmp_path / "file").write_text("not a folder")
    err = usage_error(capsys, "heat1d", *TINY, "--out", tmp_path / "file" / "run")
    assert "cannot write to the output folder" in err and "file" in err
    assert (tmp_path / "file").read_text() == "not a folder"
    assert os.listdir(tmp_path) == ["file"]


@pytest.mark.usefixtures("no_figures")
def test_resume_with_other_settings_exits_2_and_keeps_the_checkpoint(capsys, tmp_path):
    out = tmp_path / "run"
    assert solve(capsys, "heat1d", *TINY, "--adam", "3", "--lbfgs", "2", "--out", out)[0] == 0
    checkpoint = (out / "checkpoint.lg").read_bytes()
    status, _, err = solve(capsys, "heat1d", *TINY, "--width", "9", "--resume", "--out", out)
    assert status == 2
    assert "width=8" in err
    assert (out / "checkpoint.lg").read_bytes() == checkpoint


# ----------------------------------------------------------------------------- problems
@pytest.mark.usefixtures("no_figures")
def test_burgers_inverse_reports_the_learned_nu(capsys, tmp_path):
    status, out, _ = solve(capsys, "burgers-inverse", *TINY, "--out", tmp_path)
    assert status == 0
    metrics = read_metrics(tmp_path)
    nu = metrics["coefficients"]["nu"]
    assert isinstance(nu, float) and nu > 0
    assert nu != pytest.approx(0.05, rel=1e-6)  # moved from where it started
    assert metrics["true_coefficients"] == {"nu": pytest.approx(0.01 / math.pi, rel=1e-15)}
    assert f"learned nu = {nu:.6g} (true {0.01 / math.pi:.6g}" in out


@pytest.mark.parametrize("name", list(problems.PROBLEMS))
@pytest.mark.usefixtures("no_figures")
def test_every_problem_runs_a_few_steps_and_reports_a_finite_error(capsys, tmp_path, name):
    status, _, err = solve(capsys, name, *TINY, "--adam", "3", "--lbfgs", "2", "--out", tmp_path)
    assert status == 0, err
    metrics = read_metrics(tmp_path)
    assert metrics["problem"] == name and metrics["status"] == "ok"
    assert math.isfinite(metrics["relative_l2"]) and metrics["relative_l2"] > 0
    assert (metrics["steps"], metrics["adam_steps"], metrics["lbfgs_steps"]) == (5, 3, 2)
    header, rows = read_history(tmp_path / "history.csv")
    assert header[:3] == ["step", "phase", "seconds"]
    assert header[3:] == list(metrics["final_loss"]) and header[-1] == "total"
    assert [r[1] for r in rows] == ["adam"] * 3 + ["lbfgs"] * 2
    for row in rows:
        terms = [float(v) for v in row[3:]]
        assert terms[-1] == pytest.approx(sum(terms[:-1]), rel=1e-12)
    assert sorted(os.listdir(tmp_path)) == sorted(FILES)


# ----------------------------------------------------------------------------- --resume
@pytest.mark.usefixtures("no_figures")
def test_resume_continues_the_step_count_from_the_checkpoint(capsys, tmp_path):
    assert solve(capsys, "burgers", *TINY, "--out", tmp_path)[0] == 0
    _, first = read_history(tmp_path / "history.csv")
    assert len(first) == 30
    status, _, _ = solve(capsys, "burgers", *TINY, "--adam", "30", "--resume", "--out", tmp_path)
    assert status == 0
    _, rows = read_history(tmp_path / "history.csv")
    assert [int(r[0]) for r in rows] == list(range(1, 41))
    assert [r[3:] for r in rows[:30]] == [r[3:] for r in first]  # the old steps kept as they were
    assert rows[30][3] != first[0][3]  # step 31 does not start again from fresh weights
    assert float(rows[30][2]) >= float(first[-1][2])  # nor does the clock
    metrics = read_metrics(tmp_path)
    assert metrics["steps"] == 40
    assert metrics["adam_steps"] + metrics["lbfgs_steps"] == 40
    assert lg.load(str(tmp_path / "checkpoint.lg"))["step"] == 40


@pytest.mark.usefixtures("no_figures")
def test_a_resumed_run_follows_the_uninterrupted_run(capsys, tmp_path):
    # Stopped inside the L-BFGS phase, then resumed to the end of the tiny preset.
    assert solve(capsys, "heat1d", *TINY, "--lbfgs", "4", "--out", tmp_path / "a")[0] == 0
    assert solve(capsys, "heat1d", *TINY, "--resume", "--out", tmp_path / "a")[0] == 0
    assert solve(capsys, "heat1d", *TINY, "--out", tmp_path / "b")[0] == 0
    _, resumed = read_history(tmp_path / "a" / "history.csv")
    _, straight = read_history(tmp_path / "b" / "history.csv")
    assert [r[:2] for r in resumed] == [r[:2] for r in straight]
    np.testing.assert_allclose(
        [[float(v) for v in r[3:]] for r in resumed],
        [[float(v) for v in r[3:]] for r in straight],
        rtol=1e-12,
    )


# ----------------------------------------------------------------------------- no matplotlib
def test_without_matplotlib_it_still_trains_and_says_how_to_get_figures(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setattr(plots, "available", lambda: False)
    status, out, _ = solve(capsys, "heat1d", *TINY, "--adam", 3, "--lbfgs", 2, "--out", tmp_path)
    assert status == 0
    assert "pip install" in out
    assert sorted(os.listdir(tmp_path)) == sorted(FILES)
    assert not any(name.endswith(".png") for name in os.listdir(tmp_path))
    assert math.isfinite(read_metrics(tmp_path)["relative_l2"])
