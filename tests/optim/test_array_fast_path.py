"""The optimisers' fast path (updates on the arrays): PyTorch's results and version counters,
and the same bits as the general path, which it leaves to whatever it does not cover."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import leafgrad
from leafgrad.optim import _arrays, _update

from .._tolerance import assert_close


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


SHAPES = [(3, 4), (4,), (), (2, 3, 2)]

# name -> (optimizer class name, options)
FAST = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd_weight_decay_maximize": ("SGD", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    "sgd_momentum_dampening": ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.2}),
    "sgd_nesterov_weight_decay": (
        "SGD",
        {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.01},
    ),
    "sgd_foreach": ("SGD", {"lr": 0.1, "momentum": 0.5, "foreach": True}),
    "adam": ("Adam", {"lr": 0.05}),
    "adam_weight_decay_amsgrad": ("Adam", {"lr": 0.05, "weight_decay": 0.1, "amsgrad": True}),
    "adam_maximize_eps_betas": (
        "Adam",
        {"lr": 0.01, "maximize": True, "eps": 1e-6, "betas": (0.5, 0.9)},
    ),
    "adam_foreach": ("Adam", {"lr": 0.05, "foreach": True}),
    "adam_decoupled": ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    "adamw": ("AdamW", {"lr": 0.05}),
    "adamw_amsgrad_maximize": ("AdamW", {"lr": 0.02, "amsgrad": True, "maximize": True}),
    "adagrad": ("Adagrad", {"lr": 0.1}),
    "adagrad_options": (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1, "initial_accumulator_value": 0.5},
    ),
    "adagrad_maximize": ("Adagrad", {"lr": 0.05, "maximize": True, "eps": 1e-6}),
    "adamax": ("Adamax", {"lr": 0.05}),
    "adamax_options": ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    "nadam": ("NAdam", {"lr": 0.05}),
    "nadam_weight_decay": ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    "nadam_decoupled_maximize": (
        "NAdam",
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True},
    ),
    "rmsprop": ("RMSprop", {"lr": 0.01}),
    "rmsprop_centered_momentum": (
        "RMSprop",
        {"lr": 0.01, "centered": True, "momentum": 0.9, "weight_decay": 0.1},
    ),
    "rmsprop_momentum_maximize": ("RMSprop", {"lr": 0.01, "momentum": 0.5, "maximize": True}),
    "rmsprop_centered": ("RMSprop", {"lr": 0.01, "centered": True, "alpha": 0.9}),
    "radam": ("RAdam", {"lr": 0.05}),
    "radam_weight_decay_maximize": ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    "radam_decoupled": ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    "adadelta": ("Adadelta", {}),
    "adadelta_options": (
        "Adadelta",
        {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True},
    ),
    "asgd": ("ASGD", {"lr": 0.05}),
    "asgd_averaging": ("ASGD", {"lr": 0.05, "t0": 2, "lambd": 0.01, "weight_decay": 0.1}),
    "asgd_maximize": ("ASGD", {"lr": 0.01, "t0": 3, "maximize": True}),
}

# the modules whose steps choose their forms with _update_forms
STEPPING_MODULES = (
    "adadelta",
    "adagrad",
    "adam",
    "adamax",
    "asgd",
    "nadam",
    "radam",
    "rmsprop",
    "sgd",
)
SCALAR_STATE = ("step", "mu_product", "eta", "mu")


def _run(lib, cls, options, dtype, steps=8, seed=0):
    """``steps`` steps with random gradients; the parameters and the optimiser."""
    rng = np.random.default_rng(seed)
    dt = getattr(lib, dtype)
    params = [lib.tensor(rng.standard_normal(s), dtype=dt, requires_grad=True) for s in SHAPES]
    opt = getattr(lib.optim, cls)(params, **options)
    for _ in range(steps):
        for p in params:
            p.grad = lib.tensor(rng.standard_normal(p.shape), dtype=dt)
        opt.step()
    return params, opt


def _buffers(opt, p):
    return {k: v for k, v in opt.state[p].items() if hasattr(v, "_version")}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(FAST))
def test_fast_path_steps_follow_torch_in_values_state_and_versions(name, dtype, torch):
    cls, options = FAST[name]
    ours, our_opt = _run(leafgrad, cls, options, dtype)
    theirs, their_opt = _run(torch, cls, options, dtype)
    for p, q in zip(ours, theirs):
        assert _update_forms_of(our_opt, p) is _arrays._OnArrays
        assert str(p.dtype) == str(q.dtype)
        assert_close(p, q, "iterative")
        assert p._version == q._version
        mine, yours = _buffers(our_opt, p), _buffers(their_opt, q)
        assert mine.keys() == yours.keys()
        for key in mine:
            assert str(mine[key].dtype) == str(yours[key].dtype), key
            assert_close(mine[key], yours[key], "iterative")
            assert mine[key]._version == yours[key]._version, key


def _update_forms_of(opt, p):
    """The forms the step chose for ``p`` (its state as the step passes it)."""
    group = opt.param_groups[0]
    state = opt.state[p]
    scalars = [v for k, v in state.items() if k in SCALAR_STATE]
    buffers = [v for k, v in state.items() if k not in SCALAR_STATE]
    with leafgrad.no_grad():
        return _arrays._update_forms(group, p, p.grad, *buffers, scalars=scalars)


def _general_only(monkeypatch):
    """Make every optimiser step take the general path (leafgrad ops on Tensors)."""
    for module in STEPPING_MODULES:
        monkeypatch.setattr(
            f"leafgrad.optim.{module}._update_forms", lambda *a, **k: _update._OnTensors
        )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(FAST))
def test_fast_path_gives_the_general_paths_bits_and_versions(name, dtype, monkeypatch):
    cls, options = FAST[name]
    fast, fast_opt = _run(leafgrad, cls, options, dtype)
    _general_only(monkeypatch)
    general, general_opt = _run(leafgrad, cls, options, dtype)
    for p, q in zip(fast, general):
        # the same NumPy operations in the same order: exact
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        assert p._version == q._version
        mine, other = _buffers(fast_opt, p), _buffers(general_opt, q)
        for key in mine:
            np.testing.assert_array_equal(mine[key].numpy(), other[key].numpy())
            assert mine[key]._version == other[key]._version


def _refuse_arrays(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the fast path ran where it does not apply")

    for name in vars(_arrays._OnArrays):
        if not name.startswith("_"):
            monkeypatch.setattr(_arrays._OnArrays, name, staticmethod(refuse))


class _MyTensor(leafgrad.Tensor):
    """A user's subclass: its in-place methods might be its own, so the step calls them."""


def _subclass_params(params):
    return [p.detach().as_subclass(_MyTensor).requires_grad_() for p in params]


# Steps where writing the arrays directly would skip something the Tensor ops do.
NOT_FAST = {
    "allow_mutation_on_saved_tensors": (
        lambda: leafgrad.autograd.graph.allow_mutation_on_saved_tensors(),
        lambda params: params,
    ),
    "dual_level": (lambda: leafgrad.autograd.forward_ad.dual_level(), lambda params: params),
    "tensor_subclass": (contextlib.nullcontext, _subclass_params),
}


@pytest.mark.parametrize("case", sorted(NOT_FAST))
@pytest.mark.parametrize("name", ["sgd_nesterov_weight_decay", "adam_weight_decay_amsgrad"])
def test_the_general_path_runs_where_the_fast_path_does_not_apply(name, case, monkeypatch):
    cls, options = FAST[name]
    expected, _ = _run(leafgrad, cls, options, "float64")
    _refuse_arrays(monkeypatch)
    context, adapt = NOT_FAST[case]
    rng = np.random.default_rng(0)
    params = adapt(
        [
            leafgrad.tensor(rng.standard_normal(s), dtype=leafgrad.float64, requires_grad=True)
            for s in SHAPES
        ]
    )
    opt = getattr(leafgrad.optim, cls)(params, **options)
    with context():
        for _ in range(8):
            for p in params:
                p.grad = leafgrad.tensor(rng.standard_normal(p.shape), dtype=leafgrad.float64)
            opt.step()
    for p, q in zip(params, expected):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        assert p._version == q._version


def test_a_group_marked_differentiable_takes_the_general_path():
    # leafgrad refuses differentiable=True when built; a group may still say so
    p = leafgrad.tensor([1.0, -2.0], requires_grad=True)
    opt = leafgrad.optim.Adam([p])
    p.grad = leafgrad.ones(2)
    group = {**opt.param_groups[0], "differentiable": True}
    state = opt.state[p]
    with leafgrad.no_grad():
        assert _arrays._update_forms(opt.param_groups[0], p, p.grad) is _arrays._OnArrays
        assert _arrays._update_forms(group, p, p.grad) is _update._OnTensors
    assert not state


def test_state_requiring_grad_takes_the_general_path(monkeypatch):
    p = leafgrad.tensor([1.0, -2.0], requires_grad=True)
    opt = leafgrad.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = leafgrad.tensor([0.5, 0.25])
    opt.step()
    opt.state[p]["momentum_buffer"].requires_grad_()
    _refuse_arrays(monkeypatch)
    p.grad = leafgrad.tensor([0.5, 0.25])
    opt.step()
    # buf = 0.9 * g + g = 1.9 g; p = p0 - 0.1 g - 0.1 * 1.9 g
    np.testing.assert_allclose(p.detach().numpy(), [1.0 - 0.145, -2.0 - 0.0725], rtol=1e-6)


@pytest.mark.parametrize("cls", ["SGD", "Adam"])
def test_views_of_a_parameter_see_the_step_and_follow_its_history(cls, torch):
    results = []
    for lib in (leafgrad, torch):
        p = lib.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        view = p[0]
        opt = getattr(lib.optim, cls)([p], lr=0.1)
        p.grad = lib.ones(2, 2)
        opt.step()
        results.append((view.detach().numpy().copy(), view._version, p._version))
        results.append(view.grad_fn.name())
        (view * 2).sum().backward()
        results.append(p.grad.numpy().copy())
    assert_close(results[0][0], results[3][0])
    assert results[0][1:] == results[3][1:]
    assert results[1] == results[4]
    np.testing.assert_array_equal(results[2], results[5])


def test_tensor_lr_on_the_fast_path_follows_torch(torch):
    for dtype in ("float32", "float64"):
        ours, _ = _run(leafgrad, "Adam", {"lr": leafgrad.tensor(0.05), "amsgrad": True}, dtype)
        theirs, _ = _run(torch, "Adam", {"lr": torch.tensor(0.05), "amsgrad": True}, dtype)
        for p, q in zip(ours, theirs):
            assert_close(p, q, "iterative")
