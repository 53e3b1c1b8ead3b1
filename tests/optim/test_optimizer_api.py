"""Optimizer behaviour that needs no oracle: construction rules, groups, state, checkpoints."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import leafgrad
from leafgrad import optim

from . import problems

# NAdam and ASGD are left out: as in PyTorch, loading casts their float32 scalar state
# (mu_product; eta, mu) to the float64 parameters' dtype, so a resumed run rounds differently
# (test_optimizer_options_vs_torch.py checks they resume as PyTorch's do).
OPTIMIZERS = {
    "sgd_momentum": lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True),
    "adam_amsgrad": lambda ps: optim.Adam(ps, lr=0.05, amsgrad=True, weight_decay=0.01),
    "adamw": lambda ps: optim.AdamW(ps, lr=0.05),
    "rmsprop_centered_momentum": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "adagrad": lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1),
    "adadelta": lambda ps: optim.Adadelta(ps, weight_decay=0.01),
    "adamax": lambda ps: optim.Adamax(ps, lr=0.05),
    "radam": lambda ps: optim.RAdam(ps, lr=0.05),
    "lbfgs": lambda ps: optim.LBFGS(ps, lr=0.5, max_iter=3, history_size=4),
    "lbfgs_strong_wolfe": lambda ps: optim.LBFGS(
        ps, max_iter=3, history_size=4, line_search_fn="strong_wolfe"
    ),
}


def _step(opt, params):
    def closure():
        opt.zero_grad()
        loss = problems.mlp_loss(leafgrad, params)
        loss.backward()
        return loss

    return opt.step(closure)


def _values(params):
    return [p.detach().numpy().copy() for p in params]


# ----------------------------------------------------------------------------- construction
def test_non_leaf_tensor_raises_value_error():
    x = leafgrad.ones(3, requires_grad=True)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([x * 2], lr=0.1)


def test_non_leaf_that_retains_grad_is_accepted():
    x = leafgrad.ones(3, requires_grad=True)
    y = x * 2
    y.retain_grad()
    optim.SGD([y], lr=0.1)


def test_tensor_not_requiring_grad_is_accepted_and_left_alone():
    # PyTorch accepts it: it never gets a gradient, so every step skips it.
    frozen = leafgrad.tensor([1.0, 2.0])
    params = problems.mlp_params(leafgrad)
    opt = optim.Adam(params + [frozen], lr=0.1)
    _step(opt, params)
    assert frozen.tolist() == [1.0, 2.0]
    assert frozen not in opt.state


def test_parameter_in_two_groups_raises_value_error():
    x = leafgrad.ones(3, requires_grad=True)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [x]}, {"params": [x], "lr": 0.2}], lr=0.1)
    opt = optim.SGD([x], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": x})


def test_duplicate_parameter_within_a_group_warns():
    x = leafgrad.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([x, x], lr=0.1)


@pytest.mark.parametrize(
    ("params", "error"),
    [
        (leafgrad.ones(2, requires_grad=True), TypeError),
        ([], ValueError),
        ([1.0], TypeError),
        ([{"params": {leafgrad.ones(2, requires_grad=True)}}], TypeError),
        (["not a tensor"], TypeError),
    ],
    ids=["bare_tensor", "empty", "float", "set", "string"],
)
def test_bad_params_raise_like_torch(params, error):
    with pytest.raises(error):
        optim.SGD(params, lr=0.1)


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: optim.SGD(ps, lr=-1.0),
        lambda ps: optim.SGD(ps, lr=0.1, momentum=-0.1),
        lambda ps: optim.SGD(ps, lr=0.1, weight_decay=-1),
        lambda ps: optim.SGD(ps, lr=0.1, nesterov=True),
        lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
        lambda ps: optim.Adam(ps, betas=(1.0, 0.999)),
        lambda ps: optim.Adam(ps, betas=(0.9, -0.1)),
        lambda ps: optim.Adam(ps, eps=-1e-8),
        lambda ps: optim.AdamW(ps, weight_decay=-0.1),
        lambda ps: optim.RMSprop(ps, alpha=-0.5),
        lambda ps: optim.RMSprop(ps, momentum=-0.5),
        lambda ps: optim.LBFGS(ps, lr=-1),
    ],
)
def test_invalid_hyperparameters_raise_value_error(make):
    with pytest.raises(ValueError):
        make([leafgrad.ones(2, requires_grad=True)])


def test_required_option_missing_from_group_raises_value_error():
    class Plain(optim.Optimizer):
        def __init__(self, params, lr=optim.optimizer.required):
            super().__init__(params, {"lr": lr})

    x = leafgrad.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="lr"):
        Plain([x])
    assert Plain([{"params": [x], "lr": 0.5}]).param_groups[0]["lr"] == 0.5


def test_lbfgs_refuses_parameter_groups():
    a, b = leafgrad.ones(2, requires_grad=True), leafgrad.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="parameter groups"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])


def test_lbfgs_unknown_line_search_raises_runtime_error():
    params = problems.mlp_params(leafgrad)
    opt = optim.LBFGS(params, line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        _step(opt, params)


def test_differentiable_option_is_refused():
    with pytest.raises(NotImplementedError, match="differentiable"):
        optim.SGD([leafgrad.ones(2, requires_grad=True)], lr=0.1, differentiable=True)


def test_named_parameters_are_recorded_in_the_group():
    x = leafgrad.ones(2, requires_grad=True)
    opt = optim.SGD([("weight", x)], lr=0.1)
    assert opt.param_groups[0]["params"] == [x] or opt.param_groups[0]["params"][0] is x
    assert opt.param_groups[0]["param_names"] == ["weight"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight"]


def test_repr_lists_each_group_options_sorted():
    x = leafgrad.ones(2, requires_grad=True)
    text = repr(optim.SGD([x], lr=0.1))
    assert text.startswith("SGD (\nParameter Group 0\n    dampening: 0\n")
    assert text.endswith("    weight_decay: 0\n)")


# ----------------------------------------------------------------------------- stepping
def test_step_updates_parameters_in_place_and_records_nothing():
    params = problems.mlp_params(leafgrad)
    ids = [id(p) for p in params]
    view = params[0].detach()  # shares storage, as p.data does
    before = view.numpy().copy()
    opt = optim.SGD(params, lr=0.1)
    _step(opt, params)
    assert [id(p) for p in params] == ids
    assert all(p.is_leaf and p.requires_grad and p.grad_fn is None for p in params)
    assert not np.array_equal(view.numpy(), before)  # the view sees the update
    np.testing.assert_array_equal(view.numpy(), params[0].detach().numpy())


def test_step_moves_the_version_counter():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([x], lr=0.1)
    (x * x).sum().backward()
    version = x._version
    opt.step()
    assert x._version > version


def test_backward_through_a_graph_saved_before_the_step_raises():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([x], lr=0.1)
    (x * x).sum().backward()
    stale = (x * x).sum()  # saves x
    opt.step()
    with pytest.raises(RuntimeError):
        stale.backward()


def test_step_returns_the_closure_loss_and_runs_it_with_grad_enabled():
    params = problems.lsq_params(leafgrad)
    opt = optim.Adam(params, lr=0.1)
    seen = []

    def closure():
        seen.append(leafgrad.is_grad_enabled())
        opt.zero_grad()
        loss = problems.lsq_loss(leafgrad, params)
        loss.backward()
        return loss

    with leafgrad.no_grad():
        loss = opt.step(closure)
    assert seen == [True]
    assert isinstance(loss, leafgrad.Tensor) and loss.requires_grad


def test_zero_grad_sets_none_by_default_and_zeros_in_place_otherwise():
    params = problems.mlp_params(leafgrad)
    opt = optim.SGD(params, lr=0.1)
    problems.mlp_loss(leafgrad, params).backward()
    grads = [p.grad for p in params]
    opt.zero_grad(set_to_none=False)
    for p, g in zip(params, grads):
        assert p.grad is g
        assert not np.any(g.numpy())
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_changing_a_group_lr_takes_effect():
    x = leafgrad.tensor([1.0], requires_grad=True)
    opt = optim.SGD([x], lr=0.1)
    x.grad = leafgrad.tensor([1.0])
    opt.param_groups[0]["lr"] = 0.5
    opt.step()
    assert x.tolist() == [0.5]


def test_step_hooks_run_around_step_and_can_be_removed():
    x = leafgrad.tensor([1.0], requires_grad=True)
    x.grad = leafgrad.tensor([1.0])
    opt = optim.SGD([x], lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", x.item())))
    post = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", x.item())))
    opt.step()
    pre.remove()
    post.remove()
    opt.step()
    assert calls == [("pre", 1.0), ("post", pytest.approx(0.9))]


# ----------------------------------------------------------------------------- state dicts
def test_state_dict_keys_state_by_parameter_index():
    params = problems.mlp_params(leafgrad)
    opt = optim.Adam([{"params": params[:2]}, {"params": params[2:], "lr": 0.01}])
    _step(opt, params)
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1, 2]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.01
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    assert sd["state"][0]["step"].item() == 1.0


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_load_state_dict_continues_the_same_trajectory_bitwise(name):
    make = OPTIMIZERS[name]
    params = problems.mlp_params(leafgrad)
    opt = make(params)
    for _ in range(4):
        _step(opt, params)
    twin = [leafgrad.tensor(v, requires_grad=True) for v in _values(params)]
    twin_opt = make(twin)
    # Like PyTorch's, load_state_dict shares the state's tensors with the dict it is given
    # (they already have the right dtype), so the twin must get a copy.
    twin_opt.load_state_dict(copy.deepcopy(opt.state_dict()))
    for _ in range(4):
        _step(opt, params)
        _step(twin_opt, twin)
    for a, b in zip(_values(params), _values(twin)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resuming_from_a_saved_checkpoint_equals_not_stopping(name, tmp_path):
    make = OPTIMIZERS[name]
    path = tmp_path / "checkpoint.lg"

    params = problems.mlp_params(leafgrad)
    opt = make(params)
    for _ in range(5):
        _step(opt, params)
    leafgrad.save({"params": params, "optimizer": opt.state_dict(), "step": 5}, path)
    for _ in range(5):
        _step(opt, params)
    uninterrupted = _values(params)

    checkpoint = leafgrad.load(path)
    assert checkpoint["step"] == 5
    resumed = checkpoint["params"]
    assert all(p.requires_grad and p.is_leaf for p in resumed)
    resumed_opt = make(resumed)
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    for _ in range(5):
        _step(resumed_opt, resumed)
    for a, b in zip(uninterrupted, _values(resumed)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_load_state_dict_takes_options_from_the_saved_groups():
    x = leafgrad.ones(2, requires_grad=True)
    source = optim.SGD([x], lr=0.3, momentum=0.5)
    target = optim.SGD([leafgrad.ones(2, requires_grad=True)], lr=0.1)
    target.load_state_dict(source.state_dict())
    assert target.param_groups[0]["lr"] == 0.3
    assert target.param_groups[0]["momentum"] == 0.5


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    params64 = problems.mlp_params(leafgrad)
    opt64 = optim.Adam(params64)
    _step(opt64, params64)
    params32 = problems.mlp_params(leafgrad, "float32")
    opt32 = optim.Adam(params32)
    opt32.load_state_dict(opt64.state_dict())
    state = opt32.state[params32[0]]
    assert state["exp_avg"].dtype == leafgrad.float32
    assert state["step"].dtype == opt64.state[params64[0]]["step"].dtype  # "step" is kept


@pytest.mark.parametrize(
    "groups",
    [lambda ps: [{"params": ps[:1]}, {"params": ps[1:]}], lambda ps: [{"params": ps[:2]}]],
    ids=["group_count", "group_size"],
)
def test_load_state_dict_with_another_layout_raises_value_error(groups):
    params = problems.mlp_params(leafgrad)
    opt = optim.SGD(params, lr=0.1)
    other = optim.SGD(groups(problems.mlp_params(leafgrad)), lr=0.1)
    with pytest.raises(ValueError):
        other.load_state_dict(opt.state_dict())


def test_load_state_dict_leaves_the_given_state_dict_usable():
    params = problems.mlp_params(leafgrad)
    opt = optim.SGD(params, lr=0.1, momentum=0.9)
    _step(opt, params)
    sd = opt.state_dict()
    opt.load_state_dict(sd)
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1, 2]]


# ----------------------------------------------------------------------------- LBFGS
def test_lbfgs_solves_least_squares():
    (x,) = params = problems.lsq_params(leafgrad)
    opt = optim.LBFGS(params, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = problems.lsq_loss(leafgrad, params)
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    expected = np.linalg.lstsq(problems.LSQ_A, problems.LSQ_B, rcond=None)[0]
    np.testing.assert_allclose(x.detach().numpy(), expected, atol=1e-5)


def test_lbfgs_reaches_rosenbrock_minimum_without_warnings():
    x = leafgrad.tensor([-1.2, 1.0], dtype=leafgrad.float64, requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe", max_iter=100)

    def closure():
        opt.zero_grad()
        loss = problems.rosenbrock(leafgrad, x)
        loss.backward()
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-4)
