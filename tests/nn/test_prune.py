"""torch.nn.utils.prune: masks, the reparametrization, iterative and global pruning, remove,
errors; seeded runs against PyTorch (same masks, weights, state_dicts, outputs, gradients).

Tests taking the ``torch`` fixture run with leafgrad and with PyTorch; the comparisons run a
scenario on both libraries after the same seed (leafgrad's layers and random streams are
PyTorch's) and compare what it returns."""

import importlib
import math

import numpy as np
import pytest

import leafgrad

from ._compare import to_numpy

try:  # PyTorch's torch.nn.utils.prune is an attribute only once imported
    importlib.import_module("torch.nn.utils.prune")
except ImportError:
    pass


def _reference():
    return pytest.importorskip("torch")


def _run_both(scenario):
    """``scenario(lib)`` with leafgrad, then with PyTorch, each after ``manual_seed(0)``."""
    results = []
    for lib in (leafgrad, _reference()):
        lib.manual_seed(0)
        results.append(scenario(lib))
    return results


def _assert_same(ours, theirs, path="result"):
    """Nested dicts/lists of tensors and plain values agree: masks and pruned tensors exactly,
    computed ones (outputs, gradients: summed in another order) to float32 rounding."""
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), path
        for k in theirs:
            _assert_same(ours[k], theirs[k], f"{path}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_same(a, b, f"{path}[{i}]")
    elif hasattr(theirs, "detach"):
        assert str(ours.dtype) == str(theirs.dtype), path
        exact = "mask" in path or "pruned" in path
        rtol, atol = (0, 0) if exact else (1e-4, 1e-5)
        np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=atol)
    else:
        assert ours == theirs, path


def _snapshot(module, name, x):
    """What pruning ``module.<name>`` shows: tensors, state_dict, forward and gradients."""
    out = module(x)
    out.square().sum().backward()
    orig = getattr(module, name + "_orig")
    return {
        "mask": getattr(module, name + "_mask"),
        "pruned": getattr(module, name),
        "state_dict": dict(module.state_dict()),
        "parameters": [n for n, _ in module.named_parameters()],
        "buffers": [n for n, _ in module.named_buffers()],
        "hooks": [type(h).__name__ for h in module._forward_pre_hooks.values()],
        "output": out,
        "grad_orig": orig.grad,
        "grads": {n: p.grad for n, p in module.named_parameters()},
    }


def _linear(lib):
    return lib.nn.Linear(6, 4)


def _conv(lib):
    return lib.nn.Conv2d(3, 5, 3)


def _input(lib, module):
    shape = (2, 6) if isinstance(module, lib.nn.Linear) else (2, 3, 6, 6)
    return lib.randn(*shape)


# name -> (module maker, pruning call on (lib, module)); each draws after the module's seed.
METHODS = {
    "identity": (_linear, lambda lib, m: lib.nn.utils.prune.identity(m, "weight")),
    "random_unstructured_fraction": (
        _conv,
        lambda lib, m: lib.nn.utils.prune.random_unstructured(m, "weight", amount=0.3),
    ),
    "random_unstructured_count": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.random_unstructured(m, "weight", amount=5),
    ),
    "random_unstructured_bias": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.random_unstructured(m, "bias", amount=0.5),
    ),
    "l1_unstructured": (
        _conv,
        lambda lib, m: lib.nn.utils.prune.l1_unstructured(m, "weight", amount=0.4),
    ),
    "l1_unstructured_bias_count": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.l1_unstructured(m, "bias", amount=3),
    ),
    "l1_unstructured_scores": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.l1_unstructured(
            m, "weight", amount=7, importance_scores=lib.rand(4, 6)
        ),
    ),
    "random_structured_dim0": (
        _conv,
        lambda lib, m: lib.nn.utils.prune.random_structured(m, "weight", amount=0.4, dim=0),
    ),
    "random_structured_last": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.random_structured(m, "weight", amount=2, dim=-1),
    ),
    "ln_structured_l2_dim0": (
        _conv,
        lambda lib, m: lib.nn.utils.prune.ln_structured(m, "weight", amount=0.5, n=2, dim=0),
    ),
    "ln_structured_l1_dim1": (
        _conv,
        lambda lib, m: lib.nn.utils.prune.ln_structured(m, "weight", amount=1, n=1, dim=1),
    ),
    "ln_structured_inf_last": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.ln_structured(
            m, "weight", amount=0.5, n=float("inf"), dim=-1
        ),
    ),
    "ln_structured_fro_nothing": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.ln_structured(m, "weight", amount=0, n="fro", dim=0),
    ),
    "ln_structured_scores": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.ln_structured(
            m, "weight", amount=2, n=2, dim=0, importance_scores=lib.randn(4, 6)
        ),
    ),
    "custom_from_mask": (
        _linear,
        lambda lib, m: lib.nn.utils.prune.custom_from_mask(
            m, "weight", mask=(lib.arange(24).reshape(4, 6) % 3 != 0)
        ),
    ),
}


@pytest.mark.parametrize("method", list(METHODS))
def test_method_matches_pytorch(method):
    """Same mask, pruned tensor, state_dict, forward output and gradients as PyTorch."""
    make, prune_it = METHODS[method]
    name = "bias" if "bias" in method else "weight"

    def scenario(lib):
        module = make(lib)
        assert prune_it(lib, module) is module
        return _snapshot(module, name, _input(lib, module))

    ours, theirs = _run_both(scenario)
    _assert_same(ours, theirs)


def test_reparametrization(torch):
    """``weight`` becomes ``mask * weight_orig``: an attribute, not a parameter, recomputed by
    the method registered as a forward pre-hook."""
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 2)
    weight = m.weight
    method = torch.nn.utils.prune.L1Unstructured.apply(m, "weight", amount=2)
    assert isinstance(method, torch.nn.utils.prune.L1Unstructured)
    assert method._tensor_name == "weight" and method.amount == 2
    assert m.weight_orig is weight
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert "weight" in m.__dict__ and not isinstance(m.weight, torch.nn.Parameter)
    assert list(m._forward_pre_hooks.values()) == [method]
    assert repr(m._forward_pre_hooks).startswith("OrderedDict([(")
    assert m.weight_mask.dtype == torch.float32 and not m.weight_mask.requires_grad
    assert int((m.weight_mask == 0).sum()) == 2
    assert type(m.weight.grad_fn).__name__ == "MulBackward0"
    # The hook recomputes the attribute from the current original before each call.
    with torch.no_grad():
        m.weight_orig.fill_(2.0)
    assert not bool((m.weight == 2 * m.weight_mask).all())
    m(torch.ones(1, 3))
    assert bool((m.weight == 2 * m.weight_mask).all())


def test_gradients_reach_the_original_through_the_mask(torch):
    """``weight_orig.grad`` is the masked upstream gradient; the mask gets none."""
    torch.manual_seed(0)
    m = torch.nn.Linear(4, 3)
    torch.nn.utils.prune.random_unstructured(m, "weight", amount=0.5)
    x = torch.randn(5, 4)
    m(x).sum().backward()
    expected = torch.ones(5, 3).t() @ x
    assert torch.allclose(m.weight_orig.grad, expected * m.weight_mask)
    assert m.weight_mask.grad is None
    assert bool((m.weight_orig.grad[m.weight_mask == 0] == 0).all())


def test_iterative_pruning_matches_pytorch():
    """Three methods in a row on one tensor: a PruningContainer combining their masks."""

    def scenario(lib):
        prune = lib.nn.utils.prune
        m = _conv(lib)
        prune.random_unstructured(m, "weight", amount=0.3)
        first = m.weight_mask.clone()
        prune.ln_structured(m, "weight", amount=2, n=2, dim=0)
        second = m.weight_mask.clone()
        prune.l1_unstructured(m, "weight", amount=0.25)
        prune.random_structured(m, "weight", amount=1, dim=1)
        hooks = list(m._forward_pre_hooks.values())
        assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer)
        container = hooks[0]
        kinds = [type(h).__name__ for h in container]
        assert len(container) == 4 and container[0] is next(iter(container))
        snap = _snapshot(m, "weight", _input(lib, m))
        return {"first": first, "second": second, "kinds": kinds, **snap}

    ours, theirs = _run_both(scenario)
    assert theirs["kinds"] == [
        "RandomUnstructured", "LnStructured", "L1Unstructured", "RandomStructured",
    ]  # fmt: skip
    _assert_same(ours, theirs)


def test_iterative_pruning_keeps_earlier_masks(torch):
    """A later method prunes only among what the earlier ones kept."""
    torch.manual_seed(0)
    m = torch.nn.Linear(10, 6)
    torch.nn.utils.prune.l1_unstructured(m, "weight", amount=20)
    before = m.weight_mask.clone()
    torch.nn.utils.prune.random_unstructured(m, "weight", amount=10)
    assert int((m.weight_mask == 0).sum()) == 30
    assert bool((m.weight_mask <= before).all())
    torch.nn.utils.prune.ln_structured(m, "weight", amount=2, n=1, dim=0)
    rows_pruned = int((m.weight_mask.sum(1) == 0).sum())
    assert rows_pruned >= 2


def test_global_unstructured_matches_pytorch():
    """One L1 ranking across modules (one already pruned), with and without scores."""

    def scenario(lib):
        prune = lib.nn.utils.prune
        net = lib.nn.Sequential(_conv(lib), lib.nn.Flatten(), lib.nn.Linear(80, 7))
        prune.random_unstructured(net[2], "weight", amount=0.1)
        params = [(net[0], "weight"), (net[0], "bias"), (net[2], "weight")]
        prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.3)
        scores = {(net[0], "weight"): lib.rand(5, 3, 3, 3)}
        prune.global_unstructured(
            params, pruning_method=prune.RandomUnstructured, importance_scores=scores, amount=20
        )
        out = net(lib.randn(2, 3, 6, 6))
        out.sum().backward()
        hooks = [
            [type(h).__name__ for h in m._forward_pre_hooks.values()] for m in (net[0], net[2])
        ]
        return {
            "state_dict": dict(net.state_dict()),
            "hooks": hooks,
            "output": out,
            "grads": {n: p.grad for n, p in net.named_parameters()},
        }

    ours, theirs = _run_both(scenario)
    assert theirs["hooks"] == [["PruningContainer", "PruningContainer"], ["PruningContainer"]]
    _assert_same(ours, theirs)


def test_global_unstructured_prunes_the_global_fraction(torch):
    torch.manual_seed(0)
    a, b = torch.nn.Linear(10, 10), torch.nn.Linear(10, 5)
    with torch.no_grad():
        b.weight.mul_(100)  # b's entries are large: the global smallest are all a's
    prune = torch.nn.utils.prune
    prune.global_unstructured(
        [(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=50
    )
    assert int((a.weight == 0).sum()) == 50 and int((b.weight == 0).sum()) == 0
    assert isinstance(next(iter(a._forward_pre_hooks.values())), prune.CustomFromMask)


def test_remove_makes_pruning_permanent(torch):
    torch.manual_seed(0)
    m = torch.nn.Linear(4, 3)
    prune = torch.nn.utils.prune
    orig = m.weight
    prune.l1_unstructured(m, "weight", amount=0.5)
    prune.random_unstructured(m, "bias", amount=1)
    pruned = m.weight.detach().clone()
    assert prune.remove(m, "weight") is m
    assert m.weight is orig and isinstance(m.weight, torch.nn.Parameter)
    assert torch.equal(m.weight, pruned)
    assert [n for n, _ in m.named_parameters()] == ["bias_orig", "weight"]
    assert [n for n, _ in m.named_buffers()] == ["bias_mask"]
    assert list(m.state_dict()) == ["bias_orig", "weight", "bias_mask"]
    assert [h._tensor_name for h in m._forward_pre_hooks.values()] == ["bias"]
    prune.remove(m, "bias")
    assert len(m._forward_pre_hooks) == 0 and not prune.is_pruned(m)
    with pytest.raises(ValueError, match="Parameter 'weight' of module"):
        prune.remove(m, "weight")


def test_remove_matches_pytorch():
    def scenario(lib):
        prune = lib.nn.utils.prune
        m = _conv(lib)
        prune.random_structured(m, "weight", amount=2, dim=0)
        prune.l1_unstructured(m, "weight", amount=10)
        prune.remove(m, "weight")
        out = m(_input(lib, m))
        out.sum().backward()
        return {"state_dict": dict(m.state_dict()), "output": out, "grad": m.weight.grad}

    ours, theirs = _run_both(scenario)
    _assert_same(ours, theirs)


def test_is_pruned(torch):
    prune = torch.nn.utils.prune
    net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Sequential(torch.nn.Linear(2, 2)))
    assert not prune.is_pruned(net)
    net[0].register_forward_pre_hook(lambda m, i: None)
    assert not prune.is_pruned(net)
    prune.identity(net[1][0], "bias")
    assert prune.is_pruned(net) and prune.is_pruned(net[1]) and not prune.is_pruned(net[0])
    assert torch.equal(net[1][0].bias_mask, torch.ones(2))


def test_prune_and_compute_mask_without_a_module(torch):
    prune = torch.nn.utils.prune
    t = torch.tensor([[1.0, -5.0, 2.0], [0.5, 3.0, -4.0]])
    assert torch.equal(
        prune.L1Unstructured(amount=2).prune(t),
        torch.tensor([[0.0, -5.0, 2.0], [0.0, 3.0, -4.0]]),
    )
    scores = torch.tensor([[9.0, 0.0, 9.0], [9.0, 9.0, 9.0]])
    pruned = prune.L1Unstructured(amount=1).prune(t, importance_scores=scores)
    assert torch.equal(pruned, t * torch.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]))
    mask = prune.LnStructured(amount=1, n=1, dim=-1).compute_mask(t, torch.ones_like(t))
    assert torch.equal(mask, torch.tensor([[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]))
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.L1Unstructured(amount=1).prune(t, importance_scores=torch.ones(3))


def test_pruning_container(torch):
    prune = torch.nn.utils.prune
    first = prune.L1Unstructured(amount=1)
    first._tensor_name = "weight"
    container = prune.PruningContainer(first)
    assert container._tensor_name == "weight" and list(container) == [first]
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        container.add_pruning_method("l1")
    other = prune.RandomUnstructured(amount=1)
    other._tensor_name = "bias"
    with pytest.raises(ValueError, match="Can only add pruning methods acting on the parameter"):
        container.add_pruning_method(other)
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    mask = container.compute_mask(t, torch.tensor([[0.0, 1.0], [1.0, 1.0]]))
    assert torch.equal(mask, torch.tensor([[0.0, 0.0], [1.0, 1.0]]))

    class NoDim(prune.BasePruningMethod):
        PRUNING_TYPE = "structured"

        def compute_mask(self, t, default_mask):
            return default_mask

    class Odd(NoDim):
        PRUNING_TYPE = "diagonal"

    for method, error in ((NoDim(), AttributeError), (Odd(), ValueError)):
        method._tensor_name = "weight"
        container.add_pruning_method(method)
        with pytest.raises(error):
            container.compute_mask(t, torch.ones_like(t))


def test_custom_method_like_the_tutorial(torch):
    """A subclass defining only compute_mask (writing through ``flatten``'s view)."""
    prune = torch.nn.utils.prune

    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.flatten()[::2] = 0
            return mask

    m = torch.nn.Linear(2, 5)
    EveryOther.apply(m, "bias")
    assert m.bias_mask.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0]
    EveryOther.apply(m, "bias")  # again: every other among the two kept
    assert m.bias_mask.tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]


# (call on a fresh Linear(3, 2) as prune; expected error type, its leading words)
BAD = {
    "amount_type": (
        lambda p, m: p.random_unstructured(m, "weight", amount="0.5"),
        TypeError,
        "Invalid type for amount: 0.5. Must be int or float.",
    ),
    "amount_negative": (
        lambda p, m: p.l1_unstructured(m, "weight", amount=-1),
        ValueError,
        "amount=-1 should either be a float in the range [0, 1] or a non-negative integer",
    ),
    "amount_above_one": (
        lambda p, m: p.l1_unstructured(m, "weight", amount=1.5),
        ValueError,
        "amount=1.5 should either be a float in the range [0, 1]",
    ),
    "amount_too_many": (
        lambda p, m: p.random_unstructured(m, "weight", amount=7),
        ValueError,
        "amount=7 should be smaller than the number of parameters to prune=6",
    ),
    "channels_too_many": (
        lambda p, m: p.ln_structured(m, "weight", amount=3, n=2, dim=0),
        ValueError,
        "amount=3 should be smaller than the number of parameters to prune=2",
    ),
    "structured_1d": (
        lambda p, m: p.random_structured(m, "bias", amount=1, dim=0),
        ValueError,
        "Structured pruning can only be applied to multidimensional tensors.",
    ),
    "dim_too_large": (
        lambda p, m: p.ln_structured(m, "weight", amount=1, n=2, dim=2),
        IndexError,
        "Invalid index 2 for tensor of size",
    ),
    "scores_shape": (
        lambda p, m: p.l1_unstructured(m, "weight", amount=1, importance_scores=m.bias),
        AssertionError,
        "importance_scores should have the same shape as parameter weight of",
    ),
    "custom_mask_shape": (
        lambda p, m: p.custom_from_mask(m, "weight", mask=m.bias > 0),
        AssertionError,
        "default_mask shape",
    ),
    "remove_unpruned": (
        lambda p, m: p.remove(m, "weight"),
        ValueError,
        "Parameter 'weight' of module Linear(",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_errors(torch, case):
    """PyTorch's error types and leading words; a failed first pruning leaves the module as
    it was."""
    call, error, words = BAD[case]
    m = torch.nn.Linear(3, 2)
    weight = m.weight
    with pytest.raises(error) as info:
        call(torch.nn.utils.prune, m)
    assert str(info.value).startswith(words)
    # (Re-registered after a failed mask, the weight then comes after the bias, as in PyTorch.)
    assert m.weight is weight and sorted(m.state_dict()) == ["bias", "weight"]
    assert len(m._forward_pre_hooks) == 0


def test_global_unstructured_errors(torch):
    prune = torch.nn.utils.prune
    m = torch.nn.Linear(3, 2)
    with pytest.raises(TypeError, match="parameters is not an Iterable"):
        prune.global_unstructured(5, prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match="importance_scores must be of type dict"):
        prune.global_unstructured(
            [(m, "weight")], prune.L1Unstructured, importance_scores=[1], amount=1
        )
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
        prune.global_unstructured([(m, "weight")], prune.RandomStructured, amount=1)


def test_amount_helpers(torch):
    prune = torch.nn.utils.prune
    assert prune._compute_nparams_toprune(0.5, 5) == round(2.5) == 2
    assert prune._compute_nparams_toprune(0.3, 10) == 3
    assert prune._compute_nparams_toprune(4, 10) == 4
    prune._validate_pruning_amount_init(True)  # a bool is an integer amount
    prune._validate_pruning_amount(0.9, 1)  # fractions are not counts: no check
    norms = prune._compute_norm(torch.ones(2, 3), 2, -1)
    assert norms.shape == (3,) and math.isclose(norms[0].item(), math.sqrt(2), rel_tol=1e-6)


def test_state_dict_round_trip_between_pruned_modules(torch):
    """A pruned module's state_dict loads into another pruned the same way."""
    torch.manual_seed(0)
    a, b = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)
    prune = torch.nn.utils.prune
    prune.l1_unstructured(a, "weight", amount=6)
    prune.random_unstructured(b, "weight", amount=1)
    b.load_state_dict(a.state_dict())
    x = torch.randn(2, 4)
    assert torch.equal(b(x), a(x)) and torch.equal(b.weight_mask, a.weight_mask)


def test_unpruned_module_after_remove_has_no_hooks_to_run():
    """Removing the last pruning leaves an empty hook dict: the call takes the plain path."""
    m = leafgrad.nn.Linear(2, 2)
    leafgrad.nn.utils.prune.identity(m, "weight")
    leafgrad.nn.utils.prune.remove(m, "weight")
    assert not m.__dict__["_forward_pre_hooks"]


def test_importable_as_module_and_attribute():
    module = importlib.import_module("leafgrad.nn.utils.prune")
    assert leafgrad.nn.utils.prune is module
    assert module.BasePruningMethod.__abstractmethods__ == frozenset({"compute_mask"})
