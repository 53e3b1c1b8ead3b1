"""trace, diag, diag_embed and diagonal_copy against PyTorch: one node of PyTorch's name with
its saves, values, and first and second derivatives (float64)."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

R = np.random.default_rng(12)
M, V, B = R.uniform(-1, 1, (3, 4)), R.uniform(-1, 1, (3,)), R.uniform(-1, 1, (2, 3, 4))

CASES = {
    "trace": (lambda m, x: m.trace(x * x), M, "TraceBackward0"),
    "diag_vector": (lambda m, x: m.diag(x * x, 1), V, "DiagEmbedBackward0"),
    "diag_vector_below": (lambda m, x: m.diag(x, -2), V, "DiagEmbedBackward0"),
    "diag_matrix": (lambda m, x: m.diag(x * x, -1), M, "DiagonalBackward0_copy"),
    "diag_embed": (lambda m, x: m.diag_embed(x * x, 1, 0, 2), B, "DiagEmbedBackward0"),
    "diagonal_copy": (lambda m, x: m.diagonal_copy(x * x, 1, -1, 0), B, "DiagonalBackward0_copy"),
}


def _run(lib, case):
    fn, array, _ = CASES[case]
    x = lib.tensor(array, requires_grad=True)
    y = fn(lib, x)
    (first,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    (second,) = lib.autograd.grad((first * first).sum(), x)
    return y, first, second


@pytest.mark.parametrize("case", list(CASES))
def test_records_pytorchs_node_values_and_derivatives(case):
    ours, theirs = _run(lg, case), _run(torch, case)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name() == CASES[case][2]
    for a, b in zip(ours, theirs):
        assert_close(a, b.detach().numpy(), "direct")


def test_saved_dims_and_offset_are_pytorchs():
    x = lg.tensor(V, requires_grad=True)
    node = lg.diag(x, 2).grad_fn
    # PyTorch 2.13 shows a negative saved int as its unsigned 64-bit pattern; so does leafgrad
    assert (node._saved_offset, node._saved_dim1, node._saved_dim2) == (2, 2**64 - 2, 2**64 - 1)
    node = lg.diag(lg.tensor(M, requires_grad=True), -1).grad_fn
    assert (node._saved_offset, node._saved_dim1, node._saved_dim2) == (2**64 - 1, 0, 1)


def test_diag_of_a_matrix_is_a_copy_as_in_pytorch():
    for lib in (lg, torch):
        x = lib.zeros(2, 2)
        lib.diag(x)[0] = 5.0
        assert x.tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float16", "float32"])
def test_trace_dtype_matches_pytorch(dtype):
    a = np.arange(9).reshape(3, 3)
    ours = lg.trace(lg.tensor(a, dtype=getattr(lg, dtype)))
    theirs = torch.trace(torch.tensor(a, dtype=getattr(torch, dtype)))
    assert str(ours.dtype) == str(theirs.dtype) and ours.item() == theirs.item()


def test_trace_under_vmap_matches_a_loop():
    x = lg.tensor(B[:, :3, :3], requires_grad=True)
    batched = lg.func.vmap(lg.trace)(x)
    assert_close(batched, np.trace(B[:, :3, :3], axis1=1, axis2=2), "direct")
    (grad,) = lg.autograd.grad(batched.sum(), x)
    assert_close(grad, np.broadcast_to(np.eye(3), (2, 3, 3)), "direct")
