"""Differential tests: constructors, defaults, errors and state handling equal PyTorch's."""

from __future__ import annotations

import copy
import inspect

import pytest

import leafgrad

from .._tolerance import assert_close
from . import compare, problems

torch = pytest.importorskip("torch")

OPTIMIZERS = [
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "LBFGS",
    "Adagrad",
    "Adadelta",
    "Adamax",
    "NAdam",
    "RAdam",
    "ASGD",
]


def _signature(cls):
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_constructor_signature_equals_torchs(name):
    assert _signature(getattr(leafgrad.optim, name)) == _signature(getattr(torch.optim, name))


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_defaults_and_group_options_equal_torchs(name):
    opts = [
        getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)]) for lib in (leafgrad, torch)
    ]
    assert opts[0].defaults == opts[1].defaults
    groups = [{k: v for k, v in o.param_groups[0].items() if k != "params"} for o in opts]
    assert groups[0] == groups[1]


INVALID = [
    ("Adagrad", {"lr": -0.1}),
    ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"weight_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}),
    ("Adagrad", {"eps": -1}),
    ("Adagrad", {"fused": True, "foreach": True}),
    ("Adadelta", {"lr": -1}),
    ("Adadelta", {"rho": 1.5}),
    ("Adadelta", {"eps": -1}),
    ("Adadelta", {"weight_decay": -1}),
    ("Adamax", {"lr": -1}),
    ("Adamax", {"eps": -1}),
    ("Adamax", {"betas": (1.0, 0.9)}),
    ("Adamax", {"betas": (0.9, -0.1)}),
    ("Adamax", {"weight_decay": -1}),
    ("NAdam", {"lr": -1}),
    ("NAdam", {"betas": (0.9, 1.0)}),
    ("NAdam", {"momentum_decay": -1}),
    ("NAdam", {"weight_decay": -1}),
    ("RAdam", {"lr": -1}),
    ("RAdam", {"eps": -1}),
    ("RAdam", {"betas": (-0.1, 0.9)}),
    ("RAdam", {"weight_decay": -1}),
    ("ASGD", {"lr": -1}),
    ("ASGD", {"weight_decay": -1}),
    ("SGD", {"lr": 0.1, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
    ("Adam", {"betas": (0.9, 1.0)}),
    ("RMSprop", {"alpha": -1}),
    ("RMSprop", {"momentum": -1}),
    ("RMSprop", {"eps": -1, "alpha": -1}),
    ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1, "eps": -1}),
    ("Adadelta", {"rho": 1.5}),
    ("Adam", {"eps": float("nan")}),
]


@pytest.mark.parametrize(("name", "kwargs"), INVALID, ids=[f"{n}-{k}" for n, k in INVALID])
def test_invalid_options_raise_torchs_error_type(name, kwargs):
    errors = []
    for lib in (leafgrad, torch):
        with pytest.raises(Exception) as info:
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **kwargs)
        errors.append(info.value)
    assert type(errors[0]) is type(errors[1])
    if isinstance(errors[1], ValueError) and "Invalid" in str(errors[1]):
        # The same check fails first, naming the same value.
        assert str(errors[0]) == str(errors[1])


NEW_OPTIMIZERS = {
    "adagrad": lambda optim, ps, lr: optim.Adagrad(ps, lr=lr, lr_decay=0.01),
    "adadelta": lambda optim, ps, lr: optim.Adadelta(ps, lr=lr * 10),
    "adamax": lambda optim, ps, lr: optim.Adamax(ps, lr=lr),
    "nadam": lambda optim, ps, lr: optim.NAdam(ps, lr=lr, weight_decay=0.1),
    "radam": lambda optim, ps, lr: optim.RAdam(ps, lr=lr, decoupled_weight_decay=True),
    "asgd": lambda optim, ps, lr: optim.ASGD(ps, lr=lr, t0=4, lambd=0.01),
}


def _run(lib, opt, params, steps):
    for _ in range(steps):
        opt.zero_grad()
        problems.mlp_loss(lib, params).backward()
        opt.step()


def _train(lib, make, lr, steps=20, dtype_name="float64"):
    params = problems.mlp_params(lib, dtype_name)
    opt = make(lib.optim, params, lr)
    _run(lib, opt, params, steps)
    return [p.detach().numpy().copy() for p in params], compare.state_as_python(opt.state_dict())


def _assert_states_close(ours, theirs):
    assert ours.keys() == theirs.keys()
    for index in ours:
        assert ours[index].keys() == theirs[index].keys()
        for key, (kind, dtype, shape, values) in ours[index].items():
            assert (kind, dtype, shape) == theirs[index][key][:3], key
            assert_close(values, theirs[index][key][3], "iterative")


# A tensor lr is computed with as a (float32) tensor, as PyTorch does: its step sizes round so.
TENSOR_LR = {
    **NEW_OPTIMIZERS,
    "sgd": lambda optim, ps, lr: optim.SGD(ps, lr=lr, momentum=0.9),
    "adam": lambda optim, ps, lr: optim.Adam(ps, lr=lr, amsgrad=True),
    "adamw": lambda optim, ps, lr: optim.AdamW(ps, lr=lr),
    "rmsprop": lambda optim, ps, lr: optim.RMSprop(ps, lr=lr, centered=True),
}


@pytest.mark.parametrize("name", sorted(TENSOR_LR))
def test_tensor_learning_rate_follows_torch(name):
    make = TENSOR_LR[name]
    ours, _ = _train(leafgrad, make, leafgrad.tensor(0.05))
    theirs, _ = _train(torch, make, torch.tensor(0.05))
    compare.assert_params_close(ours, theirs)


@pytest.mark.parametrize("name", sorted(NEW_OPTIMIZERS))
def test_float64_default_dtype_keeps_scalar_state_in_float64_like_torch(name):
    results = []
    for lib in (leafgrad, torch):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            results.append(_train(lib, NEW_OPTIMIZERS[name], 0.05, dtype_name="float32"))
        finally:
            lib.set_default_dtype(previous)
    compare.assert_params_close(results[0][0], results[1][0])
    _assert_states_close(results[0][1]["state"], results[1][1]["state"])


@pytest.mark.parametrize("name", sorted(NEW_OPTIMIZERS))
def test_resuming_from_a_state_dict_follows_torch(name):
    # Loading casts NAdam's mu_product and ASGD's eta and mu to the parameters' dtype, as
    # PyTorch does, so the resumed run is compared with PyTorch's resumed run.
    make = NEW_OPTIMIZERS[name]
    results = []
    for lib in (leafgrad, torch):
        params = problems.mlp_params(lib)
        opt = make(lib.optim, params, 0.05)
        _run(lib, opt, params, 6)
        resumed = [p.detach().clone().requires_grad_(True) for p in params]
        resumed_opt = make(lib.optim, resumed, 0.05)
        resumed_opt.load_state_dict(copy.deepcopy(opt.state_dict()))
        loaded = compare.state_as_python(resumed_opt.state_dict())
        _run(lib, resumed_opt, resumed, 14)
        results.append((loaded, [p.detach().numpy().copy() for p in resumed]))
    _assert_states_close(results[0][0]["state"], results[1][0]["state"])
    compare.assert_params_close(results[0][1], results[1][1])


@pytest.mark.parametrize("name", sorted(NEW_OPTIMIZERS))
def test_old_state_dict_with_numbers_for_scalar_state_loads_like_torch(name):
    # State dicts from old PyTorch versions kept step (NAdam's mu_product, ASGD's eta, mu)
    # as Python numbers; loading turns them back into tensors.
    make = NEW_OPTIMIZERS[name]
    results = []
    for lib in (leafgrad, torch):
        params = problems.mlp_params(lib)
        opt = make(lib.optim, params, 0.05)
        _run(lib, opt, params, 3)
        state_dict = copy.deepcopy(opt.state_dict())
        for state in state_dict["state"].values():
            for key in ("step", "mu_product", "eta", "mu"):
                if key in state:
                    state[key] = state[key].item()
        opt.load_state_dict(state_dict)
        _run(lib, opt, params, 3)
        results.append(compare.state_as_python(opt.state_dict()))
    _assert_states_close(results[0]["state"], results[1]["state"])


@pytest.mark.parametrize("lib", [leafgrad, torch], ids=["leafgrad", "pytorch"])
def test_step_hooks_see_the_optimizer_first_in_args(lib):
    """PyTorch's hooks get ``step``'s unbound arguments: ``args[0]`` is the optimiser, and a
    pre-hook's replacement args must keep it there."""
    x = lib.nn.Parameter(lib.tensor([1.0]))
    x.grad = lib.tensor([1.0])
    opt = lib.optim.SGD([x], lr=0.1)
    seen = []
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append((args, kwargs)))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append((args, kwargs)))
    opt.step()
    opt.step(closure=None)
    assert seen == [((opt,), {})] * 2 + [((opt,), {"closure": None})] * 2
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 7.0}))
    assert opt.step() == 7.0
    opt.register_step_pre_hook(lambda o, args, kwargs: ((), kwargs))
    with pytest.raises((IndexError, TypeError)):
        opt.step()
