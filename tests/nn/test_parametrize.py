"""nn.utils.parametrize and weight normalisation (legacy and parametrization), against PyTorch."""

import warnings

import numpy as np
import pytest

from ._compare import assert_close, pair, to_numpy


def _symmetric(torch):
    class Symmetric(torch.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a):
            return a.triu()

    return Symmetric()


def _linear(torch, n_in=3, n_out=3):
    torch.manual_seed(0)
    m = torch.nn.Linear(n_in, n_out).double()
    with torch.no_grad():
        m.weight.copy_(torch.tensor(np.arange(n_in * n_out, dtype=float).reshape(n_out, n_in)))
    return m


def test_register_parametrization_swaps_class_and_state_dict_keys(torch):
    m = _linear(torch)
    P = torch.nn.utils.parametrize
    assert not P.is_parametrized(m)
    P.register_parametrization(m, "weight", _symmetric(torch))
    assert type(m).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(m) is torch.nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
    assert not P.is_parametrized(m, "bias")
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    w = m.weight
    assert np.array_equal(to_numpy(w), to_numpy(w).T)
    # right_inverse ran at registration: the original holds the upper triangle
    assert to_numpy(m.parametrizations.weight.original)[2, 0] == 0.0
    assert "(parametrizations): ModuleDict(" in repr(m)
    assert repr(m).startswith("ParametrizedLinear(")


def test_assigning_a_parametrized_tensor_calls_right_inverse(torch):
    m = _linear(torch)
    P = torch.nn.utils.parametrize
    P.register_parametrization(m, "weight", _symmetric(torch))
    original = m.parametrizations.weight.original
    m.weight = torch.ones(3, 3, dtype=torch.float64) * 2
    assert m.parametrizations.weight.original is original
    assert np.array_equal(to_numpy(m.weight), np.full((3, 3), 2.0))


def test_remove_parametrizations_leaves_value_or_original(torch):
    P = torch.nn.utils.parametrize
    m = _linear(torch)
    P.register_parametrization(m, "weight", _symmetric(torch))
    expected = to_numpy(m.weight)
    P.remove_parametrizations(m, "weight")
    assert type(m) is torch.nn.Linear
    assert not hasattr(m, "parametrizations")
    assert isinstance(m.weight, torch.nn.Parameter)
    assert np.array_equal(to_numpy(m.weight), expected)
    assert list(m.state_dict()) == ["bias", "weight"]
    m = _linear(torch)
    P.register_parametrization(m, "weight", _symmetric(torch))
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert np.array_equal(to_numpy(m.weight), np.triu(np.arange(9.0).reshape(3, 3)))


def test_parametrize_errors(torch):
    P = torch.nn.utils.parametrize
    m = _linear(torch)
    with pytest.raises(ValueError, match="foo"):
        P.register_parametrization(m, "foo", _symmetric(torch))
    with pytest.raises(ValueError, match="bias"):
        P.remove_parametrizations(m, "bias")

    class Shrink(torch.nn.Module):
        def forward(self, x):
            return x[:1]

    with pytest.raises(ValueError, match="shape"):
        P.register_parametrization(m, "weight", Shrink())
    P.register_parametrization(m, "weight", Shrink(), unsafe=True)
    assert tuple(m.weight.shape) == (1, 3)


def test_chained_parametrizations_and_cached(torch):
    P = torch.nn.utils.parametrize

    class Double(torch.nn.Module):
        calls = 0

        def forward(self, x):
            Double.calls += 1
            return 2 * x

    m = _linear(torch)
    P.register_parametrization(m, "weight", _symmetric(torch))
    P.register_parametrization(m, "weight", Double())
    assert len(m.parametrizations.weight) == 2
    a = np.triu(np.arange(9.0).reshape(3, 3))
    assert np.array_equal(to_numpy(m.weight), 2 * (a + np.triu(a, 1).T))
    Double.calls = 0
    with P.cached():
        a, b = m.weight, m.weight
        assert a is b
    assert Double.calls == 1
    assert m.weight is not m.weight
    assert Double.calls == 3


def test_parametrized_module_deepcopies_but_does_not_pickle(torch):
    """An EMA copy of a weight-normed model: deepcopy gives an independent module of the same
    parametrized class; pickling is still refused (state_dict() is the way to save)."""
    import copy  # why: only this test copies modules
    import pickle  # why: only this test pickles

    m = torch.nn.utils.parametrize.register_parametrization(
        _linear(torch), "weight", _symmetric(torch)
    )
    m(torch.ones(1, 3, dtype=torch.float64)).sum().backward()
    c = copy.deepcopy(m)
    assert type(c) is type(m) and type(c).__name__ == "ParametrizedLinear"
    assert [n for n, _ in c.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    assert torch.equal(c.weight, m.weight)
    with torch.no_grad():
        c.parametrizations.weight.original.add_(1.0)
    assert not torch.equal(c.weight, m.weight)
    with pytest.raises(RuntimeError, match="state_dict"):
        pickle.dumps(m)


def test_parametrized_gradients_match_pytorch_to_second_order():
    torch = pytest.importorskip("torch")
    import leafgrad

    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 3))
    x0 = rng.standard_normal((4, 3))
    grads = []
    for lib in (leafgrad, torch):
        m = lib.nn.Linear(3, 3, bias=False).double()
        with lib.no_grad():
            m.weight.copy_(lib.tensor(w0))
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib))
        x = lib.tensor(x0, requires_grad=True)
        y = (m(x) ** 3).sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        (gw,) = lib.autograd.grad(gx.pow(2).sum(), m.parametrizations.weight.original)
        grads.append((y, gx, gw))
    for ours, theirs in zip(*grads):
        assert_close(ours, theirs)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_pytorch(dim):
    torch = pytest.importorskip("torch")
    import leafgrad

    rng = np.random.default_rng(1)
    w0, b0, x0 = rng.standard_normal((4, 3)), rng.standard_normal(4), rng.standard_normal((5, 3))
    results = []
    for lib in (leafgrad, torch):
        legacy = lib.nn.Linear(3, 4).double()
        with lib.no_grad():
            legacy.weight.copy_(lib.tensor(w0))
            legacy.bias.copy_(lib.tensor(b0))
        with pytest.warns(FutureWarning, match="deprecated"):
            lib.nn.utils.weight_norm(legacy, dim=dim)
        assert [n for n, _ in legacy.named_parameters()] == ["bias", "weight_g", "weight_v"]
        new = lib.nn.Linear(3, 4).double()
        with lib.no_grad():
            new.weight.copy_(lib.tensor(w0))
            new.bias.copy_(lib.tensor(b0))
        lib.nn.utils.parametrizations.weight_norm(new, dim=dim)
        assert list(new.state_dict()) == [
            "bias",
            "parametrizations.weight.original0",
            "parametrizations.weight.original1",
        ]
        out = []
        for m, g, v in (
            (legacy, legacy.weight_g, legacy.weight_v),
            (new, new.parametrizations.weight.original0, new.parametrizations.weight.original1),
        ):
            x = lib.tensor(x0, requires_grad=True)
            y = m(x).tanh().sum()
            (gx,) = lib.autograd.grad(y, x, create_graph=True)
            hg, hv = lib.autograd.grad(gx.pow(2).sum(), (g, v))
            out += [g, m(x), gx, hg, hv]
        results.append(out)
    for ours, theirs in zip(*results):
        assert_close(ours, theirs)


def test_weight_norm_legacy_errors_and_removal(torch):
    m = _linear(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(m)
        with pytest.raises(RuntimeError, match="two weight_norm"):
            torch.nn.utils.weight_norm(m)
    expected = to_numpy(m.weight)
    torch.nn.utils.remove_weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]
    assert isinstance(m.weight, torch.nn.Parameter)
    np.testing.assert_allclose(to_numpy(m.weight), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        torch.nn.utils.remove_weight_norm(m)


def test_weight_norm_state_dict_moves_between_libraries():
    torch = pytest.importorskip("torch")
    import leafgrad

    ours = leafgrad.nn.utils.parametrizations.weight_norm(leafgrad.nn.Linear(3, 2).double())
    theirs = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2).double())
    theirs.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in ours.state_dict().items()})
    x_ours, x_theirs = pair(np.ones((2, 3)))
    assert_close(ours(x_ours), theirs(x_theirs))


@pytest.mark.parametrize(
    "make, dim, shape",
    [("linear", None, (5, 4)), ("linear", 1, (5, 4)), ("conv", None, (2, 3, 6)), ("bias", 0, (4,))],
)
def test_spectral_norm_matches_pytorch_to_second_order(make, dim, shape):
    torch = pytest.importorskip("torch")
    import leafgrad

    rng = np.random.default_rng(3)
    x0 = rng.standard_normal(shape)

    def build(lib):
        lib.manual_seed(0)
        if make == "conv":
            m = lib.nn.Conv1d(3, 4, 3).double()
        else:
            m = lib.nn.Linear(4, 3).double()
        name = "bias" if make == "bias" else "weight"
        kwargs = {} if dim is None else {"dim": dim}
        return lib.nn.utils.parametrizations.spectral_norm(m, name, n_power_iterations=2, **kwargs)

    ours, theirs = build(leafgrad), build(torch)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.from_numpy(to_numpy(v)) for k, v in ours.state_dict().items()})
    results = []
    for lib, m in ((leafgrad, ours), (torch, theirs)):
        out = []
        for _ in range(3):  # training mode: each call advances the power iteration
            x = lib.tensor(x0, requires_grad=True)
            y = m(x).tanh().sum()
            original = next(iter(m.parametrizations.values())).original
            gx, gw = lib.autograd.grad(y, (x, original), create_graph=True)
            (hw,) = lib.autograd.grad(gx.pow(2).sum() + gw.pow(2).sum(), original)
            out += [y, gx, gw, hw]
        out += [v for k, v in m.state_dict().items() if "_u" in k or "_v" in k]
        m.eval()
        out.append(m(lib.tensor(x0)))
        results.append(out)
    for a, b in zip(*results):
        assert_close(a, b)
    if make == "linear":
        sigma = np.linalg.svd(to_numpy(ours.weight), compute_uv=False)[0]
        assert abs(sigma - 1) < 1e-3  # power iteration estimates the top singular value


def test_spectral_norm_errors(torch):
    sn = torch.nn.utils.parametrizations.spectral_norm
    with pytest.raises(ValueError, match="no parameter or buffer with name 'w'"):
        sn(torch.nn.Linear(2, 2), "w")
    with pytest.raises(IndexError):
        sn(torch.nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="n_power_iterations"):
        sn(torch.nn.Linear(2, 2), n_power_iterations=0)
