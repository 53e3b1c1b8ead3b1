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
