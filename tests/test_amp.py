"""torch.amp against PyTorch's CPU build: autocast disables itself (with PyTorch's warnings for
CUDA and unsupported dtypes, with ours for CPU low precision); GradScaler("cpu") scales,
unscales, skips overflowing steps and adapts its scale as PyTorch's does."""

import warnings

import numpy as np
import pytest

import leafgrad as lg


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def _enter(m, *args, **kwargs):
    with m.autocast(*args, **kwargs):
        a = m.ones(2, 2)
        return (a @ a).dtype, m.is_autocast_enabled("cpu")


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("cuda",), {}), (("cpu",), {"dtype": "float64"}), (("cpu",), {"enabled": False})],
)
def test_autocast_disables_itself_as_pytorch(torch, args, kwargs):
    results = []
    for m in (torch, lg):
        kw = {k: getattr(m, v) if isinstance(v, str) else v for k, v in kwargs.items()}
        msgs = _messages(lambda m=m, kw=kw: results.append(_enter(m, *args, **kw)))
        results.append(msgs)
    (t_out, t_msgs), (l_out, l_msgs) = (results[0], results[1]), (results[2], results[3])
    assert str(t_out[0]) == str(l_out[0]) and t_out[1] == l_out[1] is False
    assert t_msgs == l_msgs


def test_cpu_autocast_to_low_precision_warns_that_leafgrad_keeps_full_precision():
    with pytest.warns(UserWarning, match="leafgrad does not autocast"):
        dtype, enabled = _enter(lg, "cpu")
    assert dtype == lg.float32 and not enabled


def test_autocast_is_a_decorator_and_checks_its_device_type(torch):
    @lg.autocast("cpu", enabled=False)
    def f(x):
        return x * 2

    assert f(lg.ones(2)).tolist() == [2.0, 2.0]
    for m in (torch, lg):
        with pytest.raises(ValueError):
            m.autocast(1)
        with pytest.raises(RuntimeError):
            m.autocast("xyz")


def test_autocast_state_queries_match_pytorch(torch):
    assert str(lg.get_autocast_dtype("cpu")) == str(torch.get_autocast_dtype("cpu"))
    assert str(lg.get_autocast_dtype("cuda")) == str(torch.get_autocast_dtype("cuda"))
    assert lg.is_autocast_enabled() is torch.is_autocast_enabled() is False
    assert lg.is_autocast_cache_enabled() is torch.is_autocast_cache_enabled()
    with pytest.warns(UserWarning, match="deprecated"):
        assert lg.get_autocast_cpu_dtype() == lg.bfloat16
    with pytest.raises(NotImplementedError, match="does not autocast"):
        lg.set_autocast_enabled("cpu", True)


def _train(m, scaler_args, steps, poison=()):
    """Scaled SGD steps on sum(w**2); gradients of the steps in ``poison`` are made inf."""
    w = m.nn.Parameter(m.tensor([1.0, -2.0, 0.5]))
    opt = m.optim.SGD([w], lr=0.1)
    scaler = m.amp.GradScaler(*scaler_args)
    history = []
    for i in range(steps):
        opt.zero_grad()
        scaler.scale((w**2).sum()).backward()
        if i in poison:
            with m.no_grad():
                w.grad[0] = float("inf")
        scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), w.detach().numpy().copy()))
    return history, scaler.state_dict()


def test_grad_scaler_on_the_cpu_matches_pytorch(torch):
    args = ("cpu", 8.0, 2.0, 0.5, 2)
    ours, ours_state = _train(lg, args, 7, poison={2, 3})
    theirs, theirs_state = _train(torch, args, 7, poison={2, 3})
    for (s1, w1), (s2, w2) in zip(ours, theirs):
        assert s1 == s2
        np.testing.assert_allclose(w1, w2, rtol=1e-6)
    assert ours_state == theirs_state


def test_grad_scaler_misuse_raises_as_pytorch(torch):
    for m in (torch, lg):
        w = m.nn.Parameter(m.ones(2))
        opt = m.optim.SGD([w], lr=0.1)
        fresh = m.amp.GradScaler("cpu")
        with pytest.raises(AssertionError):
            fresh.step(opt)
        scaler = m.amp.GradScaler("cpu")
        scaler.scale(w.sum()).backward()
        scaler.unscale_(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
            scaler.unscale_(opt)
        scaler.step(opt)
        with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
            scaler.step(opt)


def test_a_cuda_scaler_disables_itself_and_passes_through(torch):
    for m in (torch, lg):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            scaler = m.amp.GradScaler()
        loss = m.tensor(3.0)
        assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0
        assert not scaler.is_enabled() and scaler.state_dict() == {}
    with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            lg.cuda.amp.GradScaler()
    with pytest.warns(FutureWarning, match="torch.cuda.amp.autocast"):
        lg.cuda.amp.autocast(enabled=False)


def test_grad_scaler_state_dict_round_trips():
    a = lg.amp.GradScaler("cpu", init_scale=32.0, growth_interval=5)
    b = lg.amp.GradScaler("cpu")
    b.load_state_dict(a.state_dict())
    assert b.state_dict() == a.state_dict()
