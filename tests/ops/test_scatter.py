"""scatter (src, value, reduce=) and scatter_add, with their in-place twins, against
PyTorch: values, dtypes, first and second derivatives (float64), warnings and errors."""

import warnings

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close

rng = np.random.default_rng(5)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _r(*shape):
    return rng.standard_normal(shape)


def _index(m, rows):
    return m.tensor(rows)


CASES = {
    "scatter-src": (
        lambda m, x, s: m.scatter(x, 0, _index(m, [[0, 1, 2], [2, 0, 1]]), s),
        [_r(3, 4), _r(2, 3)],
    ),
    "scatter-src-dim1-method": (
        lambda m, x, s: x.scatter(1, _index(m, [[3, 0], [1, 2]]), s),
        [_r(2, 4), _r(2, 2)],
    ),
    "scatter-src-negative-dim": (
        lambda m, x, s: m.scatter(x, -1, _index(m, [[1], [0]]), s),
        [_r(2, 3), _r(2, 1)],
    ),
    "scatter-value": (
        lambda m, x: (
            m.scatter(x, 1, _index(m, [[0, 2], [1, 1]]), 1.5),
            x.scatter(0, _index(m, [[1, 0]]), value=-2),
        ),
        [_r(2, 3)],
    ),
    "scatter_add": (
        lambda m, x, s: m.scatter_add(x, 0, _index(m, [[0, 1, 0], [0, 2, 0]]), s),
        [_r(3, 3), _r(2, 3)],
    ),
    "scatter_add-method-repeats": (
        lambda m, x, s: x.scatter_add(1, _index(m, [[1, 1, 1, 0]]), s) * x,
        [_r(1, 3), _r(1, 4)],
    ),
    **{
        f"scatter_reduce-{r}-{inc}": (
            lambda m, x, s, r=r, inc=inc: m.scatter_reduce(
                x, 0, _index(m, [0, 1, 0, 1, 2]), s, r, include_self=inc
            ),
            [np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, -1.0, 2.0, 7.0, 3.0])],
        )
        for r in ("sum", "prod", "mean", "amax", "amin")
        for inc in (True, False)
    },
    "scatter_reduce-prod-zeros": (
        lambda m, x, s: x.scatter_reduce(1, _index(m, [[0, 0, 1, 1, 2]]), s, "prod"),
        [np.array([[0.0, 2.0, 3.0]]), np.array([[3.0, 0.0, 0.0, 1.5, 2.0]])],
    ),
    "scatter_reduce-amax-ties-2d": (
        lambda m, x, s: m.scatter_reduce(x, -1, _index(m, [[1, 1], [0, 0]]), s, "amax"),
        [np.array([[1.0, 2.0], [3.0, 0.0]]), np.array([[2.0, 2.0], [3.0, -1.0]])],
    ),
    "scatter-then-nonlinear": (
        lambda m, x, s: m.scatter(x.sin(), 0, _index(m, [[1, 0]]), s * s).exp(),
        [_r(2, 2), _r(1, 2)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_derivatives_match_torch(name, torch):
    fn, arrays = CASES[name]
    compare(fn, arrays, torch=torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x, s: x.scatter_add(1, m.tensor([[2, 0], [1, 1]]), s),
        lambda m, x, s: (x * 1).scatter_add_(0, m.tensor([[0, 1], [0, 0]]), s),
        lambda m, x, s: x[0, 0].scatter_add(0, m.tensor([0]), s[0, :1]),
    ],
)
def test_scatter_add_and_its_twin_are_one_node_as_in_torch(call, torch):
    x, s = _r(2, 3), _r(2, 2)
    ours = call(lg, lg.tensor(x, requires_grad=True), lg.tensor(s, requires_grad=True))
    theirs = call(torch, torch.tensor(x, requires_grad=True), torch.tensor(s, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "ScatterAddBackward0"
    assert ours.grad_fn._saved_dim == theirs.grad_fn._saved_dim
    assert ours.grad_fn._saved_index.tolist() == theirs.grad_fn._saved_index.tolist()
    compare(call, [x, s], torch=torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[0, 1, 2]]), 2.5),
        lambda m: m.scatter(m.zeros(3, dtype=m.int64), 0, m.tensor([1]), 2.7),
        lambda m: m.scatter(m.zeros(3, dtype=m.int64), 0, m.tensor([1]), -2.7),
        lambda m: m.scatter(m.zeros(3, 4), 1, m.tensor([[0, 0]]), m.tensor([[1.0, 2.0]])),
        lambda m: m.scatter(m.ones(3, 4), 0, m.tensor([[0, 0], [1, 0]]), 3.0, reduce="add"),
        lambda m: m.scatter(
            m.ones(3, 4) * 2, 0, m.tensor([[0, 0], [0, 1]]), 3.0, reduce="multiply"
        ),
        lambda m: m.scatter(m.zeros(2, dtype=m.int64), 0, m.tensor([0, 0]), 2.5, reduce="add"),
        lambda m: m.scatter(m.tensor(1.0), 0, m.tensor(0), 5.0),
        lambda m: m.scatter(m.tensor([1.0, 2.0]), 0, m.tensor(1), 5.0),
        lambda m: m.scatter(m.tensor(1.0), 0, m.tensor([0]), m.tensor([5.0])),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.zeros(0, 4, dtype=m.int64), 2.0),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[1]], dtype=m.int32), 1.0),
        lambda m: m.scatter_add(m.tensor(1.0), 0, m.tensor([0, 0]), m.tensor([5.0, 3.0])),
        lambda m: m.scatter_add(
            m.zeros(2, 3, dtype=m.int64), 1, m.tensor([[2, 2]]), m.ones(1, 2, dtype=m.int64)
        ),
        *(
            lambda m, r=r, inc=inc: m.scatter_reduce(
                m.tensor([1, -2, 3]),
                0,
                m.tensor([0, 0, 2, 0]),
                m.tensor([4, 1, -5, -3]),
                r,
                include_self=inc,
            )
            for r in ("sum", "prod", "mean", "amax", "amin")
            for inc in (True, False)
        ),
        lambda m: m.scatter_reduce(
            m.tensor([True, False]), 0, m.tensor([1]), m.tensor([True]), "amax"
        ),
        lambda m: m.scatter_reduce(
            m.tensor(2.0), 0, m.tensor([0, 0]), m.tensor([3.0, 4.0]), "prod"
        ),
        lambda m: m.scatter_reduce(
            m.tensor([1.0, 2.0]), 0, m.tensor([0, 0]), m.tensor([float("nan"), 4.0]), "amax"
        ),
        lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0, 1]), m.tensor([5.0, -2.0]), "max"),
        lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0, 1]), m.tensor([5.0, -2.0]), "min"),
    ],
)
def test_exact_values_and_dtypes_match_torch(call, torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ours, theirs = call(lg), call(torch)
    assert str(ours.dtype) == str(theirs.dtype) and ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_reduce_with_a_tensor_src_warns_and_has_no_derivative(torch):
    for m in (lg, torch):
        x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        src = m.full((1, 3), 2.0, dtype=m.float64)
        with pytest.warns(UserWarning, match="deprecated"):
            out = m.scatter(x, 0, m.tensor([[1, 0, 1]]), src, reduce="multiply")
        assert out.tolist() == [[1.0, 2.0, 1.0], [2.0, 1.0, 2.0]]
        assert out.requires_grad
        with pytest.raises(RuntimeError, match="scatter"):
            out.sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning for a number
            out = m.scatter(x, 0, m.tensor([[1]]), 2.0, reduce="add")
        with pytest.raises(RuntimeError, match="scatter"):
            out.sum().backward()


def test_in_place_twins_write_into_the_tensor_and_keep_gradients(torch):
    results = []
    for m in (lg, torch):
        leaf = m.tensor(_r(3, 2) if m is lg else results[0][0], requires_grad=True)
        src = m.tensor([[10.0, 20.0]], dtype=m.float64, requires_grad=True)
        x = leaf * 1
        assert x.scatter_(0, m.tensor([[2, 0]]), src) is x
        assert x.scatter_add_(1, m.tensor([[1], [1], [0]]), m.ones(3, 1, dtype=m.float64)) is x
        assert x.scatter_(1, m.tensor([[0]]), -1.0) is x
        x.sum().backward()
        results.append(
            (leaf.detach().numpy(), x.detach().numpy(), leaf.grad.numpy(), src.grad.numpy())
        )
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.scatter(m.zeros(3), 0, m.tensor([-1]), 1.0),
        lambda m: m.scatter(m.zeros(3), 0, m.tensor([3]), 1.0),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[0] * 6]), m.ones(2, 5)),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[0, 0, 0]]), m.ones(1, 2)),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([0]), m.ones(2, 5)),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[0]]), m.tensor(7.0)),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[0.0]]), 1.0),
        lambda m: m.scatter(m.zeros(3, 4), 2, m.tensor([[0]]), 1.0),
        lambda m: m.scatter(m.zeros(3, 4), 0, m.tensor([[0]]), 1.0, reduce="mean"),
        lambda m: m.scatter_add(m.zeros(3, 4), 0, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)),
        lambda m: m.scatter_add(m.zeros(3, 4), 0, m.tensor([[5]]), m.ones(1, 1)),
        lambda m: m.scatter_add(m.zeros(3, 4), 0, m.tensor([[0]]), 1.0),
        lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0]), m.ones(1), "add"),
        lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([3]), m.ones(1), "sum"),
        lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0]), m.ones(1, dtype=m.float64), "sum"),
        lambda m: m.scatter_reduce(m.zeros(3), 0, m.tensor([0]), 1.0, "sum"),
    ],
)
def test_bad_arguments_raise_torchs_exception_type(call, torch):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)


def test_scatter_reduce_forward_mode_matches_torch(torch):
    x, s, t_x, t_s = _r(4), _r(5), _r(4), _r(5)
    for reduce in ("sum", "mean", "amax", "amin"):
        tangents = []
        for m in (lg, torch):
            fwd = m.autograd.forward_ad
            with fwd.dual_level():
                a = fwd.make_dual(m.tensor(x), m.tensor(t_x))
                b = fwd.make_dual(m.tensor(s), m.tensor(t_s))
                out = m.scatter_reduce(a, 0, m.tensor([0, 1, 0, 1, 2]), b, reduce)
                tangents.append(fwd.unpack_dual(out).tangent.numpy())
        assert_close(*tangents)


def test_scatter_reduce_in_place_twin(torch):
    results = []
    for m in (lg, torch):
        x = m.tensor([1.0, 2.0, 3.0])
        assert x.scatter_reduce_(0, m.tensor([0, 0]), m.tensor([5.0, 4.0]), "amin") is x
        results.append(x.numpy())
    np.testing.assert_array_equal(*results)


def test_scatter_reduce_prod_refuses_double_backward_where_zeros_meet(torch):
    for m in (lg, torch):
        x = m.tensor([2.0, 3.0], dtype=m.float64, requires_grad=True)
        src = m.tensor([0.0, 0.0, 4.0], dtype=m.float64, requires_grad=True)
        out = m.scatter_reduce(x, 0, m.tensor([0, 0, 1]), src, "prod")
        _, g_src = m.autograd.grad(out.sum(), (x, src), create_graph=True)
        assert g_src.tolist() == [0.0, 0.0, 3.0]
        with pytest.raises(RuntimeError):
            m.autograd.grad(g_src.sum(), src)
