"""``scaled_dot_product_attention`` where PyTorch's CPU dispatch takes its flash kernel: one
node (ScaledDotProductFlashAttentionForCpuBackward0) with PyTorch's edges, saved values and
output layout, values and gradients to round-off, a second backward and forward AD raising
as PyTorch's; the math path everywhere else."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad as lg

FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"
TOL = {"float32": (2e-6, 2e-6), "float64": (1e-12, 1e-12)}


def _pair(shapes, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return (
        [torch.tensor(a, requires_grad=True) for a in arrays],
        [lg.tensor(a, requires_grad=True) for a in arrays],
    )


def _names(node):
    return [(n.name() if n is not None else None, i) for n, i in node.next_functions]


def _compare(shapes=((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)), dtype="float32", mask=None,
             **kw):  # fmt: skip
    ts, ls = _pair(shapes, dtype)
    tm = None if mask is None else torch.tensor(mask)
    lm = None if mask is None else lg.tensor(mask)
    ot = torch.nn.functional.scaled_dot_product_attention(*ts, attn_mask=tm, **kw)
    ol = lg.nn.functional.scaled_dot_product_attention(*ls, attn_mask=lm, **kw)
    assert ol.grad_fn.name() == ot.grad_fn.name()
    assert ol.stride() == ot.stride()
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(ol.detach().numpy(), ot.detach().numpy(), rtol=rtol, atol=atol)
    if ot.grad_fn.name() == FLASH:  # (the math path's graph is tested elsewhere)
        assert _names(ol.grad_fn) == _names(ot.grad_fn)
        for name in ("dropout_p", "is_causal", "scale"):
            assert getattr(ol.grad_fn, f"_saved_{name}") == getattr(ot.grad_fn, f"_saved_{name}")
        for name in ("query", "key", "value", "output", "logsumexp", "attn_mask"):
            a, b = getattr(ot.grad_fn, f"_saved_{name}"), getattr(ol.grad_fn, f"_saved_{name}")
            if a is None:
                assert b is None, name
                continue
            assert (tuple(b.shape), b.stride(), str(b.dtype)) == (
                tuple(a.shape),
                a.stride(),
                str(a.dtype),
            ), name
            np.testing.assert_allclose(
                b.detach().numpy(), a.detach().numpy(), rtol=rtol, atol=atol, err_msg=name
            )
        assert ol.grad_fn._saved_query is ls[0]
    go = np.random.default_rng(7).standard_normal(ot.shape).astype(dtype)
    ot.backward(torch.tensor(go))
    ol.backward(lg.tensor(go))
    for t, x in zip(ts, ls):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol)
    return ol


_BOOL = np.random.default_rng(1).random((5, 6)) > 0.3
_BOOL[1] = False  # a query that attends to nothing: zeros, logsumexp 0
_FLOAT = np.random.default_rng(2).standard_normal((2, 1, 5, 6)).astype("float32")
_FLOAT[0, 0, 2] = -np.inf


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"is_causal": True},
        {"scale": 0.3},
        {"mask": _BOOL},
        {"mask": "float"},
        {"mask": np.zeros((1, 1, 1, 6), "float32")},
    ],
    ids=["plain", "causal", "scale", "bool-mask", "float-mask", "broadcast-mask"],
)
def test_flash_node_values_and_gradients_match_pytorch(kw, dtype):
    kw = dict(kw)
    if isinstance(kw.get("mask"), str):
        kw["mask"] = _FLOAT
    if "mask" in kw and kw["mask"].dtype != bool:
        kw["mask"] = kw["mask"].astype(dtype)
    out = _compare(dtype=dtype, **kw)
    assert out.grad_fn.name() == FLASH


@pytest.mark.parametrize("sizes", [(5, 3), (3, 5)])
def test_causal_with_unequal_lengths(sizes):
    length, source = sizes
    shapes = ((1, 2, length, 4), (1, 2, source, 4), (1, 2, source, 4))
    assert _compare(shapes, is_causal=True).grad_fn.name() == FLASH


def test_grouped_query_attention_sums_gradients_to_the_shared_heads():
    shapes = ((2, 4, 5, 4), (2, 2, 6, 4), (2, 2, 6, 4))
    assert _compare(shapes, enable_gqa=True).grad_fn.name() == FLASH


@pytest.mark.parametrize(
    "shapes, kw",
    [
        (((3, 5, 4), (3, 6, 4), (3, 6, 4)), {}),  # 3-D
        (((1, 2, 3, 5, 4), (1, 2, 3, 6, 4), (1, 2, 3, 6, 4)), {}),  # 5-D
        (((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7)), {}),  # another value head size
        (((2, 3, 5, 4), (1, 3, 6, 4), (1, 3, 6, 4)), {}),  # broadcast batch
        (((2, 3, 5, 4), (2, 1, 6, 4), (2, 1, 6, 4)), {}),  # broadcast heads, no gqa
        (((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)), {"mask": np.zeros((3, 5, 6), "float32")}),
    ],
    ids=["3d", "5d", "value-head", "batch-1", "heads-1", "3d-mask"],
)
def test_math_path_where_pytorch_takes_it(shapes, kw):
    assert _compare(shapes, **kw).grad_fn.name() != FLASH


def test_routing_by_layout_and_mask_gradient():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    kv = rng.standard_normal((2, 3, 6, 4)).astype("float32")
    for m in (torch, lg):
        q = m.tensor(a).transpose(-1, -2).requires_grad_()  # last dim not of stride 1
        k = m.tensor(kv, requires_grad=True)
        out = m.nn.functional.scaled_dot_product_attention(q, k, k)
        assert out.grad_fn.name() != FLASH
        mask = m.zeros(5, 6, requires_grad=True)  # a mask that needs a gradient
        q2 = m.tensor(a.transpose(0, 1, 3, 2).copy(), requires_grad=True)
        assert m.nn.functional.scaled_dot_product_attention(q2, k, k, mask).grad_fn.name() != FLASH
        empty = m.zeros(2, 3, 0, 4, requires_grad=True)
        assert m.nn.functional.scaled_dot_product_attention(empty, k, k).grad_fn.name() != FLASH
        out = m.nn.functional.scaled_dot_product_attention(q2, k, k, dropout_p=0.5)
        assert out.grad_fn.name() != FLASH


def test_output_is_laid_out_as_the_query():
    rng = np.random.default_rng(4)
    base = rng.standard_normal((2, 5, 3, 4)).astype("float32")
    kv = rng.standard_normal((2, 3, 6, 4)).astype("float32")
    outs = []
    for m in (torch, lg):
        q = m.tensor(base).transpose(1, 2).requires_grad_()
        k = m.tensor(kv, requires_grad=True)
        outs.append(m.nn.functional.scaled_dot_product_attention(q, k, k))
    assert outs[1].grad_fn.name() == outs[0].grad_fn.name() == FLASH
    assert outs[1].stride() == outs[0].stride()
    np.testing.assert_allclose(outs[1].detach().numpy(), outs[0].detach().numpy(), 2e-6, 2e-6)


@pytest.mark.parametrize("only_query", [False, True])
def test_second_backward_raises_through_a_not_implemented_node(only_query):
    ts, ls = _pair(((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)))
    for m, (q, k, v) in ((torch, ts), (lg, ls)):
        if only_query:
            k, v = k.detach(), v.detach()
        out = m.nn.functional.scaled_dot_product_attention(q, k, v)
        wrt = (q,) if only_query else (q, k, v)
        grads = m.autograd.grad(out.sum(), wrt, create_graph=True)
        node = grads[0].grad_fn
        assert node.name() == "torch::autograd::NotImplemented"
        expected = [("torch::autograd::AccumulateGrad", 0)] * len(wrt) + [(FLASH, 0)]
        assert _names(node) == expected
        with pytest.raises(RuntimeError, match="not implemented"):
            grads[0].sum().backward()


def test_forward_ad_raises_not_implemented_as_pytorch():
    ts, ls = _pair(((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)))
    for m, fw, (q, k, v) in (
        (torch, torch.autograd.forward_ad, ts),
        (lg, lg.autograd.forward_ad, ls),
    ):
        with fw.dual_level():
            dual = fw.make_dual(q.detach(), m.ones(1, 2, 3, 4))
            with pytest.raises(NotImplementedError, match="forward AD"):
                m.nn.functional.scaled_dot_product_attention(dual, k.detach(), v.detach())


def test_vmap_runs_the_composite():
    ts, ls = _pair(((3, 2, 2, 5, 4), (2, 2, 6, 4), (2, 2, 6, 4)))
    expected = torch.func.vmap(
        lambda q: torch.nn.functional.scaled_dot_product_attention(q, ts[1], ts[2])
    )(ts[0].detach())
    got = lg.func.vmap(lambda q: lg.nn.functional.scaled_dot_product_attention(q, ls[1], ls[2]))(
        ls[0].detach()
    )
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), 2e-6, 2e-6)


def test_multihead_attention_records_pytorch_graph_without_weights():
    outs = []
    for m in (torch, lg):
        m.manual_seed(0)
        layer = m.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        x = m.randn(5, 3, 8, requires_grad=True)
        outs.append(layer(x))
    node_t, node_l = outs[0].grad_fn, outs[1].grad_fn
    seen, visited = 0, set()
    stack = [(node_t, node_l)]
    while stack:
        a, b = stack.pop()
        assert b.name() == a.name()
        if id(a) in visited:
            continue
        visited.add(id(a))
        seen += a.name() == FLASH
        pairs = list(zip(a.next_functions, b.next_functions))
        assert len(a.next_functions) == len(b.next_functions), a.name()
        stack.extend((x, y) for (x, _), (y, _) in pairs if x is not None and y is not None)
    assert seen == 1
