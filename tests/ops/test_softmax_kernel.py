"""softmax, log_softmax and logsumexp over narrow rows (``softmax._narrow_rows``): row maxima
from a transposed copy, row sums by BLAS, against PyTorch and float64."""

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.ops import softmax as kernels

torch = pytest.importorskip("torch")

NAMES = ["softmax", "log_softmax", "logsumexp"]


@pytest.mark.parametrize("dtype, tol", [("float32", 4e-7), ("float64", 2e-15)])
@pytest.mark.parametrize("shape", [(1000, 10), (64, 32), (1000, 2), (1000, 33), (5, 10)])
@pytest.mark.parametrize("name", NAMES)
def test_values_close_to_float64_as_pytorchs_are(name, shape, dtype, tol):
    x = (np.random.default_rng(0).standard_normal(shape) * 5).astype(dtype)
    exact = getattr(torch, name)(torch.from_numpy(x.astype(np.float64)), 1).numpy()
    ours = getattr(lg, name)(lg.tensor(x), 1)
    assert str(ours.dtype) == f"torch.{dtype}"
    error = np.abs(ours.numpy().astype(np.float64) - exact) / (np.abs(exact) + 1)
    assert error.max() <= tol


def test_the_narrow_path_is_taken_where_meant():
    assert kernels._narrow_rows(np.zeros((1000, 10), np.float32), 1)
    assert kernels._narrow_rows(np.zeros((64, 32)), (1,))
    assert not kernels._narrow_rows(np.zeros((1000, 33)), 1)  # wide rows: NumPy's reduce
    assert not kernels._narrow_rows(np.zeros((1000, 10)), 0)
    assert not kernels._narrow_rows(np.zeros((10, 1000)).T, 1)  # not C-contiguous
    assert not kernels._narrow_rows(np.zeros((1000, 10), np.float16), 1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_rows_of_infinities_and_nans_as_in_torch(name, dtype):
    x = np.zeros((100, 10), dtype)
    x[0, 0] = np.inf
    x[1, :] = -np.inf
    x[2, 3] = np.nan
    x[3, :] = np.inf
    x[4, :] = np.arange(10) * 1e3  # one dominant entry
    ours = getattr(lg, name)(lg.tensor(x), 1).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x), 1).numpy()
    np.testing.assert_array_equal(ours[:5], theirs[:5])


@pytest.mark.parametrize("name", NAMES)
def test_gradients_to_second_order_match_torch(name):
    x = np.random.default_rng(1).standard_normal((200, 10))
    a = lg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    weights = np.random.default_rng(2).standard_normal(getattr(torch, name)(b, 1).shape)
    ya = (getattr(lg, name)(a, 1) * lg.tensor(weights)).sum()
    yb = (getattr(torch, name)(b, 1) * torch.tensor(weights)).sum()
    (ga,) = lg.autograd.grad(ya, a, create_graph=True)
    (gb,) = torch.autograd.grad(yb, b, create_graph=True)
    np.testing.assert_allclose(ga.detach().numpy(), gb.detach().numpy(), rtol=1e-12, atol=1e-14)
    (ha,) = lg.autograd.grad((ga * ga).sum(), a)
    (hb,) = torch.autograd.grad((gb * gb).sum(), b)
    np.testing.assert_allclose(ha.numpy(), hb.numpy(), rtol=1e-11, atol=1e-13)


def test_cross_entropy_of_a_ten_class_batch_matches_torch():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((512, 10)).astype(np.float32)
    target = rng.integers(0, 10, 512)
    a = lg.tensor(logits, requires_grad=True)
    b = torch.tensor(logits, requires_grad=True)
    la = lg.nn.functional.cross_entropy(a, lg.tensor(target))
    lb = torch.nn.functional.cross_entropy(b, torch.tensor(target))
    np.testing.assert_allclose(la.item(), lb.item(), rtol=1e-6)
    (ga,) = lg.autograd.grad(la, a)
    (gb,) = torch.autograd.grad(lb, b)
    np.testing.assert_allclose(ga.numpy(), gb.numpy(), rtol=1e-5, atol=1e-9)


def _numpy_passes(name, x, dim):
    """softmax / log_softmax as NumPy's plain passes: max, shift, exp, sum (and log)."""
    shifted = x - np.amax(x, dim, keepdims=True)
    if name == "softmax":
        e = np.exp(shifted)
        return e / np.sum(e, dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), dim, keepdims=True))


@pytest.mark.parametrize("dtype", ["float64", "float16"])
@pytest.mark.parametrize("shape", [(8, 8), (5,), (3, 4, 5), (8, 33), (1, 1)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_arrays_off_the_narrow_rows_give_numpys_passes_bit_for_bit(name, shape, dtype):
    x = (np.random.default_rng(1).standard_normal(shape) * 4).astype(dtype)
    x.flat[:3] = [np.inf, -0.0, np.nan][: x.size]
    forward = kernels._softmax_forward if name == "softmax" else kernels._log_softmax_forward
    for dim in range(-len(shape), len(shape)):
        with np.errstate(all="ignore"):
            got, want = forward(x, dim=dim), _numpy_passes(name, x, dim)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
        assert got is not x and not np.shares_memory(got, x)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_empty_inputs_give_empty_results_of_their_shape(name):
    forward = kernels._softmax_forward if name == "softmax" else kernels._log_softmax_forward
    for shape in [(0, 4), (4, 0), (0,)]:
        x = np.zeros(shape)
        out = forward(x, dim=-1)
        assert out.shape == shape and out.dtype == x.dtype and out is not x


def test_small_matrices_are_refused_by_the_narrow_rows_first_test():
    assert not kernels._narrow_rows(np.zeros((8, 8)), 1)  # too few rows
    assert not kernels._narrow_rows(np.zeros((31, 10)), 1)
    assert kernels._narrow_rows(np.zeros((32, 2)), -1)
    assert not kernels._narrow_rows(np.zeros((32, 1)), 1)  # (one column: nothing to gain)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_each_spelling_of_dim_gives_one_result_and_pytorchs_saved_dim(name):
    x = np.random.default_rng(2).standard_normal((3, 5))
    results = []
    for dim in (1, -1, np.int64(1)):
        out = getattr(lg, name)(lg.tensor(x, requires_grad=True), dim)
        theirs = getattr(torch, name)(torch.tensor(x, requires_grad=True), int(dim))
        assert out.grad_fn._saved_dim == theirs.grad_fn._saved_dim  # (-1: as an unsigned)
        results.append(out.detach().numpy().tobytes())
    assert results[0] == results[1] == results[2]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_refused_calls_raise_as_before(name):
    fn = getattr(lg, name)
    with pytest.raises(IndexError, match="Dimension out of range"):
        fn(lg.zeros(2, 3), 2)
    with pytest.raises(TypeError, match="dim must be a single int"):
        fn(lg.zeros(2, 3), True)
    with pytest.raises(NotImplementedError, match="not implemented for"):
        fn(lg.zeros(2, 3, dtype=lg.int64), 1)
    assert fn(lg.zeros(2, 3, dtype=lg.int64), 1, dtype=lg.float64).dtype == lg.float64
    assert fn(lg.nn.Parameter(lg.zeros(2, 3)), -1).grad_fn is not None


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_a_row_strided_narrow_matrix_gives_its_contiguous_copys_bits(name):
    """The row sums take the narrow path by the (contiguous) exponentials' layout, not the
    input's: a strided input and its copy give one result."""
    rows = lg.tensor(np.random.default_rng(3).standard_normal((80, 10)) * 4)[::2]
    assert not kernels._narrow_rows(rows._data, 1)
    strided = getattr(lg, name)(rows, 1)
    copied = getattr(lg, name)(lg.tensor(np.ascontiguousarray(rows._data)), 1)
    assert strided.numpy().tobytes() == copied.numpy().tobytes()
