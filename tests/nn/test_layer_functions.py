"""Embedding, Bilinear, Unflatten, padding and the distances agree with PyTorch's: values,
gradients to second order (float64), reprs, state_dict keys and error types."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn.functional as F
from tests._graphs import names_to_leaves

from ._compare import assert_close, copy_weights, pair, run_both

RNG = np.random.default_rng(5)
INDICES = np.array([[0, 2, 2, 5], [5, 2, 1, 3]])


def _embedding_pair(**options):
    ours = lg.nn.Embedding(6, 3, dtype=lg.float64, **options)
    theirs = torch.nn.Embedding(6, 3, dtype=torch.float64, **options)
    copy_weights(ours, theirs)
    return ours, theirs


def _weight_grads_to_second_order(out_ours, out_theirs, w_ours, w_theirs, second_order=True):
    """d(sum(out^3 * seed))/dw and the gradient of its square norm agree."""
    seed_ours, seed_theirs = pair(RNG.standard_normal(tuple(out_theirs.shape)))
    (g_ours,) = lg.autograd.grad(
        (out_ours**3 * seed_ours).sum(), w_ours, create_graph=True, retain_graph=True
    )
    (g_theirs,) = torch.autograd.grad(
        (out_theirs**3 * seed_theirs).sum(), w_theirs, create_graph=True, retain_graph=True
    )
    assert_close(g_ours, g_theirs)
    if not second_order:
        return
    assert_close(
        lg.autograd.grad((g_ours * g_ours).sum(), w_ours)[0],
        torch.autograd.grad((g_theirs * g_theirs).sum(), w_theirs)[0],
    )


@pytest.mark.parametrize(
    "options",
    [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
     {"padding_idx": 5, "scale_grad_by_freq": True}, {"max_norm": 1.0},
     {"max_norm": 0.5, "norm_type": 1.0}, {"sparse": True}],
    ids=str,
)  # fmt: skip
def test_embedding_matches_pytorch(options):
    ours, theirs = _embedding_pair(**options)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if "padding_idx" in options:
        assert ours.weight[ours.padding_idx].tolist() == [0.0, 0.0, 0.0]
    out_ours, out_theirs = ours(lg.tensor(INDICES)), theirs(torch.tensor(INDICES))
    assert_close(out_ours, out_theirs)
    assert_close(ours.weight, theirs.weight)  # max_norm renormalises in place
    # PyTorch's sparse gradients have no double backward.
    _weight_grads_to_second_order(
        out_ours, out_theirs, ours.weight, theirs.weight, second_order="sparse" not in options
    )


def test_embedding_from_pretrained_shares_the_tensor_and_freezes_it():
    table = lg.randn(4, 2)
    layer = lg.nn.Embedding.from_pretrained(table)
    assert not layer.weight.requires_grad
    assert lg.nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    assert layer(lg.tensor([3])).tolist() == [table[3].tolist()]
    assert repr(layer) == repr(torch.nn.Embedding.from_pretrained(torch.randn(4, 2)))
    with pytest.raises(AssertionError):
        lg.nn.Embedding.from_pretrained(lg.randn(4))


def test_embedding_errors_have_pytorchs_types():
    with pytest.raises(AssertionError):
        torch.nn.Embedding(3, 2, padding_idx=3)
    with pytest.raises(AssertionError):
        lg.nn.Embedding(3, 2, padding_idx=3)
    with pytest.raises(IndexError):
        torch.nn.Embedding(3, 2)(torch.tensor([3]))
    with pytest.raises(IndexError):
        lg.nn.Embedding(3, 2)(lg.tensor([3]))
    with pytest.raises(RuntimeError):
        torch.nn.Embedding(3, 2)(torch.tensor([1.0]))
    with pytest.raises(RuntimeError):
        lg.nn.Embedding(3, 2)(lg.tensor([1.0]))


@pytest.mark.parametrize("batch", [(4,), (2, 3), ()])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_matches_pytorch_to_second_order(batch, bias):
    ours = lg.nn.Bilinear(3, 2, 4, bias=bias, dtype=lg.float64)
    theirs = torch.nn.Bilinear(3, 2, 4, bias=bias, dtype=torch.float64)
    copy_weights(ours, theirs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    a_ours, a_theirs = pair(RNG.standard_normal((*batch, 3)), requires_grad=True)
    b_ours, b_theirs = pair(RNG.standard_normal((*batch, 2)), requires_grad=True)
    for wrt_ours, wrt_theirs in [
        (a_ours, a_theirs),
        (b_ours, b_theirs),
        (ours.weight, theirs.weight),
    ]:
        out_ours, out_theirs = ours(a_ours, b_ours), theirs(a_theirs, b_theirs)
        assert_close(out_ours, out_theirs)
        _weight_grads_to_second_order(out_ours, out_theirs, wrt_ours, wrt_theirs)


def test_bilinear_init_bound_is_one_over_sqrt_in1_features():
    weight = lg.nn.Bilinear(100, 3, 50).weight.detach().numpy()
    assert np.abs(weight).max() <= 0.1
    assert np.abs(weight).max() > 0.09


def test_bilinear_with_a_wrong_input_width_raises_runtime_error_as_pytorch():
    with pytest.raises(RuntimeError):
        torch.nn.Bilinear(3, 2, 4)(torch.ones(5, 2), torch.ones(5, 2))
    with pytest.raises(RuntimeError, match="input1"):
        lg.nn.Bilinear(3, 2, 4)(lg.ones(5, 2), lg.ones(5, 2))


@pytest.mark.parametrize(("dim", "sizes"), [(1, (2, 3)), (-1, [5, 1]), (0, (2, -1))])
def test_unflatten_matches_pytorch(dim, sizes):
    ours, theirs = lg.nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
    assert repr(ours) == repr(theirs)
    run_both(ours, theirs, RNG.standard_normal((4, 6, 5)), RNG, second_order=False)


def test_unflatten_rejects_sizes_that_are_not_ints_with_type_error_as_pytorch():
    for bad in [(2, 3.0), 6]:
        with pytest.raises(TypeError):
            torch.nn.Unflatten(1, bad)
        with pytest.raises(TypeError):
            lg.nn.Unflatten(1, bad)


PADS = [
    ((1, 2), "constant", None), ((1, 2), "constant", 3.5), ((-1, 2, 0, 3), "constant", None),
    ((2, -1, 1, 1, 1, 0), "constant", -1.0), ((0, 0), "constant", None),
    ((2, 1), "reflect", None), ((2, 1, 1, 3), "reflect", None), ((-1, 2, 3, -2), "reflect", None),
    ((3, 4), "replicate", None), ((-1, 2, 3, -2), "replicate", None),
    ((2, 2), "circular", None), ((-2, 3), "circular", None), ((1, 2, 2, 1), "circular", None),
]  # fmt: skip


@pytest.mark.parametrize(("amounts", "mode", "value"), PADS, ids=str)
def test_pad_matches_pytorch(amounts, mode, value):
    shape = (2, 3, 4, 5) if len(amounts) > 2 or mode == "constant" else (2, 3, 5)
    run_both(
        lambda t: F.pad(t, amounts, mode, value),
        lambda t: TF.pad(t, amounts, mode, value),
        RNG.standard_normal(shape),
        RNG,
    )


@pytest.mark.parametrize(
    ("shape", "amounts", "mode"),
    [((2, 3), (1, 2, 3), "constant"), ((2, 3), (1, 1, 1, 1, 1, 1), "constant"),
     ((2, 3, 4), (5, 0), "reflect"), ((2, 3, 4), (5, 0), "circular"),
     ((4,), (1, 1), "reflect"), ((2, 3, 4, 5), (1, 1), "replicate")],
)  # fmt: skip
def test_pad_errors_have_pytorchs_types(shape, amounts, mode):
    with pytest.raises((RuntimeError, NotImplementedError)) as theirs:
        TF.pad(torch.ones(shape), amounts, mode)
    with pytest.raises(theirs.type):
        F.pad(lg.ones(shape), amounts, mode)


@pytest.mark.parametrize(
    ("shape1", "shape2", "dim"),
    [((4, 5), (4, 5), 1), ((4, 5), (1, 5), 1), ((3, 4, 2), (3, 4, 2), 0)],
)
def test_cosine_similarity_matches_pytorch(shape1, shape2, dim):
    ours, theirs = lg.nn.CosineSimilarity(dim), torch.nn.CosineSimilarity(dim)
    assert repr(ours) == repr(theirs)
    other_ours, other_theirs = pair(RNG.standard_normal(shape2))
    run_both(
        lambda t: ours(t, other_ours),
        lambda t: theirs(t, other_theirs),
        RNG.standard_normal(shape1),
        RNG,
    )


def test_cosine_similarity_of_a_zero_vector_follows_pytorchs_clamped_norm():
    x_ours, x_theirs = pair(np.zeros((1, 3)), requires_grad=True)
    y_ours, y_theirs = pair(np.array([[1.0, 2.0, 2.0]]))
    out_ours, out_theirs = (
        F.cosine_similarity(x_ours, y_ours),
        TF.cosine_similarity(x_theirs, y_theirs),
    )
    assert_close(out_ours, out_theirs)
    assert_close(
        lg.autograd.grad(out_ours.sum(), x_ours)[0],
        torch.autograd.grad(out_theirs.sum(), x_theirs)[0],
    )


@pytest.mark.parametrize("options", [{}, {"p": 1.0}, {"keepdim": True, "eps": 0.1}], ids=str)
def test_pairwise_distance_matches_pytorch(options):
    ours, theirs = lg.nn.PairwiseDistance(**options), torch.nn.PairwiseDistance(**options)
    assert repr(ours) == repr(theirs)
    other_ours, other_theirs = pair(RNG.standard_normal((4, 3)))
    run_both(
        lambda t: ours(t, other_ours),
        lambda t: theirs(t, other_theirs),
        RNG.standard_normal((4, 3)),
        RNG,
    )


_PAD_CASES = [
    ((2, 3, 5), (1, 2), "constant", None, "ConstantPadNdBackward0"),
    ((2, 3, 5), (1, -1, 0, 2), "constant", 2.5, "ConstantPadNdBackward0"),
    ((2, 3, 5), (0, 0), "constant", None, "ConstantPadNdBackward0"),
    ((2, 5), (2, 1), "reflect", None, "ReflectionPad1DBackward0"),
    ((2, 3, 5), (1, -1), "reflect", None, "ReflectionPad1DBackward0"),
    ((2, 3, 4, 5), (1, 2, 3, 0), "reflect", None, "ReflectionPad2DBackward0"),
    ((1, 2, 3, 4, 5), (1, 1, 2, 1, 1, 2), "reflect", None, "ReflectionPad3DBackward0"),
    ((2, 5), (2, 7), "replicate", None, "ReplicationPad1DBackward0"),
    ((2, 3, 4, 5), (1, 2, 3, 0), "replicate", None, "ReplicationPad2DBackward0"),
    ((1, 2, 3, 4, 5), (1, 1, 2, 1, 1, 2), "replicate", None, "ReplicationPad3DBackward0"),
    ((3, 5), (2, 1), "circular", None, "torch::autograd::CopySlices"),
    ((1, 3, 5), (2, -1), "circular", None, "torch::autograd::CopySlices"),
    ((1, 2, 3, 4, 5), (1, 2, 0, 1, 2, 1), "circular", None, "torch::autograd::CopySlices"),
]


def _pad_node_and_derivatives(lib, x_values, pad, mode, value):
    x = lib.tensor(x_values, requires_grad=True)
    kwargs = {} if value is None else {"value": value}
    y = lib.nn.functional.pad(x, pad, mode=mode, **kwargs)
    weights = lib.tensor(np.arange(float(y.numel())).reshape(tuple(y.shape)))
    # reflection and replication: the gradient of a sum is a function of x (zero derivative)
    (ones,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (g,) = lib.autograd.grad((y * y * weights).sum(), x, create_graph=True)
    (g2,) = lib.autograd.grad((g * g).sum(), x)
    return (y.grad_fn.name(), g.grad_fn.name(), ones.requires_grad), [y, g, g2]


@pytest.mark.parametrize(("shape", "pad", "mode", "value", "node"), _PAD_CASES)
def test_pad_is_one_node_as_in_pytorch(shape, pad, mode, value, node):
    x = RNG.standard_normal(shape)
    ours, values = _pad_node_and_derivatives(lg, x, pad, mode, value)
    theirs, expected = _pad_node_and_derivatives(torch, x, pad, mode, value)
    assert ours == theirs
    assert ours[0] == node
    for a, b in zip(values, expected, strict=True):
        assert_close(a, b)


@pytest.mark.parametrize(("shape", "pad"), [((2, 6), (2, 1)), ((1, 2, 3, 4), (1, -1, 0, 2))])
def test_circular_pad_records_pytorchs_graph_to_the_leaves(shape, pad):
    x = RNG.standard_normal(shape)
    ours = F.pad(lg.tensor(x, requires_grad=True), pad, mode="circular")
    theirs = TF.pad(torch.tensor(x, requires_grad=True), pad, mode="circular")
    assert names_to_leaves(ours.grad_fn) == names_to_leaves(theirs.grad_fn)
    assert_close(ours, theirs)


def test_pad_under_vmap_matches_pytorch():
    x = RNG.standard_normal((3, 2, 5))
    for mode in ("constant", "reflect", "replicate", "circular"):
        ours = lg.func.vmap(lambda v, m=mode: F.pad(v, (2, 1), mode=m))(lg.tensor(x))
        theirs = torch.func.vmap(lambda v, m=mode: TF.pad(v, (2, 1), mode=m))(torch.tensor(x))
        assert_close(ours, theirs)


def _embedding_node_and_derivatives(lib, weight, options):
    w = lib.tensor(weight, requires_grad=True)
    y = lib.nn.functional.embedding(lib.tensor(INDICES), w, **options)
    weights = lib.tensor(np.arange(24.0).reshape(2, 4, 3))
    (g,) = lib.autograd.grad((y * y * weights).sum(), w, create_graph=True)
    (g2,) = lib.autograd.grad((g * g).sum(), w)
    node = y.grad_fn
    names = (node.name(), g.grad_fn.name(), node._saved_scale_grad_by_freq, node._saved_sparse)
    return names, [y, g, g2]


@pytest.mark.parametrize(
    "options",
    [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True},
     {"padding_idx": -1, "scale_grad_by_freq": True}],
)  # fmt: skip
def test_embedding_is_one_node_as_in_pytorch(options):
    weight = RNG.standard_normal((6, 3))
    ours, values = _embedding_node_and_derivatives(lg, weight, options)
    theirs, expected = _embedding_node_and_derivatives(torch, weight, options)
    assert ours == theirs
    assert ours[:2] == ("EmbeddingBackward0", "EmbeddingDenseBackwardBackward0")
    for a, b in zip(values, expected, strict=True):
        assert_close(a, b)
