"""Every loss and reduction agrees with PyTorch: values, gradients with respect to input (and
target where PyTorch differentiates it) and, where the loss is smooth, second derivatives."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F
from tests._graphs import names_to_leaves

from ._compare import assert_close, to_numpy

RNG = np.random.default_rng(2024)
REDUCTIONS = ["none", "mean", "sum"]


def both(array, requires_grad):
    array = np.asarray(array)
    grad = requires_grad and array.dtype.kind == "f"
    return lg.tensor(array.copy(), requires_grad=grad), torch.tensor(
        array.copy(), requires_grad=grad
    )


def check(name, arrays, kwargs=None, grad_of=(0,), second_order=True):
    """Compare F.<name>(*arrays, **kwargs) and its derivatives with PyTorch's."""
    kwargs = kwargs or {}
    pairs = [both(a, i in grad_of) for i, a in enumerate(arrays)]
    ours, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
    out_ours = getattr(F, name)(*ours, **kwargs)
    out_theirs = getattr(TF, name)(*theirs, **kwargs)
    assert_close(out_ours, out_theirs)
    seed = RNG.standard_normal(tuple(out_theirs.shape))
    wrt_ours = [ours[i] for i in grad_of]
    wrt_theirs = [theirs[i] for i in grad_of]
    g_ours = lg.autograd.grad(
        (out_ours * lg.tensor(seed)).sum(), wrt_ours, create_graph=second_order
    )
    g_theirs = torch.autograd.grad(
        (out_theirs * torch.tensor(seed)).sum(), wrt_theirs, create_graph=second_order
    )
    for a, b in zip(g_ours, g_theirs):
        assert_close(a, b)
    if second_order:
        v = RNG.standard_normal(arrays[grad_of[0]].shape)
        (h_ours,) = lg.autograd.grad((g_ours[0] * lg.tensor(v)).sum(), [wrt_ours[0]])
        (h_theirs,) = torch.autograd.grad((g_theirs[0] * torch.tensor(v)).sum(), [wrt_theirs[0]])
        if name == "binary_cross_entropy":
            # PyTorch's double-backward formula, with its 1 / (p * (1 - p))**2, rounds
            # differently from the composed one (by about 5e-11 relative).
            assert_close(h_ours, h_theirs, rtol=1e-8, atol=1e-10)
        else:
            assert_close(h_ours, h_theirs)


X = RNG.standard_normal((4, 3))
Y = RNG.standard_normal((4, 3))
W = RNG.uniform(0.5, 2.0, (4, 3))


# ----- regression losses -----


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_loss(reduction):
    check("mse_loss", [X, Y], {"reduction": reduction}, grad_of=(0, 1))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_l1_loss(reduction):
    check("l1_loss", [X, Y], {"reduction": reduction}, grad_of=(0, 1), second_order=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.4])
def test_huber_loss(reduction, delta):
    check("huber_loss", [X, Y], {"reduction": reduction, "delta": delta}, grad_of=(0, 1))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.4, 0.0])
def test_smooth_l1_loss(reduction, beta):
    check(
        "smooth_l1_loss",
        [X, Y],
        {"reduction": reduction, "beta": beta},
        grad_of=(0, 1),
        second_order=beta > 0,
    )


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weighted_regression_losses(name, reduction):
    x_ours, x_theirs = both(X, True)
    y_ours, y_theirs = both(Y, False)
    w_ours, w_theirs = both(W, False)
    out_ours = getattr(F, name)(x_ours, y_ours, reduction=reduction, weight=w_ours)
    out_theirs = getattr(TF, name)(x_theirs, y_theirs, reduction=reduction, weight=w_theirs)
    assert_close(out_ours, out_theirs)
    out_ours.sum().backward()
    out_theirs.sum().backward()
    assert_close(x_ours.grad, x_theirs.grad)


@pytest.mark.parametrize(
    ("name", "kwargs", "node"),
    [
        ("mse_loss", {}, "MseLossBackward0"),
        ("huber_loss", {"delta": 0.5}, "HuberLossBackward0"),
        ("smooth_l1_loss", {"beta": 0.5}, "SmoothL1LossBackward0"),
    ],
)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses_record_one_node_as_pytorch(name, kwargs, node, reduction):
    pairs = [both(X, True), both(Y, False)]
    out_ours = getattr(F, name)(*(p[0] for p in pairs), reduction=reduction, **kwargs)
    out_theirs = getattr(TF, name)(*(p[1] for p in pairs), reduction=reduction, **kwargs)
    for out, x in ((out_ours, pairs[0][0]), (out_theirs, pairs[0][1])):
        node_of = out.grad_fn
        assert node_of.name() == node
        assert node_of._saved_reduction == {"none": 0, "mean": 1, "sum": 2}[reduction]
        assert node_of._saved_self is x or node_of._saved_self.equal(x)
        assert [type(f).__name__ for f, _ in node_of.next_functions] == [
            "AccumulateGrad",
            "NoneType",
        ]
    assert repr(out_ours).split("grad_fn=")[-1] == repr(out_theirs).split("grad_fn=")[-1]


@pytest.mark.parametrize("name", ["mse_loss", "huber_loss", "smooth_l1_loss"])
def test_regression_losses_promote_mixed_dtypes_and_cast_gradients_back(name):
    x32 = RNG.standard_normal((3,)).astype(np.float32)
    x_ours, x_theirs = lg.tensor(x32, requires_grad=True), torch.tensor(x32, requires_grad=True)
    ours = getattr(F, name)(x_ours, lg.tensor(Y[0]))
    theirs = getattr(TF, name)(x_theirs, torch.tensor(Y[0]))
    # PyTorch's huber_loss computes in the input's dtype (and its backward then raises).
    expected = "float32" if name == "huber_loss" else "float64"
    assert str(ours.dtype) == str(theirs.dtype) == f"torch.{expected}"
    assert_close(ours, theirs)
    ours.backward()
    if name == "huber_loss":
        with pytest.raises(RuntimeError):
            theirs.backward()
        theirs = getattr(TF, name)(x_theirs, torch.tensor(Y[0], dtype=torch.float32))
    theirs.backward()
    assert x_ours.grad.dtype == lg.float32 and x_theirs.grad.dtype == torch.float32
    assert_close(x_ours.grad, x_theirs.grad)


def test_regression_loss_of_an_empty_input_is_nan_like_pytorch():
    for lib, fn in ((lg, F.mse_loss), (torch, TF.mse_loss)):
        x = lib.zeros(0, requires_grad=True)
        out = fn(x, lib.zeros(0))
        assert out.shape == () and bool(out.isnan())
        out.backward()
        assert x.grad.shape == (0,)


def test_regression_loss_broadcasts_with_a_warning_like_pytorch():
    x_ours, x_theirs = both(RNG.standard_normal((4, 1)), True)
    y_ours, y_theirs = both(RNG.standard_normal((3,)), False)
    with pytest.warns(UserWarning, match="different to the input size"):
        ours = F.mse_loss(x_ours, y_ours)
    with pytest.warns(UserWarning):
        theirs = TF.mse_loss(x_theirs, y_theirs)
    assert_close(ours, theirs)
    ours.backward()
    theirs.backward()
    assert_close(x_ours.grad, x_theirs.grad)


# ----- binary cross-entropy -----

P = RNG.uniform(0.02, 0.98, (4, 3))
T = RNG.uniform(0.0, 1.0, (4, 3))
CLASS_W = RNG.uniform(0.5, 2.0, (3,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, "per_class", "full"])
def test_binary_cross_entropy(reduction, weight):
    arrays = [P, T] + ([] if weight is None else [CLASS_W if weight == "per_class" else W])
    check("binary_cross_entropy", arrays, {"reduction": reduction}, grad_of=(0, 1))


def test_binary_cross_entropy_clamps_logs_at_minus_100_like_pytorch():
    p = np.array([0.0, 1.0, 1e-50, 1 - 1e-16, 0.5])
    t = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    ours = F.binary_cross_entropy(lg.tensor(p), lg.tensor(t), reduction="none")
    theirs = TF.binary_cross_entropy(torch.tensor(p), torch.tensor(t), reduction="none")
    assert_close(ours, theirs)


def test_binary_cross_entropy_gradient_is_finite_at_0_and_1():
    p = lg.tensor([0.0, 1.0, 0.0, 1.0], requires_grad=True)
    F.binary_cross_entropy(p, lg.tensor([0.0, 1.0, 1.0, 0.0])).backward()
    assert np.isfinite(to_numpy(p.grad)).all()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", ["plain", "weight", "pos_weight", "both"])
def test_binary_cross_entropy_with_logits(reduction, options):
    logits = RNG.standard_normal((4, 3)) * 4
    check_logits(
        [logits, T],
        reduction,
        weight=options in ("weight", "both"),
        pos_weight=options in ("pos_weight", "both"),
    )


def check_logits(arrays, reduction, weight, pos_weight):
    x_ours, x_theirs = both(arrays[0], True)
    t_ours, t_theirs = both(arrays[1], True)
    kw_ours, kw_theirs = {"reduction": reduction}, {"reduction": reduction}
    if weight:
        kw_ours["weight"], kw_theirs["weight"] = both(W, False)
    if pos_weight:
        kw_ours["pos_weight"], kw_theirs["pos_weight"] = both(CLASS_W, False)
    out_ours = F.binary_cross_entropy_with_logits(x_ours, t_ours, **kw_ours)
    out_theirs = TF.binary_cross_entropy_with_logits(x_theirs, t_theirs, **kw_theirs)
    assert_close(out_ours, out_theirs)
    g_ours = lg.autograd.grad(out_ours.sum(), [x_ours, t_ours], create_graph=True)
    g_theirs = torch.autograd.grad(out_theirs.sum(), [x_theirs, t_theirs], create_graph=True)
    for a, b in zip(g_ours, g_theirs):
        assert_close(a, b)
    v = RNG.standard_normal(arrays[0].shape)
    (h_ours,) = lg.autograd.grad((g_ours[0] * lg.tensor(v)).sum(), [x_ours])
    (h_theirs,) = torch.autograd.grad((g_theirs[0] * torch.tensor(v)).sum(), [x_theirs])
    assert_close(h_ours, h_theirs)


def test_binary_cross_entropy_with_logits_is_stable_for_large_logits():
    logits = np.array([-800.0, -40.0, -1e-3, 0.0, 1e-3, 40.0, 800.0])
    t = np.array([1.0, 1.0, 0.0, 0.5, 1.0, 0.0, 0.0])
    check_logits([logits, t], "none", weight=False, pos_weight=False)


# ----- nll and cross-entropy -----

LOGITS = RNG.standard_normal((5, 4)) * 2
LABELS = np.array([0, 3, 1, -100, 2])
PROBS = RNG.dirichlet(np.ones(4), size=5)
CLASS_W4 = RNG.uniform(0.5, 2.0, (4,))


def class_check(name, x, target, reduction, weight=None, **kwargs):
    arrays = [x, target] + ([] if weight is None else [weight])
    float_target = np.asarray(target).dtype.kind == "f"
    check(
        name,
        arrays,
        {"reduction": reduction, **kwargs},
        grad_of=(0, 1) if float_target else (0,),
        second_order=name == "cross_entropy",
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, weighted):
    logp = LOGITS - np.log(np.exp(LOGITS).sum(1, keepdims=True))
    class_check("nll_loss", logp, LABELS, reduction, CLASS_W4 if weighted else None)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.15])
def test_cross_entropy_with_class_indices(reduction, weighted, label_smoothing):
    class_check(
        "cross_entropy",
        LOGITS,
        LABELS,
        reduction,
        CLASS_W4 if weighted else None,
        label_smoothing=label_smoothing,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.15])
def test_cross_entropy_with_class_probabilities(reduction, weighted, label_smoothing):
    class_check(
        "cross_entropy",
        LOGITS,
        PROBS,
        reduction,
        CLASS_W4 if weighted else None,
        label_smoothing=label_smoothing,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_with_ignore_index(reduction):
    class_check(
        "cross_entropy", LOGITS, np.array([0, 3, 3, 1, 3]), reduction, CLASS_W4, ignore_index=3
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_on_spatial_inputs(reduction):
    x = RNG.standard_normal((2, 4, 3, 5))
    labels = RNG.integers(0, 4, (2, 3, 5))
    labels[0, 1, 2] = -100
    class_check("cross_entropy", x, labels, reduction, CLASS_W4, label_smoothing=0.1)
    class_check("nll_loss", x, labels, reduction, CLASS_W4)
    probs = RNG.dirichlet(np.ones(4), size=(2, 3, 5)).transpose(0, 3, 1, 2).copy()
    class_check("cross_entropy", x, probs, reduction)


def test_cross_entropy_of_one_unbatched_sample():
    class_check("cross_entropy", LOGITS[0], np.array(2), "mean")
    class_check("cross_entropy", LOGITS[0], PROBS[0], "none")


def test_cross_entropy_accepts_uint8_targets():
    ours = F.cross_entropy(lg.tensor(LOGITS), lg.tensor(np.array([0, 3, 1, 1, 2], dtype=np.uint8)))
    theirs = TF.cross_entropy(
        torch.tensor(LOGITS), torch.tensor(np.array([0, 3, 1, 1, 2], dtype=np.uint8))
    )
    assert_close(ours, theirs)


def test_cross_entropy_with_every_target_ignored_is_nan_like_pytorch():
    for ls in (0.0, 0.1):
        ours = F.cross_entropy(lg.tensor(LOGITS), lg.tensor(np.full(5, -100)), label_smoothing=ls)
        theirs = TF.cross_entropy(
            torch.tensor(LOGITS), torch.tensor(np.full(5, -100)), label_smoothing=ls
        )
        assert np.isnan(ours.item()) and np.isnan(theirs.item())


def test_cross_entropy_equals_nll_of_log_softmax():
    x = lg.tensor(LOGITS)
    t = lg.tensor(np.array([0, 3, 1, 1, 2]))
    assert_close(F.cross_entropy(x, t), F.nll_loss(F.log_softmax(x, 1), t))


# ----- modules -----

MODULE_CASES = [
    ("MSELoss", {"reduction": "sum"}, "regression"),
    ("L1Loss", {}, "regression"),
    ("HuberLoss", {"delta": 0.5, "reduction": "none"}, "regression"),
    ("SmoothL1Loss", {"beta": 0.5}, "regression"),
    ("BCELoss", {"weight": CLASS_W}, "probability"),
    ("BCEWithLogitsLoss", {"pos_weight": CLASS_W}, "logits"),
    (
        "CrossEntropyLoss",
        {"weight": CLASS_W4, "label_smoothing": 0.1, "ignore_index": 1},
        "classes",
    ),
    ("NLLLoss", {"weight": CLASS_W4}, "classes"),
]


@pytest.mark.parametrize(("name", "kwargs", "kind"), MODULE_CASES, ids=[c[0] for c in MODULE_CASES])
def test_loss_modules_match_pytorch(name, kwargs, kind):
    x, target = {
        "regression": (X, Y), "probability": (P, T), "logits": (X * 3, T),
        "classes": (LOGITS, np.array([0, 3, 1, 1, 2])),
    }[kind]  # fmt: skip
    kw_ours = {k: lg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    kw_theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    loss_ours, loss_theirs = getattr(lg.nn, name)(**kw_ours), getattr(torch.nn, name)(**kw_theirs)
    assert list(loss_ours.state_dict()) == list(loss_theirs.state_dict())
    x_ours, x_theirs = both(x, True)
    t_ours, t_theirs = both(target, False)
    out_ours, out_theirs = loss_ours(x_ours, t_ours), loss_theirs(x_theirs, t_theirs)
    assert_close(out_ours, out_theirs)
    out_ours.sum().backward()
    out_theirs.sum().backward()
    assert_close(x_ours.grad, x_theirs.grad)


def test_loss_module_weight_follows_double():
    loss = lg.nn.CrossEntropyLoss(weight=lg.ones(3))
    loss.double()
    assert loss.weight.dtype == lg.float64


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_class_index_losses_record_one_nll_node_as_pytorch(loss, reduction):
    x = RNG.standard_normal((4, 3))
    target = np.array([2, 0, 1, 1])
    outs = []
    for m, f in ((lg, F), (torch, TF)):
        inp = m.tensor(x, requires_grad=True)
        weight = m.tensor([0.5, 1.0, 2.0], dtype=m.float64)
        first = inp.log_softmax(1) if loss == "nll_loss" else inp
        out = getattr(f, loss)(first, m.tensor(target), reduction=reduction, weight=weight)
        node = out.grad_fn
        assert node.name() == "NllLossBackward0"
        assert node.next_functions[0][0].name() == "LogSoftmaxBackward0"
        assert node._saved_reduction == {"none": 0, "mean": 1, "sum": 2}[reduction]
        assert node._saved_target.tolist() == target.tolist()
        assert node._saved_weight.tolist() == [0.5, 1.0, 2.0]
        outs.append(out)
    assert_close(*outs)


@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_class_weights_of_another_dtype_raise_as_in_pytorch(loss):
    for m, f in ((lg, F), (torch, TF)):
        x = m.zeros(2, 3, dtype=m.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
            getattr(f, loss)(x, m.tensor([0, 2]), weight=m.tensor([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_with_logits_records_one_node_as_pytorch(reduction, weighted):
    outs = []
    for m, f in ((lg, F), (torch, TF)):
        x, y = m.tensor(X, requires_grad=True), m.tensor(P, requires_grad=True)
        kwargs = {"weight": m.tensor(W), "pos_weight": m.tensor(CLASS_W)} if weighted else {}
        out = f.binary_cross_entropy_with_logits(x, y, reduction=reduction, **kwargs)
        node = out.grad_fn
        assert node.name() == "BinaryCrossEntropyWithLogitsBackward0"
        assert [type(n).__name__ for n, _ in node.next_functions] == ["AccumulateGrad"] * 2
        assert node._saved_reduction == {"none": 0, "mean": 1, "sum": 2}[reduction]
        assert (node._saved_weight is None) is not weighted
        outs.append((out, lg.autograd.grad if m is lg else torch.autograd.grad, x, y))
    (ours, grad_ours, *leaves_ours), (theirs, grad_theirs, *leaves_theirs) = outs
    assert_close(ours, theirs)
    for a, b in zip(grad_ours(ours.sum(), leaves_ours), grad_theirs(theirs.sum(), leaves_theirs)):
        assert_close(a, b)


@pytest.mark.parametrize("name", ["weight", "pos_weight"])
def test_bce_with_logits_refuses_weights_that_require_grad_as_pytorch(name):
    for m, f in ((lg, F), (torch, TF)):
        weight = m.ones(3, dtype=m.float64, requires_grad=True)
        with pytest.raises(
            RuntimeError, match=f"not differentiable with respect to argument '{name}'"
        ):
            f.binary_cross_entropy_with_logits(m.tensor(X), m.tensor(P), **{name: weight})


def test_bce_records_one_node_and_pytorchs_gradients_at_saturated_probabilities():
    p = np.array([0.0, 1.0, 0.3, 1e-50, 1.0 - 1e-16])
    t = np.array([1.0, 0.0, 0.6, 1.0, 0.5])
    grads = []
    for m, f in ((lg, F), (torch, TF)):
        x, y = m.tensor(p, requires_grad=True), m.tensor(t, requires_grad=True)
        out = f.binary_cross_entropy(x, y, reduction="sum", weight=m.tensor(t + 1))
        assert out.grad_fn.name() == "BinaryCrossEntropyBackward0"
        assert out.grad_fn._saved_weight.tolist() == (t + 1).tolist()
        # d/dx: (x - y) / max((1 - x) x, 1e-12), so +-1e12 w at 0 and 1; d/dy: -logit(x) w
        grads.append([g.numpy() for g in (lg if m is lg else torch).autograd.grad(out, (x, y))])
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_bce_refuses_a_weight_that_requires_grad_as_pytorch():
    for m, f in ((lg, F), (torch, TF)):
        weight = m.ones(4, 3, dtype=m.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            f.binary_cross_entropy(m.tensor(P), m.tensor(T), weight=weight)


def test_class_probabilities_take_weights_of_another_dtype_as_pytorch():
    probs = RNG.dirichlet(np.ones(3), size=2)
    outs = []
    for m, f in ((lg, F), (torch, TF)):
        x = m.tensor(X[:2], requires_grad=True)
        outs.append(f.cross_entropy(x, m.tensor(probs), weight=m.tensor([1.0, 2.0, 3.0])))
    assert str(outs[0].dtype) == str(outs[1].dtype) == "torch.float64"
    assert_close(*outs)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("integer_side", ["input", "target"])
def test_an_integer_operand_beside_a_floating_one_as_pytorch(name, integer_side):
    results = []
    for m, f in ((lg, F), (torch, TF)):
        ints, floats = m.tensor([1, 2]), m.tensor([1.0, 3.0])
        pair = (ints, floats) if integer_side == "input" else (floats, ints)
        try:
            results.append(("value", getattr(f, name)(*pair).item()))
        except RuntimeError:  # huber computes in the input's dtype: an integer input refuses
            results.append(("RuntimeError", None))
    assert results[0] == results[1]


def test_bce_refuses_a_weight_larger_than_the_input_as_pytorch():
    for m, f in ((lg, F), (torch, TF)):
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            f.binary_cross_entropy(
                m.tensor([0.2, 0.7]), m.tensor([1.0, 0.0]), weight=m.tensor([[2.0], [3.0]])
            )


@pytest.mark.parametrize(
    "values, target, words",
    [
        ([0.3, 1.5], [0.2, 0.4], "all elements of input should be between 0 and 1"),
        ([0.3, float("nan")], [0.2, 0.4], "all elements of input should be between 0 and 1"),
        ([0.3, 0.6], [0.5, 1.5], "all elements of target should be between 0 and 1"),
        ([0.3, 0.6], [-0.1, 0.5], "all elements of target should be between 0 and 1"),
        ([0.3, 0.6], [0.5, float("nan")], "all elements of target should be between 0 and 1"),
    ],
)
def test_binary_cross_entropy_refuses_values_outside_zero_one_as_torch(values, target, words):
    for m in (lg, torch):
        with pytest.raises(RuntimeError, match=words):
            m.nn.functional.binary_cross_entropy(m.tensor(values), m.tensor(target))


def test_soft_margin_loss_refuses_a_target_that_requires_grad_as_torch():
    for m in (lg, torch):
        x = m.tensor([0.3, -0.6], requires_grad=True)
        target = m.tensor([1.0, -1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            m.nn.functional.soft_margin_loss(x, target)


def _graph_and_gradient(m, inp, out):
    (grad,) = m.autograd.grad(out.sum(), inp)
    return names_to_leaves(out.grad_fn), to_numpy(out), to_numpy(grad)


def _assert_same(ours, theirs):
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 2, 2), (2, 3, 2, 1, 2), (2, 3, 0)])
def test_class_losses_over_more_dims_record_pytorchs_nll_loss2d(shape, reduction):
    """PyTorch's nll_loss_nd: nll_loss2d on 4-D, other ranks viewed as 4-D and back."""
    x = RNG.standard_normal(shape)
    target = RNG.integers(0, 3, (shape[0], *shape[2:]))
    if target.size:
        target.flat[0] = -100
    results = []
    for m in (lg, torch):
        inp = m.tensor(x, requires_grad=True)
        out = m.nn.functional.cross_entropy(inp, m.tensor(target), reduction=reduction)
        results.append(_graph_and_gradient(m, inp, out))
    _assert_same(*results)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_label_smoothing_records_pytorchs_scalar_products(reduction, weighted):
    x = RNG.standard_normal((4, 3))
    target = np.array([0, 2, 1, -100])
    results = []
    for m in (lg, torch):
        inp = m.tensor(x, requires_grad=True)
        weight = m.tensor([1.0, 2.0, 3.0], dtype=m.float64) if weighted else None
        out = m.nn.functional.cross_entropy(
            inp, m.tensor(target), weight=weight, label_smoothing=0.2, reduction=reduction
        )
        results.append(_graph_and_gradient(m, inp, out))
    _assert_same(*results)
