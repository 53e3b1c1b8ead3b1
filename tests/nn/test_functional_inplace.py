"""``inplace=True`` of nn.functional's activations and dropouts, and their modules' flag, as
PyTorch's: the input written and returned, its version bumped, the in-place op's node
recorded (what it saves), its gradients, and PyTorch's errors."""

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

VALUES = np.array([[-3.5, -1.0, -0.3, 0.05], [0.2, 0.7, 2.0, 4.0], [-0.6, 1.5, -2.2, 3.1]])

# name: (functional call, module) given the library (leafgrad or torch)
ACTIVATIONS = {
    "relu": (lambda m, x: m.nn.functional.relu(x, inplace=True), lambda m: m.nn.ReLU(True)),
    "relu6": (lambda m, x: m.nn.functional.relu6(x, inplace=True), lambda m: m.nn.ReLU6(True)),
    "leaky_relu": (
        lambda m, x: m.nn.functional.leaky_relu(x, 0.2, inplace=True),
        lambda m: m.nn.LeakyReLU(0.2, True),
    ),
    "elu": (lambda m, x: m.nn.functional.elu(x, 0.7, True), lambda m: m.nn.ELU(0.7, True)),
    "selu": (lambda m, x: m.nn.functional.selu(x, True), lambda m: m.nn.SELU(True)),
    "celu": (lambda m, x: m.nn.functional.celu(x, 1.3, True), lambda m: m.nn.CELU(1.3, True)),
    "rrelu": (
        lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.3, inplace=True),
        lambda m: m.nn.RReLU(0.1, 0.3, True).eval(),
    ),
    "hardtanh": (
        lambda m, x: m.nn.functional.hardtanh(x, -0.5, 1.5, inplace=True),
        lambda m: m.nn.Hardtanh(-0.5, 1.5, True),
    ),
    "threshold": (
        lambda m, x: m.nn.functional.threshold(x, 0.1, -2.0, inplace=True),
        lambda m: m.nn.Threshold(0.1, -2.0, True),
    ),
    "hardsigmoid": (
        lambda m, x: m.nn.functional.hardsigmoid(x, inplace=True),
        lambda m: m.nn.Hardsigmoid(True),
    ),
    "hardswish": (
        lambda m, x: m.nn.functional.hardswish(x, inplace=True),
        lambda m: m.nn.Hardswish(True),
    ),
    "silu": (lambda m, x: m.nn.functional.silu(x, inplace=True), lambda m: m.nn.SiLU(True)),
    "mish": (lambda m, x: m.nn.functional.mish(x, inplace=True), lambda m: m.nn.Mish(True)),
}

CALLS = [
    pytest.param(name, form, id=f"{name}-{form}")
    for name in ACTIVATIONS
    for form in ("functional", "module")
]


def _apply(m, name, form, x):
    functional, module = ACTIVATIONS[name]
    return functional(m, x) if form == "functional" else module(m)(x)


def _out_of_place(name, x):
    """leafgrad's out-of-place result: the in-place one's values, bit for bit."""
    functional, _ = ACTIVATIONS[name]
    copy = x.detach().clone()
    return functional(lg, copy)


def _run(m, name, form, values=VALUES):
    """In-place on a non-leaf: (result, input, version change, leaf, node, saved names)."""
    leaf = m.tensor(values, dtype=m.float64, requires_grad=True)
    x = leaf * 1.0
    before = x._version
    y = _apply(m, name, form, x)
    node = y.grad_fn
    saved = sorted(a for a in dir(node) if a.startswith("_saved_") and not a.startswith("_saved_t"))
    return y, x, x._version - before, leaf, node, saved


@pytest.mark.parametrize(("name", "form"), CALLS)
def test_inplace_writes_and_returns_the_input_recording_pytorchs_node(name, form):
    ours = _run(lg, name, form)
    theirs = _run(torch, name, form)
    y, x, bumped, leaf, node, saved = ours
    assert y is x
    assert bumped == theirs[2]
    assert type(node).__name__ == type(theirs[4]).__name__
    assert [type(f).__name__ for f, _ in node.next_functions] == [
        type(f).__name__ for f, _ in theirs[4].next_functions
    ]
    assert set(theirs[5]) <= set(saved)
    np.testing.assert_allclose(y.detach().numpy(), theirs[0].detach().numpy(), rtol=1e-15)
    np.testing.assert_array_equal(y.detach().numpy(), _out_of_place(name, lg.tensor(VALUES)))
    weights = np.linspace(-1.5, 2.0, VALUES.size).reshape(VALUES.shape)
    (y * lg.tensor(weights)).sum().backward()
    (theirs[0] * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), theirs[3].grad.numpy(), rtol=1e-15, atol=0)


@pytest.mark.parametrize(("name", "form"), CALLS)
def test_inplace_on_a_leaf_that_requires_grad_raises(name, form):
    leaf = lg.tensor(VALUES, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        _apply(lg, name, form, leaf)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        _apply(lg, name, form, leaf[0])
    assert leaf._version == 0


def test_inplace_relu_of_a_result_sigmoid_saved_fails_in_backward_as_pytorchs():
    for m in (lg, torch):
        leaf = m.tensor(VALUES, requires_grad=True)
        y = leaf.sigmoid()  # SigmoidBackward0 saves its result: y
        m.nn.functional.relu(y, inplace=True)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_inplace_rrelu_in_training_draws_pytorchs_slopes_and_saves_them():
    found = []
    for m in (lg, torch):
        m.manual_seed(3)
        leaf = m.tensor(VALUES, requires_grad=True)
        x = leaf * 1.0
        y = m.nn.functional.rrelu(x, 0.1, 0.3, training=True, inplace=True)
        assert y is x
        assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward1"
        noise = y.grad_fn._saved_noise.numpy()
        y.sum().backward()
        found.append((y.detach().numpy(), noise, leaf.grad.numpy()))
    for ours, theirs in zip(*found):
        np.testing.assert_allclose(ours, theirs, rtol=1e-15)


@pytest.mark.parametrize("slope", [-0.1, 0.0])
def test_inplace_leaky_relu_backward_refuses_a_negative_slope_as_pytorchs(slope):
    leaf = lg.tensor(VALUES, requires_grad=True)
    y = lg.nn.functional.leaky_relu(leaf * 1.0, slope, inplace=True)
    assert type(y.grad_fn).__name__ == "LeakyReluBackward1"
    if slope < 0:
        with pytest.raises(RuntimeError, match="negative slope"):
            y.sum().backward()
    else:
        y.sum().backward()
        np.testing.assert_array_equal(leaf.grad.numpy(), (VALUES > 0).astype(float))


def test_inplace_without_grad_writes_a_leaf_under_no_grad():
    leaf = lg.tensor(VALUES, requires_grad=True)
    with lg.no_grad():
        y = lg.nn.functional.hardtanh(leaf, inplace=True)
    assert y is leaf
    assert leaf._version == 1
    np.testing.assert_array_equal(leaf.detach().numpy(), np.clip(VALUES, -1, 1))


# name: (functional call given (library, x, training), module class name, input shape)
DROPOUTS = {
    "dropout": (lambda m, x, t: m.nn.functional.dropout(x, 0.3, t, True), "Dropout", (3, 4)),
    "alpha_dropout": (
        lambda m, x, t: m.nn.functional.alpha_dropout(x, 0.3, t, True),
        "AlphaDropout",
        (3, 4),
    ),
    "feature_alpha_dropout": (
        lambda m, x, t: m.nn.functional.feature_alpha_dropout(x, 0.3, t, True),
        "FeatureAlphaDropout",
        (2, 3, 4),
    ),
    "dropout1d": (lambda m, x, t: m.nn.functional.dropout1d(x, 0.3, t, True), "Dropout1d", (3, 4)),
    "dropout2d": (
        lambda m, x, t: m.nn.functional.dropout2d(x, 0.3, t, True),
        "Dropout2d",
        (2, 3, 4, 2),
    ),
    "dropout3d": (
        lambda m, x, t: m.nn.functional.dropout3d(x, 0.3, t, True),
        "Dropout3d",
        (3, 2, 2, 2),
    ),
    "dropout-p1": (lambda m, x, t: m.nn.functional.dropout(x, 1.0, t, True), "Dropout", (3, 4)),
}

DROPOUT_CALLS = [
    pytest.param(name, form, training, id=f"{name}-{form}-{'train' if training else 'eval'}")
    for name in DROPOUTS
    for form in ("functional", "module")
    for training in (True, False)
    if not (name == "dropout-p1" and form == "module")
    # outside training only the unbatched channel dropouts write (unsqueeze_, squeeze_)
    and (training or name in ("dropout1d", "dropout3d"))
]


def _drop(m, name, form, training, x):
    functional, module, _ = DROPOUTS[name]
    if form == "functional":
        return functional(m, x, training)
    layer = getattr(m.nn, module)(0.3, inplace=True)
    return layer.train(training)(x)


def _node_names(node, depth=3):
    names, level = [], [node]
    for _ in range(depth):
        level = [f for n in level if n is not None for f, _ in n.next_functions]
        names.append([type(n).__name__ for n in level])
    return [type(node).__name__, *names]


def _drop_run(m, name, form, training, seed=7):
    m.manual_seed(seed)
    values = np.linspace(-2.0, 2.5, int(np.prod(DROPOUTS[name][2]))).reshape(DROPOUTS[name][2])
    leaf = m.tensor(values, requires_grad=True)
    x = leaf * 1.0
    before = x._version
    y = _drop(m, name, form, training, x)
    return y, x, x._version - before, leaf


@pytest.mark.parametrize(("name", "form", "training"), DROPOUT_CALLS)
def test_inplace_dropout_writes_and_returns_the_input_recording_pytorchs_ops(name, form, training):
    y, x, bumped, leaf = _drop_run(lg, name, form, training)
    theirs = _drop_run(torch, name, form, training)
    # (PyTorch's AlphaDropout and FeatureAlphaDropout layers never pass their flag on)
    assert (y is x) == (theirs[0] is theirs[1])
    assert bumped == theirs[2]
    assert _node_names(y.grad_fn) == _node_names(theirs[0].grad_fn)
    # the same draws as the out-of-place form (PyTorch's differ: leafgrad's generator)
    lg.manual_seed(7)
    copy = lg.tensor(leaf.detach().numpy(), requires_grad=True)
    out_of_place = {
        "dropout": lambda x: lg.nn.functional.dropout(x, 0.3, training),
        "alpha_dropout": lambda x: lg.nn.functional.alpha_dropout(x, 0.3, training),
        "feature_alpha_dropout": lambda x: lg.nn.functional.feature_alpha_dropout(x, 0.3, training),
        "dropout1d": lambda x: lg.nn.functional.dropout1d(x, 0.3, training),
        "dropout2d": lambda x: lg.nn.functional.dropout2d(x, 0.3, training),
        "dropout3d": lambda x: lg.nn.functional.dropout3d(x, 0.3, training),
        "dropout-p1": lambda x: lg.nn.functional.dropout(x, 1.0, training),
    }[name]
    expected = out_of_place(copy * 1.0)
    np.testing.assert_array_equal(y.detach().numpy(), expected.detach().numpy())
    y.sum().backward()
    expected.sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), copy.grad.numpy())


@pytest.mark.parametrize(("name", "form", "training"), DROPOUT_CALLS)
def test_inplace_dropout_on_a_leaf_raises_where_pytorchs_does(name, form, training):
    shape = DROPOUTS[name][2]
    for m in (torch, lg):
        leaf = m.ones(shape, requires_grad=True)
        try:
            _drop(m, name, form, training, leaf)
            raised = None
        except RuntimeError as exc:
            raised = str(exc)
        if m is torch:
            theirs = raised
        else:
            assert (raised is None) == (theirs is None)
            if raised is not None:
                assert "a leaf Variable that requires grad" in raised
