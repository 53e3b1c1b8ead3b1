"""Helpers for the modules that check leafgrad's nn against PyTorch's (they import torch first)."""

import numpy as np

import leafgrad as lg


def to_numpy(t) -> np.ndarray:
    """The values of a leafgrad or PyTorch tensor as a NumPy array."""
    return np.array(t.detach().numpy())


def pair(array, requires_grad=False):
    """The same float64 values as a leafgrad tensor and a PyTorch tensor."""
    import torch

    array = np.asarray(array)
    return (
        lg.tensor(array.copy(), requires_grad=requires_grad),
        torch.tensor(array.copy(), requires_grad=requires_grad),
    )


def assert_close(ours, theirs, rtol=1e-10, atol=1e-12) -> None:
    if theirs is None:
        assert ours is None
        return
    assert tuple(ours.shape) == tuple(theirs.shape), (tuple(ours.shape), tuple(theirs.shape))
    np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=atol)


def copy_weights(ours, theirs) -> None:
    """Give the PyTorch module the leafgrad module's parameters and buffers (same names)."""
    import torch

    state = {k: torch.from_numpy(to_numpy(v).copy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state)


def assert_same_grads(ours, theirs, rtol=1e-10, atol=1e-12) -> None:
    """Every parameter's .grad agrees, matched by name."""
    ours_named = dict(ours.named_parameters())
    theirs_named = dict(theirs.named_parameters())
    assert list(ours_named) == list(theirs_named)
    for name, p in ours_named.items():
        assert_close(p.grad, theirs_named[name].grad, rtol, atol)
