"""The common calls of products, selections and conversions checked at once (matmul's 1-D
and 2-D floats, dot, mv, addmm, F.linear, clamp, masked_fill, where, .float(), item,
zeros_like): the same bits, nodes, saved tensors and errors as their general paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad as lg
from leafgrad.ops import _select

F = lg.nn.functional


def _pair(shape_a, shape_b, dtype="float64", requires_grad=False, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=shape_a).astype(dtype), rng.normal(size=shape_b).astype(dtype)
    return (
        a,
        b,
        lg.tensor(a, requires_grad=requires_grad),
        lg.tensor(b, requires_grad=requires_grad),
    )


def _bits(t) -> bytes:
    return t.detach().numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "shape_a, shape_b, node",
    [
        ((5, 4), (4, 3), "MmBackward0"),
        ((5, 4), (4,), "MvBackward0"),
        ((4,), (4,), "DotBackward0"),
        ((4,), (4, 3), "SqueezeBackward4"),
    ],
)
def test_matmul_of_floating_vectors_and_matrices_matches_pytorch(shape_a, shape_b, node, dtype):
    a, b, ta, tb = _pair(shape_a, shape_b, dtype, requires_grad=True)
    ours = ta @ tb
    theirs = torch.from_numpy(a) @ torch.from_numpy(b)
    assert type(ours.grad_fn).__name__ == node
    assert ours.dtype == getattr(lg, dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=1e-5)
    ours.sum().backward()
    assert ta.grad.shape == ta.shape and tb.grad.shape == tb.shape
    with lg.no_grad():
        assert _bits(ta @ tb) == _bits(ours)  # nothing recorded: the same product


@pytest.mark.parametrize(
    "shape_a, shape_b, message",
    [
        ((5, 4), (3,), r"size mismatch, got input \(5\), mat \(5x4\), vec \(3\)"),
        ((4,), (3,), "inconsistent tensor size"),
        ((4,), (3, 2), r"mat1 and mat2 shapes cannot be multiplied \(1x4 and 3x2\)"),
    ],
)
def test_matmul_of_vectors_that_do_not_fit_raises_pytorchs_words(shape_a, shape_b, message):
    _, _, ta, tb = _pair(shape_a, shape_b)
    with pytest.raises(RuntimeError, match=message):
        ta @ tb


def test_matmul_of_mixed_or_bool_dtypes_still_refuses():
    with pytest.raises(RuntimeError, match="expected both vectors to have same dtype"):
        lg.ones(3, dtype=lg.float64) @ lg.ones(3, dtype=lg.float32)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        lg.ones(2, 3, dtype=lg.float64) @ lg.ones(3, dtype=lg.float32)
    with pytest.raises(NotImplementedError, match=r"torch\.bool"):
        lg.ones(3, dtype=lg.bool) @ lg.ones(3, dtype=lg.bool)


def test_dot_and_mv_take_integers_and_refuse_bools_and_mismatches():
    v = lg.tensor([1, 2, 3])
    assert lg.dot(v, v).item() == 14 and lg.dot(v, v).dtype == lg.int64
    assert lg.mv(lg.tensor([[1, 0, 2]]), v).tolist() == [7]
    b = lg.tensor([True, False])
    with pytest.raises(NotImplementedError, match=r"dot: not implemented for torch\.bool"):
        lg.dot(b, b)
    with pytest.raises(NotImplementedError, match=r"mv: not implemented for torch\.bool"):
        lg.mv(lg.ones(2, 2, dtype=lg.bool), b)
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        lg.dot(lg.ones(3), lg.ones(4))
    with pytest.raises(RuntimeError, match="vec must be 1-D"):
        lg.mv(lg.ones(3, 3), lg.ones(3, 1))
    with pytest.raises(TypeError, match="mv\\(\\): argument 1 must be a Tensor"):
        lg.mv(lg.ones(3, 3), [1.0, 2.0, 3.0])


def test_dot_and_mv_record_their_nodes_with_saved_operands():
    _, _, ta, tv = _pair((3, 4), (4,), requires_grad=True)
    out = lg.mv(ta, tv)
    assert type(out.grad_fn).__name__ == "MvBackward0"
    assert out.grad_fn._saved_self is ta and out.grad_fn._saved_vec is tv
    d = tv.dot(tv)
    assert type(d.grad_fn).__name__ == "DotBackward0" and d.grad_fn._saved_tensor is tv
    (g,) = lg.autograd.grad(d, tv, create_graph=True)
    assert _bits(g) == _bits(2 * tv)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias_shape", [(3,), (5, 3), (1, 3)])
def test_addmm_matches_pytorch_for_a_bias_of_each_shape(bias_shape, dtype):
    rng = np.random.default_rng(1)
    x, a, b = (rng.normal(size=s).astype(dtype) for s in (bias_shape, (5, 4), (4, 3)))
    theirs = torch.addmm(*(torch.from_numpy(v) for v in (x, a, b)))
    ours = lg.addmm(*(lg.tensor(v) for v in (x, a, b)))
    assert ours.dtype == getattr(lg, dtype) and tuple(ours.shape) == (5, 3)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
    want = np.matmul(a, b) + x  # the product rounded first, then the bias added
    assert ours.numpy().tobytes() == want.astype(dtype).tobytes()
    scaled = lg.addmm(*(lg.tensor(v) for v in (x, a, b)), beta=0.5, alpha=2)
    np.testing.assert_allclose(scaled.numpy(), 2 * (a @ b) + 0.5 * x, rtol=1e-5)


def test_linear_without_a_graph_gives_the_recorded_calls_bits():
    _, _, tx, tw = _pair((6, 4), (3, 4), requires_grad=True)
    tb = lg.tensor(np.arange(3.0), requires_grad=True)
    recorded = F.linear(tx, tw, tb)
    with lg.no_grad():
        unrecorded = F.linear(tx, tw, tb)
    plain = F.linear(tx.detach(), tw.detach(), tb.detach())
    assert _bits(recorded) == _bits(unrecorded) == _bits(plain)
    assert unrecorded.grad_fn is None and not unrecorded.requires_grad
    assert plain.grad_fn is None and not plain.requires_grad


def test_linear_under_no_grad_is_marked_as_made_without_recording():
    layer = lg.nn.Linear(4, 3)
    with lg.no_grad():
        out = layer(lg.ones(2, 4))
        ref = lg.addmm(layer.bias, lg.ones(2, 4), layer.weight.t())
    assert out._provenance == ref._provenance == "no_grad"
    assert _bits(out) == _bits(ref)


def test_linear_records_the_weights_transpose_and_its_version():
    _, _, tx, tw = _pair((6, 4), (3, 4), requires_grad=True)
    tb = lg.zeros(3, dtype=lg.float64, requires_grad=True)
    out = F.linear(tx, tw, tb)
    assert type(out.grad_fn).__name__ == "AddmmBackward0"
    names = [type(f).__name__ for f, _ in out.grad_fn.next_functions]
    assert names == ["AccumulateGrad", "AccumulateGrad", "TBackward0"]
    assert out.grad_fn._saved_mat2._base is tw
    with lg.no_grad():
        tw.add_(1.0)  # the saved transpose is a view: its version moved too
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_linear_with_only_the_input_requiring_grad_saves_the_transpose_view():
    _, _, tx, tw = _pair((6, 4), (3, 4))
    tx.requires_grad_()
    out = F.linear(tx, tw, lg.zeros(3, dtype=lg.float64))
    assert out.grad_fn._saved_mat2._base is tw
    out.sum().backward()
    np.testing.assert_allclose(tx.grad.numpy(), np.tile(tw.numpy().sum(0), (6, 1)))


def test_linear_under_vmap_matches_a_loop():
    _, _, tx, tw = _pair((5, 2, 4), (3, 4))
    tb = lg.ones(3, dtype=lg.float64)
    got = lg.vmap(lambda x: F.linear(x, tw, tb))(tx)
    want = lg.stack([F.linear(x, tw, tb) for x in tx])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_masked_fill_with_a_float_matches_pytorch_bit_for_bit(dtype):
    data = np.random.default_rng(2).normal(size=(4, 5)).astype(dtype)
    mask = data > 0.3
    for value in (0.1, -0.0, float("inf"), float("nan"), 1e-30):
        ours = lg.tensor(data).masked_fill(lg.tensor(mask), value)
        theirs = torch.from_numpy(data).masked_fill(torch.from_numpy(mask), value)
        assert ours.dtype == getattr(lg, dtype)
        assert ours.numpy().tobytes() == theirs.numpy().tobytes()


def test_masked_fill_broadcasts_its_mask_and_refuses_one_that_does_not():
    x = lg.zeros(2, 3)
    assert x.masked_fill(lg.tensor([True, False, True]), 2.0).tolist() == [[2, 0, 2], [2, 0, 2]]
    assert lg.tensor([1, 2]).masked_fill(lg.tensor([True, False]), 7).tolist() == [7, 2]
    with pytest.raises(RuntimeError, match=r"mask of shape \[2\] cannot be broadcast"):
        x.masked_fill(lg.tensor([True, False]), 1.0)
    y = lg.ones(2, 3, requires_grad=True)
    out = y.masked_fill(lg.ones(2, 3, dtype=lg.bool), 0.5)
    assert type(out.grad_fn).__name__ == "MaskedFillBackward0"
    out.sum().backward()
    assert y.grad.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bounds", [(0.7, 1.2), (0, 1), (None, 0.5), (-1, None), (2.0, 1.0)])
def test_clamp_by_numbers_matches_pytorch_and_keeps_the_dtype(bounds, dtype):
    data = np.random.default_rng(3).normal(size=(4, 4)).astype(dtype)
    data[0, :2] = [np.nan, 0.5]
    x = lg.tensor(data, requires_grad=True)
    ours = x.clamp(*bounds)
    theirs = torch.from_numpy(data).clamp(*bounds)
    assert ours.dtype == x.dtype
    assert _bits(ours) == theirs.numpy().tobytes()
    assert type(ours.grad_fn).__name__ == "ClampBackward1"
    assert (ours.grad_fn._saved_min, ours.grad_fn._saved_max) == bounds


def test_clamp_of_integers_and_bad_bounds_keeps_its_general_path():
    assert lg.tensor([1, 5, 9]).clamp(2, 6).tolist() == [2, 5, 6]
    assert lg.tensor([1, 5, 9]).clamp(2.5).dtype == lg.float32
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        lg.ones(2).clamp()
    with pytest.raises(TypeError, match="clamp\\(\\): input must be a Tensor"):
        lg.clamp([1.0], 0.0, 1.0)


def test_small_where_is_numpys_and_large_keeps_the_bit_select():
    rng = np.random.default_rng(4)
    for size in (8, _select.MIN_SIZE):
        a, b = rng.normal(size=size), rng.normal(size=size)
        mask = a > 0
        assert _select.where(mask, a, b).tobytes() == np.where(mask, a, b).tobytes()
        assert _select.where(mask, 0.0, b).tobytes() == np.where(mask, 0.0, b).tobytes()


@pytest.mark.parametrize("method, dtype", [("float", "float32"), ("double", "float64")])
def test_conversions_copy_only_when_the_dtype_changes(method, dtype):
    for source in ("float64", "float32", "int64"):
        x = lg.tensor(np.arange(4).astype(source), requires_grad=source != "int64")
        out = getattr(x, method)()
        assert out.dtype == getattr(lg, dtype)
        if source == dtype:
            assert out is x
        else:
            assert _bits(out) == np.arange(4).astype(dtype).tobytes()
            if x.requires_grad:
                assert type(out.grad_fn).__name__ == "ToCopyBackward0"


def test_item_takes_the_one_element_of_any_shape():
    assert lg.tensor([[2.5]]).item() == 2.5 and type(lg.tensor([[2.5]]).item()) is float
    assert type(lg.tensor([[[3]]]).item()) is int and type(lg.tensor(True).item()) is bool
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted"):
        lg.ones(2).item()


@pytest.mark.parametrize("dtype", [None, lg.float32, lg.int64])
def test_zeros_like_keeps_dtype_and_pytorchs_strides(dtype):
    torch_dtype = None if dtype is None else getattr(torch, str(dtype).removeprefix("torch."))
    for data in (np.ones((3, 4), np.float32), np.ones((3, 4, 2))[:, ::2].transpose(2, 0, 1)):
        ours = lg.zeros_like(lg.from_numpy(data), dtype=dtype)
        theirs = torch.zeros_like(torch.from_numpy(data), dtype=torch_dtype)
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
        assert not ours.numpy().any() and not ours.requires_grad
