"""Differential tests: leafgrad's L-BFGS follows PyTorch's iterations and line searches."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._tolerance import assert_close, tolerance
from . import compare, problems

torch = pytest.importorskip("torch")


def _run_lbfgs(lib, x0, loss_fn, steps, **options):
    x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([x], **options)

    def closure():
        opt.zero_grad()
        loss = loss_fn(x)
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(steps)]
    state = opt.state[x]
    return x.detach().numpy().copy(), losses, state["func_evals"], state["n_iter"]


# Configurations where the trajectory is well conditioned: elsewhere fixed-step L-BFGS on
# Rosenbrock amplifies last-bit differences (PyTorch's kernels fuse multiply-adds, NumPy's
# cannot) until they are visible, which says nothing about the algorithm.
ROSENBROCK_CASES = [
    ([-1.2, 1.0], {"line_search_fn": "strong_wolfe"}),
    ([-1.2, 1.0], {"line_search_fn": "strong_wolfe", "history_size": 5, "max_iter": 50}),
    ([-1.2, 1.0], {"lr": 0.5}),
    ([0.0, 0.0], {"line_search_fn": "strong_wolfe", "lr": 0.1}),
    ([1.5, 1.5], {}),
    ([1.5, 1.5], {"history_size": 5, "max_iter": 50}),
    ([0.5, 0.5, 0.5], {}),
    ([0.5, 0.5, 0.5], {"line_search_fn": "strong_wolfe", "max_eval": 15}),
    ([-1.2, 1.0, -1.2, 1.0], {"history_size": 5, "max_iter": 50}),
    ([-1.2, 1.0, -1.2, 1.0], {"line_search_fn": "strong_wolfe", "history_size": 5, "max_iter": 50}),
]


@pytest.mark.parametrize(
    ("x0", "options"), ROSENBROCK_CASES, ids=[str(c) for c in ROSENBROCK_CASES]
)
def test_lbfgs_on_rosenbrock_matches_torch(x0, options):
    ours = _run_lbfgs(leafgrad, x0, lambda x: problems.rosenbrock(leafgrad, x), 5, **options)
    theirs = _run_lbfgs(torch, x0, lambda x: problems.rosenbrock(torch, x), 5, **options)
    assert_close(ours[0], theirs[0], "iterative")
    assert_close(ours[1], theirs[1], "iterative")
    assert ours[2:] == theirs[2:]  # the same number of evaluations and iterations


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("options", [{}, {"lr": 0.3, "history_size": 2, "max_iter": 7}])
def test_lbfgs_on_least_squares_matches_torch(line_search_fn, options):
    def loss_fn(x):
        lib = leafgrad if isinstance(x, leafgrad.Tensor) else torch
        return problems.lsq_loss(lib, [x])

    ours = _run_lbfgs(
        leafgrad, problems.LSQ_X0, loss_fn, 3, line_search_fn=line_search_fn, **options
    )
    theirs = _run_lbfgs(
        torch, problems.LSQ_X0, loss_fn, 3, line_search_fn=line_search_fn, **options
    )
    assert_close(ours[0], theirs[0], "iterative")
    assert_close(ours[1], theirs[1], "iterative")
    assert ours[2:] == theirs[2:]


def test_lbfgs_solves_least_squares():
    def loss_fn(x):
        return problems.lsq_loss(leafgrad, [x])

    x, *_ = _run_lbfgs(leafgrad, problems.LSQ_X0, loss_fn, 3, line_search_fn="strong_wolfe")
    expected = np.linalg.lstsq(problems.LSQ_A, problems.LSQ_B, rcond=None)[0]
    np.testing.assert_allclose(x, expected, atol=1e-5)


def test_lbfgs_state_dict_has_torchs_layout():
    results = []
    for lib in (leafgrad, torch):
        x = lib.tensor([-1.2, 1.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([x], history_size=4, line_search_fn="strong_wolfe")

        def closure(opt=opt, x=x, lib=lib):
            opt.zero_grad()
            loss = problems.rosenbrock(lib, x)
            loss.backward()
            return loss

        opt.step(closure)
        results.append(compare.state_as_python(opt.state_dict()))
    ours, theirs = results
    assert ours["param_groups"] == theirs["param_groups"]
    a, b = ours["state"][0], theirs["state"][0]
    assert a.keys() == b.keys()
    # One L-BFGS step is up to 20 iterations with line searches: compare as iterative results.
    rtol, atol = tolerance(np.float64, "iterative")
    for key in a:
        if isinstance(a[key], tuple) and a[key] and a[key][0] == "tensor":
            assert a[key][:3] == b[key][:3], key
            assert_close(a[key][3], b[key][3], "iterative")
        elif isinstance(a[key], list):
            assert len(a[key]) == len(b[key]), key
            for u, v in zip(a[key], b[key]):
                if u is None or v is None:
                    assert u is v, key
                else:
                    assert u[:3] == v[:3], key
                    assert_close(u[3], v[3], "iterative")
        elif isinstance(a[key], int):  # evaluation and iteration counts
            assert type(a[key]) is type(b[key]) and a[key] == b[key], key
        else:
            assert a[key] == pytest.approx(b[key], rel=rtol, abs=atol), key
