"""Plain rules: where nothing is recorded, ops declared ``plain_rules`` run their backward
rules on the NumPy arrays themselves (``OpNode.apply_plain``). The results must be exactly
those of the same rules run on tensors, and the path must really be taken."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad._engine import graph
from leafgrad.ops._copy_slices import CopySlices
from leafgrad.ops._optable import REGISTRY

from ..ops.test_op_table import SAMPLES

PLAIN_KEYS = {key for key, prim in REGISTRY.items() if prim.plain_rules}
PLAIN_SAMPLES = [s for s in SAMPLES if s.name in PLAIN_KEYS]


def _tensors_only(monkeypatch):
    monkeypatch.setattr(graph.OpNode, "apply_on_arrays", lambda self, grads, needs: graph.NOT_PLAIN)


def _count_plain(monkeypatch) -> dict:
    """Per node name, how many times a node ran on arrays (op nodes and CopySlices, which
    holds an in-place op's node)."""
    ran: dict = {}
    for cls in (graph.OpNode, CopySlices):
        apply_on_arrays = cls.apply_on_arrays  # OpNode's is its C base's

        def counting(self, grads, needs, apply_on_arrays=apply_on_arrays):
            out = apply_on_arrays(self, grads, needs)
            if out is not graph.NOT_PLAIN:
                ran[self.name()] = ran.get(self.name(), 0) + 1
            return out

        monkeypatch.setattr(cls, "apply_on_arrays", counting)
    return ran


def _gradients(sample, dtype):
    inputs = [t.detach().to(dtype).requires_grad_() for t in sample.inputs()]
    out = sample.fn(*inputs)
    outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad]
    rng = np.random.default_rng(1)
    seeds = [lg.tensor(rng.standard_normal(o.shape), dtype=o.dtype) for o in outs]
    return lg.autograd.grad(outs, inputs, seeds, allow_unused=True)


def test_hot_ops_declare_plain_rules():
    for key in ("mul.Tensor", "add.Tensor", "sub.Tensor", "div.Tensor", "tanh", "sigmoid",
                "tanh_backward", "mm", "t", "sum", "mean", "expand", "sum_to", "relu",
                "pow.Tensor_Scalar", "exp", "sin", "cos", "addmm", "view", "_unsafe_view",
                "squeeze.dim", "unsqueeze", "cat", "stack", "softmax", "log_softmax",
                "logsumexp", "where.self", "maximum", "clamp", "to", "permute", "gelu", "silu",
                "transpose.int", "softplus", "elu", "leaky_relu", "norm",
                "var.correction", "bmm", "masked_fill.Scalar", "masked_fill.Tensor", "mv",
                "vecmat", "matmul", "matmul.clone", "einsum.view", "einsum.sum", "einsum.mul",
                "einsum.permute", "pow.Tensor_Tensor", "pow.Scalar", "prod", "prod.dim_int",
                "cumprod", "logit", "nansum", "scatter.src", "sort", "topk", "index_put",
                "linalg_inv_ex", "linalg_solve_ex", "median", "median.dim", "nanmedian",
                "nanmedian.dim", "kthvalue", "mode", "logcumsumexp", "copysign.Tensor",
                "copysign.Scalar", "linalg_det", "linalg_slogdet", "special_i0e", "special_i1",
                "special_i1e", "unsafe_split.Tensor", "unsafe_split_with_sizes",
                "convolution", "convolution.bias"):  # fmt: skip
        assert key in PLAIN_KEYS, key


@pytest.mark.parametrize("dtype", [lg.float64, lg.float32])
@pytest.mark.parametrize("sample", PLAIN_SAMPLES, ids=[s.test_id for s in PLAIN_SAMPLES])
def test_plain_rules_give_the_tensor_rules_results(sample, dtype, monkeypatch):
    with monkeypatch.context() as m:
        _tensors_only(m)
        try:
            on_tensors = _gradients(sample, dtype)
        except RuntimeError as error:  # a sample made for float64 only (e.g. a float64 q)
            with pytest.raises(type(error)):
                _gradients(sample, dtype)
            return
    plain = _gradients(sample, dtype)
    for a, b in zip(plain, on_tensors):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("sample", PLAIN_SAMPLES, ids=[s.test_id for s in PLAIN_SAMPLES])
def test_plain_rules_run_on_arrays(sample, monkeypatch):
    ran = _count_plain(monkeypatch)
    _gradients(sample, lg.float64)
    assert ran.get(REGISTRY[sample.name].node_name, 0) >= 1, ran


def _chain(x, w, b):
    h = (x * w + b).tanh()
    h = h * h.sigmoid() + (x - b).exp() * 0.5
    h = (h / (w * w + 1.0)).sin() ** 2
    return (h.relu() + h.abs().sqrt()).mean()


def test_a_chain_and_an_mlp_run_plain_and_match_torch(monkeypatch, torch):
    ran = _count_plain(monkeypatch)
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, 8) for _ in range(3)] + [
        rng.standard_normal((5, 3)),
        rng.standard_normal((3, 4)),
        rng.standard_normal(4),
    ]
    results = []
    for lib in (lg, torch):
        ts = [lib.tensor(a, dtype=lib.float32, requires_grad=True) for a in arrays]
        x, w, b, inp, w1, b1 = ts
        loss = _chain(x, w, b) + (lib.tanh(inp @ w1 + b1) ** 2).mean()
        loss.backward()
        results.append([t.grad.numpy() for t in ts])
    for ours, theirs in zip(*results):
        assert ours.dtype == theirs.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    for name in ("MulBackward0", "TanhBackward0", "MmBackward0", "AddBackward0", "MeanBackward0"):
        assert ran.get(name, 0) >= 1, ran


def test_create_graph_and_hooks_keep_tensors(monkeypatch):
    ran = _count_plain(monkeypatch)
    x = lg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (g,) = lg.autograd.grad((x * x).sum(), x, create_graph=True)
    assert g.grad_fn is not None and ran == {}
    seen = []
    y = x.tanh()
    y.register_hook(lambda grad: seen.append(type(grad)))
    y.sum().backward()
    assert seen == [lg.Tensor] and ran.get("TanhBackward0") == 1
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x.detach().numpy()) ** 2, rtol=1e-6)


def test_mixed_dtypes_run_on_tensors(monkeypatch, torch):
    ran = _count_plain(monkeypatch)
    x = lg.tensor([0.5, 1.5], dtype=lg.float32, requires_grad=True)
    y = lg.tensor([2.0, 3.0], dtype=lg.float64, requires_grad=True)
    (x * y).sum().backward()
    assert "MulBackward0" not in ran
    tx = torch.tensor([0.5, 1.5], dtype=torch.float32, requires_grad=True)
    ty = torch.tensor([2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (tx * ty).sum().backward()
    assert x.grad.dtype == lg.float32 and y.grad.dtype == lg.float64
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(y.grad.numpy(), ty.grad.numpy())


def test_an_op_given_an_array_still_refuses_it_outside_plain_rules():
    with pytest.raises(TypeError):
        lg.mul(np.ones(2), lg.ones(2))
    with pytest.raises(TypeError):
        lg.tanh(np.ones(2))
    with pytest.raises(TypeError):  # where lets an array mask through only inside a rule
        lg.where(np.ones(2, dtype=bool), lg.ones(2), 0.0)


def _runs_plain_and_matches(step, arrays, nodes, atol, torch, monkeypatch) -> None:
    """``step(lib, arrays)``'s float32 gradients match PyTorch's, and each node named in
    ``nodes`` ran its rule on arrays at least once."""
    expected = step(torch, arrays)
    ran = _count_plain(monkeypatch)
    ours = step(lg, arrays)
    for a, b in zip(ours, expected):
        assert a.dtype == b.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=atol)
    for name in nodes:
        assert ran.get(name, 0) >= 1, (name, ran)


def _script_step(lib, arrays):
    """What PyTorch scripts write: Linear layers, cat, a view, softmax and cross_entropy, a
    where, a norm penalty, a cast."""
    x, w1, b1, w2, b2, labels = arrays
    x = lib.tensor(x, dtype=lib.float32)
    params = [lib.tensor(a, dtype=lib.float32, requires_grad=True) for a in (w1, b1, w2, b2)]
    w1, b1, w2, b2 = params
    h = lib.nn.functional.linear(x, w1, b1)
    h = lib.cat([h[:, :4], lib.nn.functional.gelu(h[:, 4:])], 1)
    h = lib.where(h > 0.1, h, lib.nn.functional.softplus(h)).view(-1, 2, 4).permute(0, 2, 1)
    logits = lib.nn.functional.linear(h.reshape(len(x), -1), w2, b2)
    loss = lib.nn.functional.cross_entropy(logits, lib.tensor(labels))
    loss = loss + 0.01 * lib.linalg.vector_norm(w1) + logits.log_softmax(1).var()
    loss.double().backward()
    return [p.grad.numpy() for p in params]


def test_a_script_of_common_ops_runs_plain_and_matches_torch(monkeypatch, torch):
    rng = np.random.default_rng(3)
    arrays = [
        rng.standard_normal((6, 3)),
        rng.standard_normal((8, 3)) / 3,
        rng.standard_normal(8) * 0.1,
        rng.standard_normal((4, 8)) / 3,
        rng.standard_normal(4) * 0.1,
        rng.integers(0, 4, 6),
    ]
    nodes = ("AddmmBackward0", "CatBackward0", "GeluBackward0", "WhereBackward0",
             "SoftplusBackward0", "ViewBackward0", "PermuteBackward0", "LogSoftmaxBackward0",
             "LinalgVectorNormBackward0", "VarBackward0", "ToCopyBackward0")  # fmt: skip
    _runs_plain_and_matches(_script_step, arrays, nodes, 1e-6, torch, monkeypatch)


def test_a_saved_tensor_changed_in_place_still_raises():
    x = lg.tensor([0.5, 1.5], requires_grad=True)
    y = x * 1.0
    z = y * y
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_ops_of_several_outputs_run_plain_with_zeros_for_unused_pieces(monkeypatch, torch):
    """split, unbind and max(dim) have several outputs; pieces no gradient reached count as
    zeros, and the integer indices of max do not stop the plain path."""
    rng = np.random.default_rng(4)
    data = rng.standard_normal((4, 6))

    def grads(lib):
        x = lib.tensor(data, dtype=lib.float32, requires_grad=True)
        first, _, third = x.split(2, 1)
        rows = x.unbind(0)
        values, _ = x.max(1)
        loss = (first * third).sum() + rows[2].sum() * 3 + (values**2).sum()
        loss.backward()
        return x.grad.numpy()

    expected = grads(torch)
    ran = _count_plain(monkeypatch)
    ours = grads(lg)
    assert ours.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(ours, expected, rtol=1e-6, atol=1e-6)
    for name in ("SplitBackward0", "UnbindBackward0", "MaxBackward0"):
        assert ran.get(name, 0) == 1, (name, ran)


def _products_step(lib, arrays):
    """Batched products, einsum, powers with tensor exponents, prod, cumprod, logit, a masked
    write and a solve: the ops a PINN's features and residuals add to its layers."""
    x, w, v, e, a = (lib.tensor(t, dtype=lib.float32, requires_grad=True) for t in arrays)
    h = lib.tanh(x @ w)  # (2, 5, 3) @ (3, 4): UnsafeViewBackward0
    h = h @ v + lib.einsum("bij,j->bi", h, v)  # (2, 5, 4) @ (4,), einsum
    p = (h.abs() + 0.5) ** (e.sigmoid() + 0.5)  # PowBackward1
    q = p.prod(-1) + p.cumprod(1).sum(1) + lib.logit(lib.sigmoid(p.mean(1)))
    r = p.clone()
    r[r > 1.6] = q.mean()  # index_put with a mask (5 of the 10 places)
    s = lib.linalg.solve(a @ a.mT + lib.eye(3), x[0, :3].mT)
    loss = r.sum() + q.sum() + (s**2).sum() + lib.mv(w, v).sum()
    loss.backward()
    return [t.grad.numpy() for t in (x, w, v, e, a)]


def test_products_powers_and_writes_run_plain_and_match_torch(monkeypatch, torch):
    rng = np.random.default_rng(5)
    arrays = [
        rng.uniform(-1, 1, (2, 5, 3)),
        rng.standard_normal((3, 4)) / 2,
        rng.standard_normal(4) / 2,
        rng.standard_normal(5),
        rng.standard_normal((3, 3)),
    ]
    nodes = ("UnsafeViewBackward0", "MvBackward0", "ViewBackward0", "PowBackward1",
             "ProdBackward1", "CumprodBackward0", "LogitBackward0", "IndexPutBackward0",
             "LinalgSolveExBackward0")  # fmt: skip
    _runs_plain_and_matches(_products_step, arrays, nodes, 1e-5, torch, monkeypatch)


def test_det_at_a_singular_matrix_takes_pytorchs_two_paths(monkeypatch):
    """As PyTorch's backward: without create_graph det's gradient is ``det A^-T`` by A's LU
    factors (plain, on the arrays: 0 where det is exactly 0); with it, the SVD's adjugate
    (on tensors, differentiable again)."""
    data = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [0.5, 3.0]]])
    ran = _count_plain(monkeypatch)
    a = lg.tensor(data, requires_grad=True)
    lg.linalg.det(a).sum().backward()
    assert ran.get("LinalgDetBackward0") == 1
    assert a.grad.numpy()[0].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(a.grad.numpy()[1], [[3.0, -0.5], [-1.0, 2.0]], rtol=1e-15)
    a = lg.tensor(data, requires_grad=True)
    (g,) = lg.autograd.grad(lg.linalg.det(a).sum(), a, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy()[0], [[4.0, -2.0], [-2.0, 1.0]], rtol=1e-14)
