"""Helpers for the modules that check leafgrad's nn against PyTorch's (they import torch first)."""

import numpy as np

import leafgrad as lg

from .. import _tolerance


def to_numpy(t) -> np.ndarray:
    """The values of a leafgrad or PyTorch tensor (sparse and zero tensors included) as a
    NumPy array."""
    t = t.detach()
    if getattr(t, "is_sparse", False):
        t = t.to_dense()
    if hasattr(t, "_is_zerotensor") and t._is_zerotensor():
        return np.zeros(tuple(t.shape))
    return np.array(t.numpy())


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


def run_both(ours, theirs, x_array, rng, second_order=True, kind="direct", rtol=None):
    """Forward, input and parameter grads and (optionally) a Hessian-vector product agree.

    ``ours``/``theirs`` are the leafgrad and PyTorch callables (modules or functions);
    ``rng`` draws the output and vector seeds; ``rtol`` overrides ``kind``'s for gradients.
    """
    import torch

    x_ours, x_theirs = pair(x_array, requires_grad=True)
    out_ours, out_theirs = ours(x_ours), theirs(x_theirs)
    assert_close(out_ours, out_theirs, kind)
    w_ours, w_theirs = pair(rng.standard_normal(tuple(out_theirs.shape)))
    params_ours = list(ours.parameters()) if isinstance(ours, lg.nn.Module) else []
    params_theirs = list(theirs.parameters()) if isinstance(theirs, torch.nn.Module) else []
    grads_ours = lg.autograd.grad(
        (out_ours * w_ours).sum(), [x_ours, *params_ours], create_graph=second_order
    )
    grads_theirs = torch.autograd.grad(
        (out_theirs * w_theirs).sum(), [x_theirs, *params_theirs], create_graph=second_order
    )
    assert len(grads_ours) == len(grads_theirs)
    for g_ours, g_theirs in zip(grads_ours, grads_theirs):
        assert_close(g_ours, g_theirs, kind, rtol=rtol)
    # Whether the gradient is itself differentiable is a fact to match; then its derivative.
    if second_order:
        assert grads_ours[0].requires_grad == grads_theirs[0].requires_grad
    if second_order and grads_theirs[0].requires_grad:
        v_ours, v_theirs = pair(rng.standard_normal(x_array.shape))
        inputs_ours, inputs_theirs = [x_ours, *params_ours], [x_theirs, *params_theirs]
        h_ours = lg.autograd.grad((grads_ours[0] * v_ours).sum(), inputs_ours, allow_unused=True)
        h_theirs = torch.autograd.grad(
            (grads_theirs[0] * v_theirs).sum(), inputs_theirs, allow_unused=True
        )
        for a, b in zip(h_ours, h_theirs):
            if a is None and b is None:
                continue
            if a is None or b is None:
                # One side may record a zero where the other records no dependence at all.
                a, b = (zero_if_none(a, b), zero_if_none(b, a))
            assert_close(a, b, kind, rtol=rtol)


def zero_if_none(t, like):
    """``t``, or zeros shaped like ``like`` when ``t`` is None."""
    if t is not None:
        return t
    return lg.zeros(tuple(like.shape), dtype=lg.float64)
