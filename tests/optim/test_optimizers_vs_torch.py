"""Differential tests: leafgrad's optimisers follow PyTorch's trajectories step for step."""

from __future__ import annotations

import numpy as np
import pytest

import leafgrad

from .._tolerance import assert_close, tolerance
from . import problems

torch = pytest.importorskip("torch")

FIRST_ORDER = {
    "sgd": lambda optim, ps: optim.SGD(ps, lr=0.1),
    "sgd_momentum_dampening": lambda optim, ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.2),
    "sgd_momentum_weight_decay": lambda optim, ps: optim.SGD(
        ps, lr=0.05, momentum=0.9, weight_decay=0.01
    ),
    "sgd_nesterov_weight_decay": lambda optim, ps: optim.SGD(
        ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01
    ),
    "sgd_maximize": lambda optim, ps: optim.SGD(ps, lr=0.01, momentum=0.5, maximize=True),
    "sgd_nesterov_maximize": lambda optim, ps: optim.SGD(
        ps, lr=0.01, momentum=0.5, nesterov=True, weight_decay=0.1, maximize=True
    ),
    "adam": lambda optim, ps: optim.Adam(ps, lr=0.05),
    "adam_weight_decay": lambda optim, ps: optim.Adam(ps, lr=0.05, weight_decay=0.01),
    "adam_amsgrad": lambda optim, ps: optim.Adam(ps, lr=0.05, amsgrad=True),
    "adam_amsgrad_maximize": lambda optim, ps: optim.Adam(
        ps, lr=0.01, betas=(0.8, 0.99), amsgrad=True, maximize=True, weight_decay=0.1
    ),
    "adamw": lambda optim, ps: optim.AdamW(ps, lr=0.05),
    "adamw_weight_decay": lambda optim, ps: optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    "adamw_amsgrad": lambda optim, ps: optim.AdamW(ps, lr=0.05, amsgrad=True, weight_decay=0.1),
    "adamw_maximize": lambda optim, ps: optim.AdamW(ps, lr=0.01, maximize=True, eps=1e-6),
    "rmsprop": lambda optim, ps: optim.RMSprop(ps, lr=0.01),
    "rmsprop_centered": lambda optim, ps: optim.RMSprop(ps, lr=0.01, centered=True),
    "rmsprop_momentum": lambda optim, ps: optim.RMSprop(ps, lr=0.01, momentum=0.9),
    "rmsprop_centered_momentum_weight_decay": lambda optim, ps: optim.RMSprop(
        ps, lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01
    ),
    "rmsprop_maximize": lambda optim, ps: optim.RMSprop(ps, lr=0.001, maximize=True),
}


def _assert_close(ours, theirs):
    """Parameters after many steps: rounding differences compound (see tests/_tolerance.py)."""
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        assert_close(a, b, "iterative")


@pytest.mark.parametrize("name", sorted(FIRST_ORDER))
@pytest.mark.parametrize(
    ("problem", "loss_fn"),
    [(problems.mlp_params, problems.mlp_loss), (problems.lsq_params, problems.lsq_loss)],
    ids=["mlp", "least_squares"],
)
def test_twenty_steps_match_torch_in_float64(name, problem, loss_fn):
    make = FIRST_ORDER[name]
    ours = problems.train(leafgrad, lambda ps: make(leafgrad.optim, ps), problem(leafgrad), loss_fn)
    theirs = problems.train(torch, lambda ps: make(torch.optim, ps), problem(torch), loss_fn)
    _assert_close(ours, theirs)


@pytest.mark.parametrize(
    "name", ["sgd_nesterov_weight_decay", "adam_amsgrad", "adamw", "rmsprop_centered"]
)
def test_float32_parameters_follow_torch(name):
    make = FIRST_ORDER[name]
    ours = problems.train(
        leafgrad,
        lambda ps: make(leafgrad.optim, ps),
        problems.mlp_params(leafgrad, "float32"),
        problems.mlp_loss,
    )
    theirs = problems.train(
        torch,
        lambda ps: make(torch.optim, ps),
        problems.mlp_params(torch, "float32"),
        problems.mlp_loss,
    )
    assert all(a.dtype == np.float32 for a in ours)
    _assert_close(ours, theirs)


@pytest.mark.parametrize(
    "name", ["sgd", "adam", "adamw_amsgrad", "rmsprop_centered_momentum_weight_decay"]
)
def test_per_group_options_match_torch(name):
    def make(optim, ps):
        base = FIRST_ORDER[name](optim, [ps[0]])
        base.add_param_group({"params": [ps[1]], "lr": 0.003})
        base.add_param_group({"params": [ps[2]], "weight_decay": 0.2})
        return base

    ours = problems.train(
        leafgrad,
        lambda ps: make(leafgrad.optim, ps),
        problems.mlp_params(leafgrad),
        problems.mlp_loss,
    )
    theirs = problems.train(
        torch, lambda ps: make(torch.optim, ps), problems.mlp_params(torch), problems.mlp_loss
    )
    _assert_close(ours, theirs)


def _state_as_python(state_dict):
    """A state dict with tensors replaced by (dtype name, shape, values) for comparison."""

    def convert(value):
        if isinstance(value, (leafgrad.Tensor, torch.Tensor)):
            return (
                "tensor",
                str(value.dtype).split(".")[-1],
                tuple(value.shape),
                value.detach().numpy().copy(),
            )
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(convert(v) for v in value)
        return value

    return convert(state_dict)


@pytest.mark.parametrize("name", sorted(FIRST_ORDER))
def test_state_dict_has_torchs_layout(name):
    make = FIRST_ORDER[name]
    results = []
    for lib in (leafgrad, torch):
        params = problems.mlp_params(lib)
        opt = make(lib.optim, params)
        for _ in range(3):
            opt.zero_grad()
            problems.mlp_loss(lib, params).backward()
            opt.step()
        results.append(_state_as_python(opt.state_dict()))
    ours, theirs = results
    assert ours["param_groups"] == theirs["param_groups"]
    assert ours["state"].keys() == theirs["state"].keys()
    for index in ours["state"]:
        a, b = ours["state"][index], theirs["state"][index]
        assert a.keys() == b.keys()
        for key in a:
            assert a[key][:3] == b[key][:3], key  # kind, dtype, shape
            if key == "step":  # a count, exact
                np.testing.assert_array_equal(a[key][3], b[key][3])
            else:
                assert_close(a[key][3], b[key][3], "iterative")


def test_params_without_grad_are_skipped_like_torch():
    results = []
    for lib in (leafgrad, torch):
        params = problems.mlp_params(lib)
        frozen = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adam(params + [frozen], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            problems.mlp_loss(lib, params).backward()
            opt.step()
        results.append((frozen.detach().numpy().tolist(), sorted(opt.state_dict()["state"])))
    assert results[0] == results[1]


# ----------------------------------------------------------------------------- LBFGS
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
        results.append(_state_as_python(opt.state_dict()))
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


def test_load_state_dict_shares_state_tensors_like_torch():
    shared = []
    for lib in (leafgrad, torch):
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        a.grad = lib.tensor([0.5, -0.5], dtype=lib.float64)
        source = lib.optim.Adam([a])
        source.step()
        b = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        target = lib.optim.Adam([b])
        target.load_state_dict(source.state_dict())
        shared.append(
            (
                target.state[b]["exp_avg"] is source.state[a]["exp_avg"],
                target.state[b]["step"] is source.state[a]["step"],
                source.state_dict()["state"][0]["exp_avg"] is source.state[a]["exp_avg"],
            )
        )
    assert shared[0] == shared[1]


def test_zero_grad_and_non_leaf_errors_match_torch():
    outcomes = []
    for lib in (leafgrad, torch):
        x = lib.ones(3, requires_grad=True)
        results = []
        for params in ([x * 2], [lib.zeros(3)], [{"params": [x]}, {"params": [x]}]):
            try:
                lib.optim.SGD(params, lr=0.1)
                results.append(None)
            except Exception as exc:
                results.append(type(exc).__name__)
        opt = lib.optim.SGD([x], lr=0.1)
        (x * x).sum().backward()
        opt.zero_grad(set_to_none=False)
        results.append(x.grad.tolist())
        opt.zero_grad()
        results.append(x.grad)
        outcomes.append(results)
    assert outcomes[0] == outcomes[1]
