"""one_hot, gumbel_softmax, pdist, fold/unfold, grid_sample/affine_grid, local_response_norm,
channel_shuffle, scaled_dot_product_attention and the in-place activations against PyTorch."""

import itertools
import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare

RNG = np.random.default_rng(3)
X4 = RNG.standard_normal((2, 4, 5, 5))


def _both(name, *args, **kwargs):
    """``fn(m, *tensors)`` calling ``m.nn.functional.<name>`` with the extra arguments."""
    return lambda m, *tensors: getattr(m.nn.functional, name)(*tensors, *args, **kwargs)


@pytest.fixture
def pt():
    """PyTorch itself, the oracle for numerical comparisons."""
    return pytest.importorskip("torch")


FOLD_CASES = [
    ("unfold", [X4], ((2, 3),), {"padding": 1, "stride": 2, "dilation": (1, 2)}),
    ("unfold", [X4[0]], (2,), {}),
    ("fold", [RNG.standard_normal((2, 12, 16))], ((5, 5), 2), {}),
    ("fold", [RNG.standard_normal((2, 24, 8))], ((6, 5), (2, 3)),
     {"padding": 1, "stride": 2, "dilation": (1, 2)}),
    ("fold", [RNG.standard_normal((4, 4))], ((3, 3), 2), {}),
]  # fmt: skip


@pytest.mark.parametrize("name, arrays, args, kwargs", FOLD_CASES)
def test_fold_and_unfold_match_pytorch_to_second_order(pt, name, arrays, args, kwargs):
    compare(_both(name, *args, **kwargs), arrays, torch=pt)


def test_fold_rejects_a_block_count_that_does_not_fit(torch):
    with pytest.raises(RuntimeError, match="sliding blocks"):
        torch.nn.functional.fold(torch.zeros(1, 4, 3), (3, 3), 2)
    with pytest.raises(RuntimeError, match="divisible by the product of kernel_size"):
        torch.nn.functional.fold(torch.zeros(1, 5, 4), (3, 3), 2)


@pytest.mark.parametrize(
    "mode, padding_mode, align_corners",
    list(
        itertools.product(["bilinear", "bicubic"], ["zeros", "border", "reflection"], [True, False])
    ),
)
def test_grid_sample_2d_matches_pytorch(pt, mode, padding_mode, align_corners):
    grid = RNG.uniform(-1.3, 1.3, (2, 3, 6, 2))
    fn = _both("grid_sample", mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    # bicubic sums 16 taps in another order than PyTorch: a looser float64 tolerance
    compare(fn, [X4, grid], torch=pt, kind="direct" if mode == "bilinear" else "iterative")


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_3d_and_nearest_match_pytorch(pt, padding_mode):
    x, grid = RNG.standard_normal((2, 2, 3, 4, 5)), RNG.uniform(-1.2, 1.2, (2, 2, 3, 4, 3))
    compare(_both("grid_sample", padding_mode=padding_mode, align_corners=False), [x, grid],
            torch=pt)  # fmt: skip
    grid2 = RNG.uniform(-1.2, 1.2, (2, 3, 6, 2))
    nearest = _both("grid_sample", mode="nearest", padding_mode=padding_mode, align_corners=True)
    compare(nearest, [X4, grid2], torch=pt, second=False)


@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_matches_pytorch(pt, align_corners):
    compare(_both("affine_grid", (2, 3, 4, 5), align_corners=align_corners),
            [RNG.standard_normal((2, 2, 3))], torch=pt)  # fmt: skip
    compare(_both("affine_grid", (2, 3, 1, 4, 5), align_corners=align_corners),
            [RNG.standard_normal((2, 3, 4))], torch=pt)  # fmt: skip


def test_grid_sample_errors_and_default_warning(torch):
    F = torch.nn.functional
    x, grid = torch.zeros(1, 1, 3, 3), torch.zeros(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="align_corners=False"):
        F.grid_sample(x, grid)
    with pytest.raises(ValueError, match="expected mode"):
        F.grid_sample(x, grid, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        F.grid_sample(x, grid, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError, match="same batch size"):
        F.grid_sample(x, torch.zeros(2, 2, 2, 2), align_corners=False)
    with pytest.raises(NotImplementedError, match="4D and 5D"):
        F.affine_grid(torch.zeros(1, 2, 3), (1, 3, 4), align_corners=False)


def test_local_response_norm_and_channel_shuffle_match_pytorch(pt):
    compare(_both("local_response_norm", 3, alpha=0.1), [X4], torch=pt)
    compare(_both("local_response_norm", 4, alpha=0.1, k=2.0), [X4[:, :, :, 0]], torch=pt)
    compare(_both("local_response_norm", 2, alpha=0.2, beta=0.5),
            [RNG.standard_normal((1, 3, 2, 2, 2))], torch=pt)  # fmt: skip
    compare(_both("channel_shuffle", 2), [X4], torch=pt)


@pytest.mark.parametrize("p", [2.0, 1.0, 1.5, float("inf")])
def test_pdist_matches_pytorch(pt, p):
    # PyTorch's pdist backward has no derivative of its own: first order only
    compare(_both("pdist", p), [X4[0, 0]], torch=pt, second=False)


def test_one_hot_values_and_errors(torch):
    F = torch.nn.functional
    assert F.one_hot(torch.tensor([[1, 0], [2, 2]])).tolist() == [
        [[0, 1, 0], [1, 0, 0]], [[0, 0, 1], [0, 0, 1]]]  # fmt: skip
    assert F.one_hot(torch.tensor([1]), 4).dtype == torch.int64
    assert tuple(F.one_hot(torch.tensor([], dtype=torch.int64), 3).shape) == (0, 3)
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(torch.tensor([1.0]), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(torch.tensor([-1]), 3)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(torch.tensor([3]), 3)


def test_gumbel_softmax_samples_a_distribution_and_hard_is_straight_through():
    lg.manual_seed(0)
    logits = lg.tensor([[0.0, 1.0, 2.0]] * 4000, dtype=lg.float64, requires_grad=True)
    soft = lg.nn.functional.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    hard = lg.nn.functional.gumbel_softmax(logits, hard=True)
    counts = hard.detach().numpy().mean(0)
    # argmax of logits + Gumbel noise is a draw from softmax(logits)
    np.testing.assert_allclose(counts, np.exp([0, 1, 2]) / np.exp([0, 1, 2]).sum(), atol=0.03)
    (hard * lg.tensor([1.0, 2.0, 3.0], dtype=lg.float64)).sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0


SDPA_Q, SDPA_K, SDPA_V = (
    RNG.standard_normal(s) for s in ((2, 4, 3, 6), (2, 4, 5, 6), (2, 4, 5, 7))
)
SDPA_BOOL = np.triu(np.ones((3, 5), bool), 3) == 0
SDPA_BOOL[1] = False  # a query that may attend to nothing gives zeros


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"is_causal": True}, {"scale": 0.3}, {"attn_mask": SDPA_BOOL},
     {"attn_mask": RNG.standard_normal((2, 1, 3, 5))}],
)  # fmt: skip
def test_scaled_dot_product_attention_matches_pytorch(pt, kwargs):
    mask = kwargs.pop("attn_mask", None)

    def fn(m, q, k, v):
        extra = {} if mask is None else {"attn_mask": m.tensor(mask)}
        return m.nn.functional.scaled_dot_product_attention(q, k, v, **extra, **kwargs)

    compare(fn, [SDPA_Q, SDPA_K, SDPA_V], torch=pt)


def test_scaled_dot_product_attention_groups_query_heads(pt):
    k, v = SDPA_K[:, :2], SDPA_V[:, :2]
    compare(_both("scaled_dot_product_attention", enable_gqa=True), [SDPA_Q, k, v], torch=pt)


def test_scaled_dot_product_attention_refuses_mask_with_is_causal(torch):
    q = torch.zeros(1, 2, 3)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        torch.nn.functional.scaled_dot_product_attention(
            q, q, q, attn_mask=torch.ones(2, 2, dtype=torch.bool), is_causal=True
        )


INPLACE = [("relu_", ()), ("elu_", (0.7,)), ("celu_", (1.3,)), ("selu_", ()),
           ("leaky_relu_", (0.2,)), ("hardtanh_", (-0.5, 0.5)), ("threshold_", (0.1, -2.0)),
           ("rrelu_", ())]  # fmt: skip


@pytest.mark.parametrize("name, args", INPLACE)
def test_inplace_activation_writes_into_its_input(torch, name, args):
    x = torch.tensor([-1.5, -0.2, 0.3, 2.0], dtype=torch.float64, requires_grad=True)
    y = x * 1
    out = getattr(torch.nn.functional, name)(y, *args)
    assert out is y and y._version == 1
    expected = getattr(torch.nn.functional, name[:-1])(x, *args)
    np.testing.assert_allclose(y.detach().numpy(), expected.detach().numpy(), rtol=1e-15)
    y.sum().backward()
    g = torch.autograd.grad(expected.sum(), x)[0]
    np.testing.assert_allclose(x.grad.numpy(), g.numpy(), rtol=1e-7)  # celu_: PyTorch rounds


def test_inplace_activation_refuses_a_leaf_that_requires_grad(torch):
    with pytest.raises(RuntimeError, match="in-place operation"):
        torch.nn.functional.relu_(torch.ones(2, requires_grad=True))


def test_functional_breadth_names_exist():
    with warnings.catch_warnings():
        for name in ("fold", "unfold", "one_hot", "pdist", "grid_sample", "affine_grid"):
            assert callable(getattr(lg.nn.functional, name))


@pytest.mark.parametrize("pad, taps", [(0, 2), (1, 3)])
def test_conv_tbc_matches_pytorch_to_second_order(pt, pad, taps):
    arrays = [RNG.standard_normal((6, 2, 3)), RNG.standard_normal((taps, 3, 4)),
              RNG.standard_normal(4)]  # fmt: skip
    compare(lambda m, x, w, b: m.nn.functional.conv_tbc(x, w, b, pad), arrays, torch=pt)


def test_scaled_dot_product_attention_dropout_is_unbiased():
    lg.manual_seed(3)
    q, k, v = (lg.tensor(a[:1, :1]) for a in (SDPA_Q, SDPA_K, SDPA_V))
    sdpa = lg.nn.functional.scaled_dot_product_attention
    exact = sdpa(q, k, v).numpy()
    many = sdpa(q.expand(4000, 1, 3, 6), k, v, dropout_p=0.3).numpy()
    assert not np.allclose(many[0], exact[0])  # the draws differ from the exact attention
    np.testing.assert_allclose(many.mean(0), exact[0], atol=0.08)
    assert np.all(sdpa(q, k, v, dropout_p=1.0).numpy() == 0)


def test_sdpa_kernel_selection_as_on_a_cpu_build(torch):
    attention = torch.nn.attention
    q = torch.ones(1, 2, 3, 4)
    assert int(attention.SDPBackend.MATH) == 0 and int(attention.SDPBackend.ERROR) == -1
    for backend in (attention.SDPBackend.MATH, attention.SDPBackend.FLASH_ATTENTION):
        with attention.sdpa_kernel(backend):
            torch.nn.functional.scaled_dot_product_attention(q, q, q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch explains why each kernel was refused
        with attention.sdpa_kernel([attention.SDPBackend.EFFICIENT_ATTENTION]):
            with pytest.raises(RuntimeError, match="No viable backend"):
                torch.nn.functional.scaled_dot_product_attention(q, q, q)
    torch.nn.functional.scaled_dot_product_attention(q, q, q)  # restored on exit
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with attention.sdpa_kernel("math"):
            pass
