"""BatchNorm, LayerNorm, GroupNorm and RMSNorm agree with PyTorch's: values, gradients to
second order (float64), float32 values, running statistics, train/eval, reprs, errors."""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F

from ._compare import assert_close, copy_weights, run_both

RNG = np.random.default_rng(99)


def _randomize(ours) -> None:
    """Non-trivial affine parameters, so the tests see them act."""
    with lg.no_grad():
        for p in ours.parameters():
            p.copy_(lg.tensor(RNG.uniform(0.5, 1.5, tuple(p.shape))))


def _both(name, *args, **kwargs):
    ours = getattr(lg.nn, name)(*args, dtype=lg.float64, **kwargs)
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
    _randomize(ours)
    copy_weights(ours, theirs)
    return ours, theirs


def _assert_same_state(ours, theirs):
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert a.dtype == getattr(lg, str(b.dtype).split(".")[1]), name
        assert_close(a, b)


BATCH_NORMS = [
    ("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)), ("BatchNorm2d", (4, 3, 2, 5)),
    ("BatchNorm3d", (2, 3, 2, 2, 3)),
]  # fmt: skip
BN_OPTIONS = [
    {}, {"momentum": None}, {"momentum": 0.3, "eps": 1e-3}, {"affine": False},
    {"track_running_stats": False}, {"affine": False, "track_running_stats": False},
    {"bias": False},
]  # fmt: skip


@pytest.mark.parametrize(("name", "shape"), BATCH_NORMS)
@pytest.mark.parametrize("options", BN_OPTIONS, ids=str)
def test_batch_norm_trains_then_evaluates_as_pytorch(name, shape, options):
    ours, theirs = _both(name, 3, **options)
    assert repr(ours) == repr(theirs)
    for _ in range(3):
        run_both(ours, theirs, RNG.standard_normal(shape) * 2 + 1, RNG)
        _assert_same_state(ours, theirs)
    ours.eval()
    theirs.eval()
    run_both(ours, theirs, RNG.standard_normal(shape), RNG)
    _assert_same_state(ours, theirs)


def test_batch_norm_float32_values_and_running_stats_match_pytorch():
    ours, theirs = lg.nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    x = (RNG.standard_normal((4, 3, 2, 2)) * 3).astype(np.float32)
    assert_close(ours(lg.tensor(x)), theirs(torch.tensor(x)))
    _assert_same_state(ours, theirs)
    ours.eval()
    theirs.eval()
    assert_close(ours(lg.tensor(x)), theirs(torch.tensor(x)))


@pytest.mark.parametrize(
    ("name", "shape"),
    [("BatchNorm1d", (2, 3, 4, 5)), ("BatchNorm1d", (3,)), ("BatchNorm2d", (2, 3)),
     ("BatchNorm3d", (2, 3, 4, 5))],
)  # fmt: skip
def test_batch_norm_with_the_wrong_rank_raises_value_error_as_pytorch(name, shape):
    with pytest.raises(ValueError):
        getattr(torch.nn, name)(3)(torch.ones(shape))
    with pytest.raises(ValueError, match="expected"):
        getattr(lg.nn, name)(3)(lg.ones(shape))


def test_batch_norm_training_on_one_value_per_channel_raises_value_error_as_pytorch():
    with pytest.raises(ValueError):
        torch.nn.BatchNorm1d(3)(torch.ones(1, 3))
    with pytest.raises(ValueError, match="more than 1 value"):
        lg.nn.BatchNorm1d(3)(lg.ones(1, 3))
    assert lg.nn.BatchNorm1d(3).eval()(lg.ones(1, 3)).shape == (1, 3)


def test_batch_norm_loads_a_state_dict_without_num_batches_tracked():
    state = dict(lg.nn.BatchNorm1d(2).state_dict())
    del state["num_batches_tracked"]
    torch_state = {k: torch.tensor(v.numpy()) for k, v in state.items()}
    assert torch.nn.BatchNorm1d(2).load_state_dict(torch_state).missing_keys == []
    assert lg.nn.BatchNorm1d(2).load_state_dict(state).missing_keys == []


@pytest.mark.parametrize("lib", [lg, torch], ids=["leafgrad", "pytorch"])
def test_batch_norm_state_dict_of_version_2_must_hold_num_batches_tracked(lib):
    """BatchNorm's state dicts are version 2 (num_batches_tracked added): one made by
    ``state_dict()`` (with its ``_metadata``) and lacking the key reports it missing; an older
    or metadata-less one loads keeping the count."""
    layer = lib.nn.BatchNorm1d(2)
    state = layer.state_dict()
    assert state._metadata[""]["version"] == 2
    del state["num_batches_tracked"]
    with pytest.raises(RuntimeError, match="num_batches_tracked"):
        layer.load_state_dict(state)
    assert layer.load_state_dict(state, strict=False).missing_keys == ["num_batches_tracked"]
    state._metadata[""]["version"] = 1
    assert layer.load_state_dict(state).missing_keys == []
    instance = lib.nn.InstanceNorm1d(2, track_running_stats=True).state_dict()
    assert instance._metadata[""]["version"] == 2


def test_functional_batch_norm_updates_the_given_running_stats_in_place():
    x = RNG.standard_normal((5, 2))
    mean_ours, var_ours = lg.zeros(2, dtype=lg.float64), lg.ones(2, dtype=lg.float64)
    mean_theirs, var_theirs = (
        torch.zeros(2, dtype=torch.float64),
        torch.ones(2, dtype=torch.float64),
    )
    out_ours = F.batch_norm(lg.tensor(x), mean_ours, var_ours, training=True, momentum=0.5)
    out_theirs = TF.batch_norm(
        torch.tensor(x), mean_theirs, var_theirs, training=True, momentum=0.5
    )
    assert_close(out_ours, out_theirs)
    assert_close(mean_ours, mean_theirs)
    assert_close(var_ours, var_theirs)


def test_reset_running_stats_restores_the_initial_buffers():
    layer = lg.nn.BatchNorm1d(2)
    layer(lg.randn(4, 2) * 5)
    layer.reset_running_stats()
    assert layer.running_mean.tolist() == [0.0, 0.0]
    assert layer.running_var.tolist() == [1.0, 1.0]
    assert layer.num_batches_tracked.item() == 0


LAYER_NORMS = [
    ((4, 5), 5, {}), ((2, 3, 4), (3, 4), {}), ((2, 3, 4), [4], {"eps": 1e-2}),
    ((3, 4), 4, {"elementwise_affine": False}), ((3, 4), 4, {"bias": False}),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "normalized", "options"), LAYER_NORMS, ids=str)
def test_layer_norm_matches_pytorch(shape, normalized, options):
    ours, theirs = _both("LayerNorm", normalized, **options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    run_both(ours, theirs, RNG.standard_normal(shape) * 3, RNG)
    x = RNG.standard_normal(shape).astype(np.float32)
    ours32, theirs32 = (
        lg.nn.LayerNorm(normalized, **options),
        torch.nn.LayerNorm(normalized, **options),
    )
    assert_close(ours32(lg.tensor(x)), theirs32(torch.tensor(x)))


@pytest.mark.parametrize(("shape", "normalized", "options"), LAYER_NORMS, ids=str)
def test_rms_norm_matches_pytorch(shape, normalized, options):
    options = {k: v for k, v in options.items() if k not in ("bias", "eps")}
    for eps in (None, 1e-3):
        ours, theirs = _both("RMSNorm", normalized, eps=eps, **options)
        assert repr(ours) == repr(theirs)
        run_both(ours, theirs, RNG.standard_normal(shape) * 3, RNG)
    x = RNG.standard_normal(shape).astype(np.float32)
    assert_close(
        lg.nn.RMSNorm(normalized)(lg.tensor(x)), torch.nn.RMSNorm(normalized)(torch.tensor(x))
    )


def test_layer_norm_with_a_mismatched_shape_raises_runtime_error_as_pytorch():
    with pytest.raises(RuntimeError):
        torch.nn.LayerNorm(4)(torch.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"\[2, 3\]"):
        lg.nn.LayerNorm(4)(lg.ones(2, 3))


@pytest.mark.parametrize("normalized", [4, [4], (3, 4), "size"])
def test_layer_norm_takes_every_form_of_normalized_shape_as_pytorch(normalized):
    """The one-op form's unchecked entry (``_native_shape``): ints (leafgrad's; PyTorch's
    functional form wants a sequence), lists, tuples and sizes, parameters and plain tensors,
    values and gradients as PyTorch's."""
    x = RNG.standard_normal((2, 3, 4))
    results = []
    for lib in (lg, torch):
        shape = x.shape[1:] if normalized == "size" else normalized
        shape = lib.Size(shape) if normalized == "size" else shape
        shape = (shape,) if lib is torch and isinstance(shape, int) else shape
        tail = x.shape[-1:] if isinstance(shape, int) else x.shape[3 - len(shape) :]
        xt = lib.tensor(x, requires_grad=True)
        w = lib.nn.Parameter(lib.tensor(np.linspace(0.5, 1.5, math.prod(tail)).reshape(tail)))
        b = lib.tensor(np.full(tail, 0.25), requires_grad=True)
        y = lib.nn.functional.layer_norm(xt, shape, w, b)
        (y * y).sum().backward()
        results.append([y, xt.grad, w.grad, b.grad])
    assert results[0][0].grad_fn.name() == "NativeLayerNormBackward0"
    for a, b in zip(*results, strict=True):
        assert_close(a, b)


def test_layer_norm_checked_path_keeps_its_errors():
    """What the unchecked entry passes over still meets the checks: a wrong shape, a weight of
    another shape, an integer input."""
    from leafgrad.nn._normalization_functions import _native_shape

    x = lg.ones(2, 3)
    assert _native_shape(x, (3,), None, lg.ones(3)) == (3,)
    assert _native_shape(x, (4,), None, None) is None
    assert _native_shape(x, (3,), lg.ones(4), None) is None
    assert _native_shape(x, (3,), lg.ones(3, dtype=lg.float64), None) is None
    assert _native_shape(x, (), None, None) is None
    assert _native_shape(x, (1, 2, 3), None, None) is None
    with pytest.raises(RuntimeError, match="weight of shape"):
        F.layer_norm(x, (3,), lg.ones(4))
    with pytest.raises(NotImplementedError):
        F.layer_norm(lg.ones(2, 3, dtype=lg.int64), (3,))


GROUP_NORMS = [
    (3, 6, (2, 6, 3), {}), (1, 6, (2, 6, 2, 2), {}), (6, 6, (2, 6, 4), {"eps": 1e-3}),
    (2, 8, (3, 8), {}), (2, 4, (2, 4, 3), {"affine": False}), (2, 4, (2, 4, 3), {"bias": False}),
]  # fmt: skip


@pytest.mark.parametrize(("groups", "channels", "shape", "options"), GROUP_NORMS, ids=str)
def test_group_norm_matches_pytorch(groups, channels, shape, options):
    ours, theirs = _both("GroupNorm", groups, channels, **options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    run_both(ours, theirs, RNG.standard_normal(shape) * 3, RNG)
    x = RNG.standard_normal(shape).astype(np.float32)
    assert_close(
        lg.nn.GroupNorm(groups, channels)(lg.tensor(x)),
        torch.nn.GroupNorm(groups, channels)(torch.tensor(x)),
    )


def test_group_norm_with_indivisible_channels_raises_value_error_as_pytorch():
    with pytest.raises(ValueError):
        torch.nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="divisible"):
        lg.nn.GroupNorm(4, 6)
    with pytest.raises(RuntimeError):
        TF.group_norm(torch.ones(2, 6, 3), 4)
    with pytest.raises(RuntimeError):
        F.group_norm(lg.ones(2, 6, 3), 4)


@pytest.mark.parametrize(("p", "dim"), [(2.0, 1), (1.0, 0), (3.0, -1), (2.0, 2)])
def test_normalize_matches_pytorch(p, dim):
    run_both(
        lambda t: F.normalize(t, p, dim),
        lambda t: TF.normalize(t, p, dim),
        RNG.standard_normal((3, 4, 2)),
        RNG,
    )


def test_normalize_records_pytorchs_graph():
    """``input / norm.clamp_min(eps).expand_as(input)``: DivBackward0 over an expand."""
    from tests._graphs import node_names

    found = []
    for lib in (lg, torch):
        x = lib.tensor(np.linspace(-2, 2, 12).reshape(3, 4), requires_grad=True)
        y = lib.nn.functional.normalize(x, dim=1)
        (g,) = lib.autograd.grad((y * y.detach()).sum(), x, create_graph=True)
        found.append((node_names(y.grad_fn, 3), y.detach().numpy(), g.detach().numpy()))
    (ours, y, g), (theirs, ty, tg) = found
    assert ours == theirs
    np.testing.assert_allclose(y, ty, rtol=1e-6)
    np.testing.assert_allclose(g, tg, rtol=1e-5, atol=1e-7)


def _layer_norm_node_and_derivatives(lib, weight, bias, normalized):
    rng = np.random.default_rng(5)
    shape = (2, 3, 4)
    x = lib.tensor(rng.standard_normal(shape), requires_grad=True)
    tail = shape[3 - len(normalized) :]
    w = lib.tensor(rng.uniform(0.5, 1.5, tail), requires_grad=True) if weight else None
    b = lib.tensor(rng.standard_normal(tail), requires_grad=True) if bias else None
    y = lib.nn.functional.layer_norm(x, normalized, w, b)
    node = y.grad_fn
    saved = (
        node.name(),
        tuple(node._saved_normalized_shape),
        node._saved_weight is None,
        node._saved_bias is None,
        tuple(node._saved_result1.shape),
        tuple(node._saved_result2.shape),
    )
    stats = [node._saved_result1, node._saved_result2]
    inputs = [t for t in (x, w, b) if t is not None]
    grads = lib.autograd.grad((y * y * y).sum(), inputs, create_graph=True)
    if lib is torch and bias and not weight:
        # PyTorch's double backward fails with a bias but no weight: a weight of ones then.
        ones = torch.ones(tail, dtype=torch.float64)
        y2 = lib.nn.functional.layer_norm(x, normalized, ones, b)
        grads2 = lib.autograd.grad((y2 * y2 * y2).sum(), inputs, create_graph=True)
    else:
        grads2 = grads
    second = lib.autograd.grad(sum((g * g).sum() for g in grads2), inputs)
    return saved, [y, *stats, *grads, *second]


@pytest.mark.parametrize("normalized", [(4,), (3, 4)])
@pytest.mark.parametrize(("weight", "bias"), [(False, False), (True, False), (False, True),
                                              (True, True)])  # fmt: skip
def test_layer_norm_is_one_native_layer_norm_node_as_in_pytorch(weight, bias, normalized):
    ours, values = _layer_norm_node_and_derivatives(lg, weight, bias, normalized)
    theirs, expected = _layer_norm_node_and_derivatives(torch, weight, bias, normalized)
    assert ours == theirs
    assert ours[0] == "NativeLayerNormBackward0"
    for a, b in zip(values, expected, strict=True):
        assert_close(a, b)


def test_native_layer_norm_statistics_carry_no_gradient_as_pytorch():
    x = lg.randn(3, 4, dtype=lg.float64, requires_grad=True)
    out, mean, rstd = lg.native_layer_norm(x, [4], None, None, 1e-5)
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    assert not mean.requires_grad and not rstd.requires_grad
    assert_close(mean, x.mean(-1, keepdim=True))


def _batched_and_hessian(lib, xs, ws):
    f = lib.nn.functional.layer_norm
    x, w = lib.tensor(xs), lib.tensor(ws)
    batched = lib.func.vmap(lambda x, w: f(x, (4,), w, w))(x, w)
    # forward over reverse: the rule's statistics must carry tangents
    hess = lib.func.hessian(lambda v: f(v, (4,), w[0]).pow(3).sum())(x[0, 0])
    return batched, hess


def test_layer_norm_hessian_and_vmap_over_weights_match_pytorch():
    rng = np.random.default_rng(6)
    xs, ws = rng.standard_normal((5, 3, 4)), rng.uniform(0.5, 1.5, (5, 4))
    for a, b in zip(_batched_and_hessian(lg, xs, ws), _batched_and_hessian(torch, xs, ws)):
        assert_close(a, b)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_is_one_node_with_pytorchs_saves(training):
    """One NativeBatchNormBackward0, saving what PyTorch's saves (the batch statistics
    when training, empty ones otherwise), in both modes."""
    x = RNG.standard_normal((4, 3, 2, 2))
    nodes = []
    for lib in (lg, torch):
        m = lib.nn.BatchNorm2d(3).double()
        m.train(training)
        y = m(lib.tensor(x, requires_grad=True))
        node = y.grad_fn
        nodes.append(node)
        assert node.name() == "NativeBatchNormBackward0"
        assert node._saved_training is training and node._saved_eps == 1e-5
        assert node._saved_running_mean is m.running_mean
        assert node._saved_weight is m.weight
    ours, theirs = nodes
    for name in ("_saved_result1", "_saved_result2"):
        assert_close(getattr(ours, name).detach(), getattr(theirs, name).detach())


def test_group_norm_is_one_node_with_pytorchs_saves_to_second_order():
    x = RNG.standard_normal((2, 4, 3, 3))
    w, b = RNG.standard_normal(4), RNG.standard_normal(4)
    results = []
    for lib in (lg, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in (x, w, b)]
        y = lib.nn.functional.group_norm(xs[0], 2, xs[1], xs[2])
        node = y.grad_fn
        assert node.name() == "NativeGroupNormBackward0"
        saved = (node._saved_N, node._saved_C, node._saved_HxW, node._saved_group)
        assert saved == (2, 4, 9, 2) and node._saved_eps == 1e-5
        stats = [node._saved_result1, node._saved_result2]
        grads = lib.autograd.grad((y**3).sum(), xs, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), xs)
        results.append([y, *stats, *grads, *second])
    for a, b in zip(*results):
        assert_close(a.detach(), b.detach())
