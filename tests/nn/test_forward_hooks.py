"""Forward hooks and forward pre-hooks on Modules, as PyTorch's."""

import numpy as np
import pytest

from .._tolerance import assert_close


def _run(lib):
    lib.manual_seed(0)
    layer = lib.nn.Linear(3, 2).double()
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3) / 10))
        layer.bias.copy_(lib.tensor([0.5, -0.5]))
    seen = []
    pre = layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    post = layer.register_forward_hook(
        lambda m, args, out: seen.append(args[0].sum().item()) or out + 1
    )
    x = lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64)
    hooked = layer(x).tolist()
    pre.remove()
    post.remove()
    plain = layer(x).tolist()
    return hooked, plain, seen


def test_forward_hooks_replace_args_and_outputs_and_can_be_removed():
    import leafgrad

    hooked, plain, seen = _run(leafgrad)
    assert seen == [12.0]
    assert_close(np.array(hooked) - 1, np.array(plain) * 2 - np.array([[0.5, -0.5]]), "direct")


def test_forward_hooks_match_torch():
    torch = pytest.importorskip("torch")
    import leafgrad

    ours, theirs = _run(leafgrad), _run(torch)
    assert_close(np.array(ours[0]), np.array(theirs[0]), "direct")
    assert_close(np.array(ours[1]), np.array(theirs[1]), "direct")
    assert ours[2] == theirs[2]


def _hook_options(lib):
    """with_kwargs, prepend and always_call, observed."""

    class Scaled(lib.nn.Module):
        def forward(self, x, scale=1.0):
            if scale < 0:
                raise ValueError("negative scale")
            return x * scale

    m = Scaled()
    order = []
    m.register_forward_hook(lambda mod, a, o: order.append("post"))
    m.register_forward_hook(lambda mod, a, o: order.append("post first"), prepend=True)
    m.register_forward_pre_hook(lambda mod, a: order.append("pre"))
    m.register_forward_pre_hook(lambda mod, a: order.append("pre first"), prepend=True)
    kw = m.register_forward_pre_hook(
        lambda mod, a, k: (a, {**k, "scale": k.get("scale", 1.0) * 3}), with_kwargs=True
    )
    m.register_forward_hook(lambda mod, a, k, o: o + k["scale"], with_kwargs=True)
    seen = []
    m.register_forward_hook(lambda mod, a, o: seen.append(o), always_call=True)
    out = m(lib.ones(2), scale=2.0).tolist()  # 1 * 6 + 6
    with pytest.raises(ValueError, match="negative scale"):
        m(lib.ones(2), scale=-1.0)
    kw.remove()
    removed = len(m._forward_pre_hooks_with_kwargs)
    bad = lib.nn.Identity()
    bad.register_forward_pre_hook(lambda mod, a, k: a, with_kwargs=True)  # one element only
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        bad(lib.ones(1))
    return out, order[:4], [o if o is None else o.tolist() for o in seen], removed


def test_forward_hook_options_match_torch():
    torch = pytest.importorskip("torch")
    import leafgrad

    ours = _hook_options(leafgrad)
    assert ours == (
        [12.0, 12.0],
        ["pre first", "pre", "post first", "post"],
        [[12.0, 12.0], None],
        0,
    )
    assert ours == _hook_options(torch)


def test_fresh_modules_have_pytorchs_empty_hook_dicts():
    import leafgrad

    m = leafgrad.nn.Linear(2, 2)
    assert m._forward_hooks == {} and m._forward_hooks is m._forward_hooks
    assert m._forward_pre_hooks_with_kwargs == {} and m._is_full_backward_hook is None
    with pytest.raises(AttributeError):
        m._no_such_hooks  # noqa: B018
