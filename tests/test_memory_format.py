"""Copies laid out as a memory format asks: their strides are PyTorch's."""

import itertools

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._memory_format import contiguous_format, copy_in_format, empty_in_format

SHAPES = [(3, 1, 4), (1, 5), (2, 3), (4, 1), (1, 1), (2, 1, 1, 3)]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_row_major_copy_has_the_strides_of_the_general_layout(shape):
    # contiguous()'s copy takes NumPy's row-major copy; its strides must be those PyTorch
    # gives (the strided layout built from the format), size-1 and size-0 dims included.
    values = np.arange(float(np.prod(shape))).reshape(shape)
    for order in itertools.permutations(range(len(shape))):
        x = values.transpose(order)
        copy = copy_in_format(x, contiguous_format, "contiguous")
        laid_out = empty_in_format(x, contiguous_format, x.dtype, "contiguous")
        laid_out[...] = x
        assert copy.strides == laid_out.strides
        np.testing.assert_array_equal(copy, x)


@pytest.mark.parametrize("shape", SHAPES)
def test_contiguous_and_clone_strides_match_pytorch(shape):
    torch = pytest.importorskip("torch")
    values = np.arange(float(np.prod(shape))).reshape(shape)
    for order in itertools.permutations(range(len(shape))):
        ours = lg.tensor(values).permute(order)
        theirs = torch.tensor(values).permute(order)
        assert ours.contiguous().stride() == theirs.contiguous().stride()
        fmt = lg.contiguous_format
        assert (
            ours.clone(memory_format=fmt).stride()
            == theirs.clone(memory_format=torch.contiguous_format).stride()
        )


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 3), (0, 1, 0)])
@pytest.mark.parametrize("make", ["zeros", "empty", "ones"])
def test_a_new_empty_tensor_has_pytorchs_row_major_strides(shape, make):
    # (NumPy 2 gives a new empty array zero strides; views of empty tensors are not
    # followed: their strides read row-major too.)
    torch = pytest.importorskip("torch")
    assert getattr(lg, make)(*shape).stride() == getattr(torch, make)(*shape).stride()
    assert lg.zeros(*shape).contiguous().stride() == torch.zeros(*shape).contiguous().stride()


def test_a_dtype_conversion_of_an_expanded_tensor_is_row_major():
    # PyTorch's preserve_format: an overlapping input's copy is contiguous (NumPy's order
    # "K" laid it out column-major, so a view of it failed).
    x = lg.arange(24.0).reshape(4, 6)[:1].expand(4, 6)
    for converted in (x.double(), x.to(lg.float64), x.long(), lg.ones(3, 1).expand(3, 4).long()):
        assert converted.is_contiguous()
    assert x.double().view(-1).shape == (24,)
    assert lg.arange(24.0).reshape(4, 6).t().double().stride() == (1, 6)  # dense: kept


def test_masked_fill_is_row_major_and_nan_to_num_keeps_a_dense_layout():
    b = lg.arange(24.0).reshape(4, 6)
    for x in (b.t(), b[:, ::2], b.reshape(2, 2, 6).permute(2, 0, 1)):
        assert x.masked_fill(x > 3, 0.0).is_contiguous()  # PyTorch fills a row-major clone
        assert x.masked_fill(x > 3, lg.tensor(0.0)).view(-1).shape == (x.numel(),)
    assert lg.nan_to_num(b.t()).stride() == (1, 6)  # dense: kept, as PyTorch's
    assert lg.nan_to_num(b[:1].expand(4, 6)).view(-1).shape == (24,)  # expanded: row-major


def test_running_ops_and_softmax_of_a_transposed_input_are_row_major():
    b = lg.arange(24.0).reshape(4, 6) / 10
    for x in (b.t(), b.reshape(2, 2, 6).permute(2, 0, 1), b[:1].expand(4, 6)):
        for out in (
            x.cumsum(0),
            x.cumprod(0),
            x.logcumsumexp(0),
            x.cummax(0).values,
            x.cummin(0).indices,
            x.softmax(0),
            x.log_softmax(-1),
        ):
            assert out.is_contiguous() and out.view(-1).shape == (x.numel(),)
    y = b.t().detach().requires_grad_()
    y.cumsum(0).softmax(1).sum().backward()
    assert y.grad.shape == (6, 4)


def test_cat_is_row_major_but_for_channels_last_and_repeat_interleave_views():
    b = lg.arange(24.0).reshape(4, 6)
    p = b.reshape(2, 2, 6).permute(2, 0, 1)
    for joined in (lg.cat([b.t(), b.t()]), lg.cat([p, p], 1), lg.cat([b.t(), lg.zeros(6, 4)])):
        assert joined.is_contiguous() and joined.view(-1).shape == (joined.numel(),)
    x = lg.rand(2, 3, 4, 5).contiguous(memory_format=lg.channels_last)
    assert lg.cat([x, x], 1).is_contiguous(memory_format=lg.channels_last)
    # repeat_interleave of a transposed input: a row-major clone, viewed (it failed)
    r = b.t().repeat_interleave(2, 0)
    assert r.shape == (12, 4) and r[:2].tolist() == [[0.0, 6.0, 12.0, 18.0]] * 2
    assert p.repeat_interleave(3, -1).shape == (6, 2, 6)


def test_gather_and_topk_are_row_major():
    b = lg.arange(24.0).reshape(4, 6)
    for x in (b.t(), b.reshape(2, 2, 6).permute(2, 0, 1), b[:1].expand(4, 6)):
        gathered = x.gather(0, lg.zeros_like(x, dtype=lg.int64))
        top = x.topk(2, 0)
        for out in (gathered, top.values, top.indices):
            assert out.is_contiguous() and out.view(-1).shape == (out.numel(),)
    assert b.t().gather(0, lg.zeros(1, 4, dtype=lg.int64)).tolist() == [[0.0, 6.0, 12.0, 18.0]]


def test_layer_norm_and_renorm_of_a_transposed_input_are_row_major():
    b = lg.arange(24.0).reshape(4, 6) / 10
    for x in (b.t(), b.reshape(2, 2, 6).permute(2, 0, 1)):
        normed = lg.nn.functional.layer_norm(x, x.shape[-1:])
        renormed = x.renorm(2, 0, 1.0)
        for out in (normed, renormed):
            assert out.is_contiguous() and out.view(-1).shape == (x.numel(),)
    expected = lg.nn.functional.layer_norm(b.t().contiguous(), (4,))
    assert (lg.nn.functional.layer_norm(b.t(), (4,)) - expected).abs().max().item() == 0.0
