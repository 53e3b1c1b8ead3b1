"""Helpers for the modules that check leafgrad's nn against PyTorch's (they import torch first)."""

import numpy as np

import leafgrad as lg

from .. import _tolerance


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


def assert_close(ours, theirs, kind="direct", *, rtol=None, atol=None) -> None:
    """``ours`` has ``theirs``'s shape and values, within the shared tolerance for ``kind``
    (tests/_tolerance.py) unless ``rtol``/``atol`` say otherwise; ``None`` must match ``None``."""
    if theirs is None:
        assert ours is None
        return
    assert tuple(ours.shape) == tuple(theirs.shape), (tuple(ours.shape), tuple(theirs.shape))
    if rtol is None and atol is None:
        _tolerance.assert_close(to_numpy(ours), to_numpy(theirs), kind)
        return
    default_rtol, default_atol = _tolerance.tolerance(to_numpy(theirs).dtype, kind)
    np.testing.assert_allclose(
        to_numpy(ours),
        to_numpy(theirs),
        rtol=default_rtol if rtol is None else rtol,
        atol=default_atol if atol is None else atol,
    )


def copy_weights(ours, theirs) -> None:
    """Give the PyTorch module the leafgrad module's parameters and buffers (same names)."""
    import torch

    state = {k: torch.from_numpy(to_numpy(v).copy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state)


def assert_same_grads(ours, theirs, kind="direct") -> None:
    """Every parameter's .grad agrees, matched by name."""
    ours_named = dict(ours.named_parameters())
    theirs_named = dict(theirs.named_parameters())
    assert list(ours_named) == list(theirs_named)
    for name, p in ours_named.items():
        assert_close(p.grad, theirs_named[name].grad, kind)
