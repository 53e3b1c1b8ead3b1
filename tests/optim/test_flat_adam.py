"""Adam's flat step (``optim._flat_adam``): the per-parameter path's bits, state and version
counters, and the per-parameter path wherever the flat one does not apply."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import leafgrad
from leafgrad.optim import _flat_adam

SHAPES = [(5, 3), (3,), (3, 4), (4,), ()]
OPTIONS = [
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "eps": 1e-6, "betas": (0.5, 0.9)}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.02, "amsgrad": True, "maximize": True, "weight_decay": 0.3}),
]


def _params(dtype):
    rng = np.random.default_rng(0)
    return [leafgrad.tensor(rng.normal(size=s), dtype=dtype, requires_grad=True) for s in SHAPES]


def _run(name, options, dtype, steps=4, flat=True, monkeypatch=None):
    if not flat:
        monkeypatch.setattr(_flat_adam, "step", lambda *args: False)
    params = _params(dtype)
    opt = getattr(leafgrad.optim, name)(params, **options)
    for k in range(steps):
        opt.zero_grad()
        loss = sum(((p * (k + 1)).sin() * p).sum() for p in params)
        loss.backward()
        opt.step()
    if not flat:
        monkeypatch.undo()
    return params, opt


def _state(opt, params):
    return [
        {key: (t.numpy().copy(), t._version) for key, t in opt.state[p].items()} for p in params
    ]


@pytest.mark.parametrize("dtype", [leafgrad.float32, leafgrad.float64])
@pytest.mark.parametrize("name, options", OPTIONS)
def test_flat_step_gives_the_per_parameter_bits_and_versions(name, options, dtype, monkeypatch):
    flat_params, flat_opt = _run(name, options, dtype)
    assert _flat_adam._FLAT in flat_opt.__dict__  # the flat path ran
    loop_params, loop_opt = _run(name, options, dtype, flat=False, monkeypatch=monkeypatch)
    for a, b in zip(flat_params, loop_params):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert a._version == b._version
    flat_state, loop_state = _state(flat_opt, flat_params), _state(loop_opt, loop_params)
    for fs, ls in zip(flat_state, loop_state):
        assert list(fs) == list(ls)  # step, exp_avg, exp_avg_sq(, max_exp_avg_sq)
        for key in fs:
            np.testing.assert_array_equal(fs[key][0], ls[key][0])
            assert fs[key][0].dtype == ls[key][0].dtype
            assert fs[key][1] == ls[key][1], key


def test_flat_step_matches_torch():
    torch = pytest.importorskip("torch")
    params = _params(leafgrad.float64)
    ref = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in params]
    opts = [leafgrad.optim.Adam(params, lr=0.05), torch.optim.Adam(ref, lr=0.05)]
    for k in range(5):
        for ps, opt in ((params, opts[0]), (ref, opts[1])):
            opt.zero_grad()
            sum(((p * (k + 1)).sin() * p).sum() for p in ps).backward()
            opt.step()
    for a, b in zip(params, ref):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert opts[0].state[params[0]]["step"].item() == 5.0


def _loss_step(opt, params, scale=1.0):
    opt.zero_grad()
    sum((p * p * scale).sum() for p in params).backward()
    opt.step()


def test_state_replaced_or_loaded_is_adopted_with_the_same_result():
    params = _params(leafgrad.float64)
    twin = [p.detach().clone().requires_grad_(True) for p in params]
    opt = leafgrad.optim.Adam(params, lr=0.1)
    ref = leafgrad.optim.Adam(twin, lr=0.1)
    for o, ps in ((opt, params), (ref, twin)):
        _loss_step(o, ps)
    opt.state[params[1]]["exp_avg"] = opt.state[params[1]]["exp_avg"].clone()  # not a view now
    _loss_step(opt, params)
    _loss_step(ref, twin)
    opt.load_state_dict(copy.deepcopy(ref.state_dict()))  # (else both step one state)
    loaded = opt.state[params[2]]["exp_avg_sq"]
    _loss_step(opt, params)
    _loss_step(ref, twin)
    flat = opt.__dict__[_flat_adam._FLAT][id(opt.param_groups[0])]
    assert flat.tensors["exp_avg_sq"][2] is loaded  # adopted: the tensor kept, its values moved
    for a, b in zip(params, twin):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    for name in ("step", "exp_avg", "exp_avg_sq"):
        for a, b in zip(params, twin):
            np.testing.assert_array_equal(opt.state[a][name].numpy(), ref.state[b][name].numpy())


def test_state_whose_arrays_others_hold_is_not_moved():
    params = _params(leafgrad.float64)
    twin = [p.detach().clone().requires_grad_(True) for p in params]
    opt, ref = leafgrad.optim.Adam(params, lr=0.1), leafgrad.optim.Adam(twin, lr=0.1)
    _loss_step(ref, twin)
    with leafgrad.no_grad():
        for p, t in zip(params, twin):
            p.copy_(t)
    opt.load_state_dict(copy.deepcopy(ref.state_dict()))
    held = opt.state[params[0]]["exp_avg"].numpy()  # shares the tensor's memory, as PyTorch's
    before = held.copy()
    _loss_step(opt, params)
    _loss_step(ref, twin)
    assert _flat_adam._FLAT not in opt.__dict__ or not opt.__dict__[_flat_adam._FLAT]
    assert not np.array_equal(held, before)  # the update went into the array it holds
    np.testing.assert_array_equal(held, ref.state[twin[0]]["exp_avg"].numpy())
    for a, b in zip(params, twin):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_a_parameter_without_gradient_then_with_one_again():
    params = _params(leafgrad.float64)
    twin = [p.detach().clone().requires_grad_(True) for p in params]
    opt = leafgrad.optim.Adam(params, lr=0.1)
    monkey = pytest.MonkeyPatch()
    monkey.setattr(_flat_adam, "step", lambda *args: False)
    ref = leafgrad.optim.Adam(twin, lr=0.1)
    for k in range(4):
        for o, ps in ((opt, params), (ref, twin)):
            o.zero_grad()
            used = ps if k != 1 else ps[1:]  # step 2: the first parameter has no gradient
            sum((p * p * (k + 1)).sum() for p in used).backward()
            if o is ref:
                o.step()
            else:
                monkey.undo()
                o.step()
                monkey.setattr(_flat_adam, "step", lambda *args: False)
    monkey.undo()
    assert opt.state[params[0]]["step"].item() == 3.0
    assert opt.state[params[1]]["step"].item() == 4.0
    for a, b in zip(params, twin):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_a_parameter_given_new_data_of_another_shape():
    params = _params(leafgrad.float64)
    opt = leafgrad.optim.Adam(params, lr=0.1)
    _loss_step(opt, params)
    params[0].data = leafgrad.ones(2, 2, dtype=leafgrad.float64)
    with pytest.raises(RuntimeError):  # as PyTorch: the state no longer fits the parameter
        _loss_step(opt, params)


def test_state_tensors_are_ordinary_tensors_seeing_the_updates():
    params = _params(leafgrad.float32)
    opt = leafgrad.optim.Adam(params, lr=0.1)
    _loss_step(opt, params)
    exp_avg = opt.state[params[0]]["exp_avg"]
    before = exp_avg.clone()
    _loss_step(opt, params, scale=2.0)
    assert not leafgrad.equal(exp_avg, before)  # updated in place, as PyTorch's
    assert exp_avg.shape == params[0].shape and exp_avg.is_contiguous()
    assert opt.state[params[0]]["step"].dtype == leafgrad.float32
    assert opt.state[params[0]]["step"].shape == ()


def test_a_gradient_whose_dtype_equals_but_is_not_numpys_object_takes_the_flat_step():
    # A compiled kernel's array may carry its own dtype object, equal to NumPy's.
    params = _params(leafgrad.float64)
    opt = leafgrad.optim.Adam(params, lr=0.05)
    loss = sum((p * p).sum() for p in params)
    loss.backward()
    other = np.dtype(np.float64).newbyteorder("=")
    assert other == np.float64 and other is not params[0]._data.dtype
    for p in params:
        p.grad._data = p.grad._data.astype(other)
        assert p.grad._data.dtype is other
    want = [p.detach().numpy() - 0.05 * np.sign(p.grad.numpy()) for p in params]
    opt.step()
    assert _flat_adam._FLAT in opt.__dict__  # the flat path ran
    for p, w in zip(params, want):  # Adam's first step: lr * sign(grad), up to eps
        np.testing.assert_allclose(p.detach().numpy(), w, rtol=1e-6, atol=1e-6)
