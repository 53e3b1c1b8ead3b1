"""Edge cases of leafgrad.linalg against PyTorch: empty matrices, dtype rules and the
errors PyTorch raises (type and outcome), found by a differential survey."""

import math

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")


def _outcome(module, call):
    """``("ok", values, dtype)`` or ``("error", exception type name)``."""
    try:
        out = call(module)
    except Exception as error:  # the type is what we compare
        return ("error", type(error).__name__)
    return ("ok", np.asarray(out.detach().numpy()), str(out.dtype))


def _same(call):
    ours, theirs = _outcome(lg, call), _outcome(torch, call)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1] == theirs[1]
        return
    assert ours[2] == theirs[2]
    assert_close(ours[1], theirs[1])


@pytest.mark.parametrize("shape", [(2, 0, 3), (2, 3, 0), (0, 0)])
@pytest.mark.parametrize("ord", [1, -1, 2, -2, math.inf, -math.inf, "fro", "nuc"])
def test_matrix_norm_of_empty_matrices(shape, ord):
    """Positive orders give zeros (they raised amax's IndexError); negative ones raise."""
    _same(lambda m: m.linalg.matrix_norm(m.zeros(shape), ord=ord))


@pytest.mark.parametrize("ord", [-1, -2, -0.5, -math.inf, 0, 1])
def test_vector_norm_negative_order_over_an_empty_dim(ord):
    """A negative order over an empty dim has no identity: RuntimeError (was inf)."""
    _same(lambda m: m.linalg.vector_norm(m.zeros(2, 0), ord=ord, dim=1))
    _same(lambda m: m.norm(m.zeros(2, 0), p=ord, dim=1))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.linalg.vector_norm(m.arange(4), dtype=m.float64),
        lambda m: m.linalg.vector_norm(m.ones(3, dtype=m.float64), dtype=m.float32),
        lambda m: m.linalg.vector_norm(m.ones(3), dtype=m.float16),
        lambda m: m.linalg.vector_norm(m.ones(3), dtype=m.int64),
        lambda m: m.linalg.vector_norm(m.ones(3), dtype=m.float64),
        lambda m: m.norm(m.ones(3, dtype=m.float64), dtype=m.float32),
    ],
)
def test_vector_norm_dtype_rules(call):
    """An integer input or a narrowing dtype raises RuntimeError (both were cast)."""
    _same(call)


@pytest.mark.parametrize(
    ("a_dtype", "b_dtype"),
    [("float64", "float32"), ("float32", "float64"), ("float64", "int64"), ("int64", "float64")],
)
def test_solve_triangular_solves_in_the_dtype_of_a(a_dtype, b_dtype):
    """Mixed dtypes: PyTorch casts B to A's dtype (ours raised); an integer A is refused."""
    a = np.triu(np.arange(1.0, 10.0).reshape(3, 3))
    b = np.arange(6.0).reshape(3, 2)

    def call(m):
        A, B = m.tensor(a, dtype=getattr(m, a_dtype)), m.tensor(b, dtype=getattr(m, b_dtype))
        return m.linalg.solve_triangular(A, B, upper=True)

    _same(call)


def test_solve_triangular_mixed_dtype_gradients():
    """B's gradient comes back in B's dtype through the cast."""
    grads = []
    for m in (lg, torch):
        A = m.tensor(np.triu(np.ones((3, 3))) + np.eye(3), requires_grad=True)
        B = m.ones(3, 2, requires_grad=True)
        m.linalg.solve_triangular(A, B, upper=True).sin().sum().backward()
        grads.append((A.grad, B.grad))
    for ours, theirs in zip(*grads):
        assert str(ours.dtype) == str(theirs.dtype)
        assert_close(ours.numpy(), theirs.numpy())


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("b_shape", "a_shape"), [((2, 3, 2), (3, 3)), ((2, 1, 3, 2), (4, 3, 3))])
def test_triangular_solve_copies_a_with_the_broadcast_batch(b_shape, a_shape):
    """cloned_coefficient has the broadcast batch dims (it kept A's shape)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(a_shape) + 3 * np.eye(3), rng.standard_normal(b_shape)
    ours = lg.triangular_solve(lg.tensor(b), lg.tensor(a))
    theirs = torch.triangular_solve(torch.tensor(b), torch.tensor(a))
    for x, y in zip(ours, theirs):
        assert tuple(x.shape) == tuple(y.shape)
        assert_close(x.numpy(), y.numpy())


@pytest.mark.filterwarnings("ignore")
def test_triangular_solve_refuses_mixed_dtypes():
    """The legacy function keeps refusing what linalg.solve_triangular casts."""
    _same(lambda m: m.triangular_solve(m.ones(3, 2), m.eye(3, dtype=m.float64)))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.linalg.cross(m.ones(2, 1, 3), m.ones(4, 3)),
        lambda m: m.linalg.cross(m.ones(2, 1, 3), m.ones(1, 4, 3)),
        lambda m: m.linalg.vecdot(m.arange(6).reshape(2, 3), m.arange(3)),
        lambda m: m.linalg.vecdot(m.ones(3, dtype=m.bool), m.ones(3, dtype=m.bool)),
        lambda m: m.linalg.vecdot(m.ones(2, 3), m.ones(3)),
        lambda m: m.linalg.vander(m.ones(3), N=0),
        lambda m: m.linalg.vander(m.ones(3), N=1),
        lambda m: m.linalg.vander(m.ones(1)),
        lambda m: m.linalg.vander(m.ones(3, dtype=m.bool)),
        lambda m: m.linalg.vander(m.arange(3), N=4),
    ],
)
def test_cross_vecdot_vander_refusals(call):
    """cross of different ranks, vecdot of integers, vander with N < 2 or of bools raise
    RuntimeError in PyTorch (all gave values here)."""
    _same(call)


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((5, 3), (2, 5, 2)), ((2, 5, 3), (5, 2)), ((2, 5, 3), (1, 5, 2)), ((1, 5, 3), (2, 5, 2)),
     ((2, 5, 3), (2, 5)), ((2, 5, 3), (5,)), ((5, 3), (5,))],
)  # fmt: skip
def test_lstsq_rank_rule(a_shape, b_shape):
    """B may have A's rank or one less (then a batch of vectors); more raises."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    _same(lambda m: m.linalg.lstsq(m.tensor(a), m.tensor(b)).solution)


def test_ranks_are_zero_dim_arrays():
    """A single matrix's rank is a 0-d tensor whose numpy() is an ndarray, not np.int64."""
    a = lg.eye(3, dtype=lg.float64)
    for rank in (lg.linalg.matrix_rank(a), lg.linalg.lstsq(a, a, driver="gelsd").rank):
        assert isinstance(rank.numpy(), np.ndarray)
        assert rank.numpy().shape == () and rank.item() == 3
