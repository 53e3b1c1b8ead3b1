"""Gradients of forward-mode tangents that went through an in-place op, against PyTorch.

An in-place op's JVP rule reads its target as it was before the write (PyTorch's
``original_self``): the tangent's graph used to save the target itself, whose version the
write then moved, so differentiating the tangent raised where PyTorch's succeeds.
"""

import numpy as np
import pytest

import leafgrad as lg

pytorch = pytest.importorskip("torch")

_OPS = {
    "sin_": lambda m, y, w: y.sin_(),
    "exp_": lambda m, y, w: y.exp_(),
    "mul_ tensor": lambda m, y, w: y.mul_(w),
    "mul_ number": lambda m, y, w: y.mul_(2.5),
    "add_": lambda m, y, w: y.add_(w, alpha=2),
    "div_": lambda m, y, w: y.div_(w),
    "pow_ tensor": lambda m, y, w: y.abs_().pow_(w),
    "pow_ number": lambda m, y, w: y.pow_(3),
    "clamp_": lambda m, y, w: y.clamp_(-0.2, 0.4),
    "hardtanh_": lambda m, y, w: m.nn.functional.hardtanh_(y, -0.2, 0.4),
    "threshold_": lambda m, y, w: m.nn.functional.threshold_(y, 0.2, -1.0),
    "relu_": lambda m, y, w: y.relu_(),
    "sigmoid_": lambda m, y, w: y.sigmoid_(),
    "tanh_": lambda m, y, w: y.tanh_(),
    "silu_": lambda m, y, w: m.nn.functional.silu(y, inplace=True),
    "leaky_relu_": lambda m, y, w: m.nn.functional.leaky_relu_(y, 0.1),
    "mish_": lambda m, y, w: m.nn.functional.mish(y, inplace=True),
    "elu_": lambda m, y, w: m.nn.functional.elu_(y),
    "hypot_": lambda m, y, w: y.hypot_(w),
    "float_power_": lambda m, y, w: y.float_power_(2.0),
    "view mul_": lambda m, y, w: y[0].mul_(w[0]),
    "view sin_": lambda m, y, w: y[1:].sin_(),
}


def _tangent_and_grads(m, op, seed_requires_grad):
    """The tangent of ``op`` applied in place to a dual tensor, and its sum's gradients with
    respect to the primal, the other operand and (when it requires grad) the seed."""
    fw = m.autograd.forward_ad
    x = m.tensor([0.3, -0.5], dtype=m.float64, requires_grad=True)
    w = m.tensor([0.7, -0.4], dtype=m.float64, requires_grad=True)
    seed = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=seed_requires_grad)
    with fw.dual_level():
        wd = fw.make_dual(w * 1.0, m.tensor([0.5, -1.5], dtype=m.float64))
        y = fw.make_dual(x * 1.0, seed * 1.0).clone()
        op(m, y, wd)
        primal, tangent = fw.unpack_dual(y)
        inputs = (x, w, seed) if seed_requires_grad else (x, w)
        grads = m.autograd.grad(tangent.sum(), inputs, allow_unused=True, materialize_grads=True)
    values = [primal.detach(), tangent.detach(), *grads]
    return [v.numpy(force=True) for v in values]


@pytest.mark.parametrize("seed_requires_grad", [False, True], ids=["seed", "seed_grad"])
@pytest.mark.parametrize("name", list(_OPS))
def test_gradient_of_tangent_through_inplace_op_matches_pytorch(name, seed_requires_grad):
    if name in ("mul_ number", "view mul_") and not seed_requires_grad:
        # PyTorch's tangent requires grad here (the number is a wrapped tensor whose zero
        # tangent meets original_self) and its gradient is an unallocated ZeroTensor.
        pytest.skip("PyTorch differentiates a constant tangent to a ZeroTensor")
    if name in ("add_", "clamp_") and not seed_requires_grad:
        # the tangent is a constant, which neither library differentiates
        for m in (lg, pytorch):
            with pytest.raises(RuntimeError, match="does not require grad"):
                _tangent_and_grads(m, _OPS[name], seed_requires_grad)
        return
    ours = _tangent_and_grads(lg, _OPS[name], seed_requires_grad)
    theirs = _tangent_and_grads(pytorch, _OPS[name], seed_requires_grad)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_tangent_of_hypot_inplace_counts_the_targets_tangent():
    ours = _tangent_and_grads(lg, _OPS["hypot_"], False)[1]
    theirs = _tangent_and_grads(pytorch, _OPS["hypot_"], False)[1]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
