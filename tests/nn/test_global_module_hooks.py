"""Hooks on every module (``nn.modules.module.register_module_*``), as PyTorch's: the call
hooks run before each module's own, the registration hooks see (and may replace) what is
registered.

Each test runs with leafgrad and with PyTorch (see conftest.py)."""

import importlib

import pytest


def _module_module(torch):
    """``<lib>.nn.modules.module``, where PyTorch defines the global hooks."""
    return importlib.import_module(torch.__name__ + ".nn.modules.module")


def test_global_call_hooks_run_before_each_modules_own(torch):
    mm, log = _module_module(torch), []
    net = torch.nn.Sequential(torch.nn.Linear(1, 1))
    net[0].register_forward_hook(lambda m, i, o: log.append(("own forward", type(m).__name__)))
    handles = [
        mm.register_module_forward_pre_hook(lambda m, i: log.append(("pre", type(m).__name__))),
        mm.register_module_forward_hook(lambda m, i, o: log.append(("forward", type(m).__name__))),
        mm.register_module_full_backward_pre_hook(
            lambda m, go: log.append(("backward pre", type(m).__name__))
        ),
        mm.register_module_full_backward_hook(
            lambda m, gi, go: log.append(("backward", type(m).__name__, len(gi)))
        ),
    ]
    try:
        net(torch.ones(1, 1, requires_grad=True)).sum().backward()
        with pytest.raises(RuntimeError, match="both regular backward hooks and full"):
            mm.register_module_backward_hook(lambda m, gi, go: None)
    finally:
        for handle in handles:
            handle.remove()
    assert log == [
        ("pre", "Sequential"),
        ("pre", "Linear"),
        ("forward", "Linear"),
        ("own forward", "Linear"),
        ("forward", "Sequential"),
        ("backward pre", "Sequential"),
        ("backward pre", "Linear"),
        ("backward", "Linear", 1),
        ("backward", "Sequential", 1),
    ]
    log.clear()
    net(torch.ones(1, 1))
    assert log == [("own forward", "Linear")]


def test_global_forward_hook_with_kwargs_and_always_call(torch):
    mm, seen = _module_module(torch), []

    class Failing(torch.nn.Module):
        def forward(self, x, scale=1.0):
            if scale < 0:
                raise ValueError("negative")
            return x * scale

    first = mm.register_module_forward_hook(
        lambda m, a, k, o: o + k.get("scale", 0.0), with_kwargs=True
    )
    second = mm.register_module_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
    try:
        assert Failing()(torch.ones(1), scale=2.0).tolist() == [4.0]
        with pytest.raises(ValueError):
            Failing()(torch.ones(1), scale=-1.0)
    finally:
        first.remove()
        second.remove()
    assert [None if o is None else o.tolist() for o in seen] == [[4.0], None]


def test_registration_hooks_see_and_may_replace_what_is_registered(torch):
    mm, log = _module_module(torch), []

    def on_parameter(module, name, param):
        log.append(("parameter", name))

    def on_buffer(module, name, buffer):
        log.append(("buffer", name))
        return None if buffer is None else buffer * 2

    def on_module(module, name, sub):
        log.append(("module", name, type(sub).__name__))

    handles = [
        mm.register_module_parameter_registration_hook(on_parameter),
        mm.register_module_buffer_registration_hook(on_buffer),
        mm.register_module_module_registration_hook(on_module),
    ]
    try:
        m = torch.nn.Module()
        m.w = torch.nn.Parameter(torch.ones(1))
        m.w = None
        m.register_buffer("b", torch.ones(1))
        m.b = torch.ones(1)
        m.child = torch.nn.Identity()
        m.add_module("other", None)
    finally:
        for handle in handles:
            handle.remove()
    assert log == [  # (setting a parameter to None is not a registration)
        ("parameter", "w"),
        ("buffer", "b"),
        ("buffer", "b"),
        ("module", "child", "Identity"),
        ("module", "other", "NoneType"),
    ]
    assert m.b.tolist() == [2.0]
