"""Composite functions against PyTorch: values, dtypes, first and second derivatives."""

import numpy as np
import pytest

import leafgrad as lg
from tests._tolerance import assert_close

torch = pytest.importorskip("torch")

R = np.random.default_rng(5)
A = R.uniform(-1.5, 1.5, (3, 4))
B = R.uniform(0.5, 1.5, (3, 4))
C = R.uniform(-1.0, 1.0, (3, 4))
V = R.uniform(-1.0, 1.0, (4,))
SQ = R.uniform(-1.0, 1.0, (4, 4))
P = R.uniform(-1.0, 1.0, (5, 3))
Q = R.uniform(-1.0, 1.0, (4, 3))
DISTINCT = R.permutation(np.linspace(-2, 2, 12)).reshape(3, 4)

CASES = {
    "lerp": (lambda m, a, b: m.lerp(a, b, 0.3), A, B),
    "lerp_tensor_weight": (lambda m, a, b, c: m.lerp(a, b, c), A, B, C),
    "addcmul": (lambda m, a, b, c: m.addcmul(a, b, c, value=0.5), A, B, C),
    "addcdiv": (lambda m, a, b, c: m.addcdiv(a, c, b, value=2.0), A, B, C),
    "hypot": (lambda m, a, b: m.hypot(a, b), A, B),
    "exp2": (lambda m, a: m.exp2(a), A),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), A, C),
    "sinc": (lambda m, a: m.sinc(a), A),
    "deg2rad": (lambda m, a: m.deg2rad(a), A),
    "erfinv": (lambda m, c: m.erfinv(c * 0.9), C),
    "triu": (lambda m, a: m.triu(a, 1), A),
    "tril": (lambda m, a: m.tril(a, -1), A),
    "diagonal": (lambda m, a: m.diagonal(a, 1), SQ),
    "diagonal_dims": (lambda m, a: m.diagonal(a.reshape(2, 2, 3), 0, 0, 2), A),
    "diag_vector": (lambda m, v: m.diag(v, 1), V),
    "diag_vector_below": (lambda m, v: m.diag(v, -2), V),
    "diag_matrix": (lambda m, a: m.diag(a), SQ),
    "trace": (lambda m, a: m.trace(a), SQ),
    "sort": (lambda m, a: m.sort(a, dim=1, descending=True).values, DISTINCT),
    "topk": (lambda m, a: m.topk(a, 2, dim=0).values, DISTINCT),
    "masked_select": (lambda m, a: m.masked_select(a, a > 0), A),
    "repeat_interleave": (lambda m, a: m.repeat_interleave(a, 2, dim=1), A),
    "tile": (lambda m, v: m.tile(v, (2, 2)), V),
    "cdist": (lambda m, p, q: m.cdist(p, q), P, Q),
    "cdist_p1": (lambda m, p, q: m.cdist(p, q, p=1.0), P, Q),
    "cdist_p3": (lambda m, p, q: m.cdist(p, q, p=3.0), P, Q),
    "cdist_p0": (lambda m, p, q: m.cdist(p, q, p=0.0), P, Q),
    "cdist_inf": (lambda m, p, q: m.cdist(p, q, p=float("inf")), P, Q),
    "cross": (lambda m, p, q: m.cross(p[:4], q, dim=1), P, Q),
    "kron": (lambda m, a, v: m.kron(a[:2, :2], v[:3]), A, V),
    "meshgrid": (
        lambda m, v, w: sum(g * (i + 1) for i, g in enumerate(m.meshgrid(v, w[:3], indexing="xy"))),
        V,
        V,
    ),
    "std_mean": (lambda m, a: sum(m.std_mean(a, dim=1)), A),
    "var_mean": (lambda m, a: sum(m.var_mean(a, dim=0)), A),
    "fmax": (lambda m, a, c: m.fmax(a, c), A, C),
}


# PyTorch has no double backward for cdist ("_cdist_backward" is not differentiable).
FIRST_ORDER_ONLY = {"cdist", "cdist_p1", "cdist_p3", "cdist_p0", "cdist_inf"}


def _run(lib, case):
    fn, *arrays = CASES[case]
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    y = fn(lib, *xs)
    w = lib.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)))
    grads = lib.autograd.grad(
        (y * w).sum(), xs, create_graph=True, allow_unused=True, materialize_grads=True
    )
    if case in FIRST_ORDER_ONLY:
        return y, grads, None
    total = sum(
        ((g * g).sum() for g in grads if g.requires_grad), lib.tensor(0.0, dtype=lib.float64)
    )
    second = (
        lib.autograd.grad(total, xs, allow_unused=True, materialize_grads=True)
        if total.requires_grad
        else [lib.zeros_like(x) for x in xs]
    )
    return y, grads, second


@pytest.mark.parametrize("case", list(CASES))
def test_composite_matches_torch(case):
    ours, theirs = _run(lg, case), _run(torch, case)
    assert_close(ours[0], theirs[0].detach().numpy(), "direct")
    assert str(ours[0].dtype) == str(theirs[0].dtype)
    for part in (1,) if case in FIRST_ORDER_ONLY else (1, 2):
        for a, b in zip(ours[part], theirs[part]):
            assert_close(a, b.detach().numpy(force=True), "direct")


def test_sort_and_topk_give_named_values_and_int64_indices_like_torch():
    x = lg.tensor([[3.0, 1.0, 2.0]])
    values, indices = x.sort(dim=1)
    assert values.tolist() == [[1.0, 2.0, 3.0]] and indices.tolist() == [[1, 2, 0]]
    assert indices.dtype == lg.int64 and not indices.requires_grad
    top = lg.topk(x, 2)
    assert top.values.tolist() == [[3.0, 2.0]] and top.indices.tolist() == [[0, 2]]
    with pytest.raises(RuntimeError):
        lg.topk(x, 5)


def test_nan_to_num_and_count_nonzero_match_torch():
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, 1.5]
    a, b = lg.tensor(vals), torch.tensor(vals)
    np.testing.assert_array_equal(lg.nan_to_num(a).numpy(), torch.nan_to_num(b).numpy())
    np.testing.assert_array_equal(
        lg.nan_to_num(a, 1.0, 2.0, -2.0).numpy(), torch.nan_to_num(b, 1.0, 2.0, -2.0).numpy()
    )
    assert lg.count_nonzero(a).item() == torch.count_nonzero(b).item()


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: x.count_nonzero(),
        lambda m, x: x.count_nonzero(1),
        lambda m, x: x.count_nonzero(0, 2),  # dims as varargs, as PyTorch's method takes them
        lambda m, x: x.count_nonzero((0, -1)),
        lambda m, x: m.count_nonzero(x, dim=[1, 2]),
    ],
)
def test_count_nonzero_over_dims_matches_torch(call):
    x = np.array([[[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], [[4.0, 0.0, 0.0], [5.0, 6.0, 0.0]]])
    ours, theirs = call(lg, lg.tensor(x)), call(torch, torch.tensor(x))
    assert ours.dtype == lg.int64 and ours.tolist() == theirs.tolist()


def test_meshgrid_ij_matches_torch():
    x, y = [0.0, 1.0, 2.0], [5.0, 6.0]
    ours = lg.meshgrid(lg.tensor(x), lg.tensor(y), indexing="ij")
    theirs = torch.meshgrid(torch.tensor(x), torch.tensor(y), indexing="ij")
    for a, b in zip(ours, theirs):
        assert a.tolist() == b.tolist()


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
def test_triangles_keep_the_dtype(dtype):
    torch = pytest.importorskip("torch")
    for fn in ("tril", "triu"):
        ours = getattr(lg.ones(3, 3, dtype=getattr(lg, dtype)), fn)(1)
        theirs = getattr(torch.ones(3, 3, dtype=getattr(torch, dtype)), fn)(1)
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize(
    "shapes",
    [
        [(2, 1), (3,)],
        [2, (3, 1)],
        [],
        [(1,), (4, 1), [5, 1, 1]],
        [(0,), (1,)],
        [torch.Size([3, 1]), (1, 4)],
        [(2,), (3,)],
        [(-1,), (2,)],
        [(2, 3), (4, 2, 1)],
    ],
)
def test_broadcast_shapes_matches_torch(shapes):
    outcomes = []
    for lib in (lg, torch):
        try:
            result = lib.broadcast_shapes(*shapes)
            outcomes.append((type(result).__name__, tuple(result)))
        except Exception as exc:  # the type and message are compared
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize(("name", "diagonal"), [("tril", 0), ("tril", -1), ("triu", 2)])
def test_triangles_record_pytorchs_node(name, diagonal):
    x = np.arange(12.0).reshape(3, 4)
    ours = getattr(lg.tensor(x, requires_grad=True), name)(diagonal)
    theirs = getattr(torch.tensor(x, requires_grad=True), name)(diagonal)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == f"{name.capitalize()}Backward0"
    # PyTorch 2.13 shows a negative saved int as its unsigned 64-bit pattern; so does leafgrad
    assert ours.grad_fn._saved_diagonal == theirs.grad_fn._saved_diagonal == diagonal % 2**64
    assert ours.tolist() == theirs.tolist()


def _node_chain(y):
    names, node = [], y.grad_fn
    while node is not None and "AccumulateGrad" not in node.name():
        names.append(node.name())
        node = node.next_functions[0][0]
    return names


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: m.kron(x, x),
        lambda m, x: m.kron(x[0], x),
        lambda m, x: m.kron(x[:, 1:], x[:, ::2]),  # views as they are: no CloneBackward0
        lambda m, x: x.repeat_interleave(2),
        lambda m, x: m.repeat_interleave(x, 3, dim=-1),
        lambda m, x: x.repeat_interleave(m.tensor([1, 0]), dim=0),
    ],
)
def test_kron_and_repeat_interleave_record_pytorchs_nodes(fn):
    ours = fn(lg, lg.tensor(A[:2, :3], requires_grad=True))
    theirs = fn(torch, torch.tensor(A[:2, :3], requires_grad=True))
    assert _node_chain(ours) == _node_chain(theirs)
    assert ours.tolist() == theirs.tolist()


def test_broadcast_tensors_returns_a_tensor_already_of_the_shape_itself():
    # PyTorch expands only the tensors whose shape differs: a leaf stays a leaf (no
    # ExpandBackward0), so Normal(loc, scale) prints loc with requires_grad=True.
    for m in (lg, torch):
        x, y, row = m.zeros(2, 3, requires_grad=True), m.ones(2, 3), m.ones(3)
        a, b, c = m.broadcast_tensors(x, y, row)
        assert a is x and b is y and c is not row
        assert a.grad_fn is None and c.shape == (2, 3)
    make = lambda m: m.distributions.Normal(m.tensor([0.5], requires_grad=True), 1.0)
    assert repr(make(lg)) == repr(make(torch))
    assert (
        repr(make(lg)) == "Normal(loc: tensor([0.5000], requires_grad=True), scale: tensor([1.]))"
    )


def test_broadcast_tensors_of_shapes_that_do_not_broadcast_raise_pytorchs_error():
    for m in (lg, torch):
        with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match"):
            m.broadcast_tensors(m.zeros(2), m.zeros(3))


def test_kron_refuses_a_non_tensor_with_a_type_error():
    for m in (lg, torch):
        with pytest.raises(TypeError, match="kron"):
            m.kron([1.0, 2.0], m.ones(2))
        with pytest.raises(TypeError, match="kron"):
            m.kron(m.ones(2), 3.0)
