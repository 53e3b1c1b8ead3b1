"""Running reductions (cumprod, cummax, cummin, logcumsumexp), differences and the
trapezoidal rule against PyTorch: values, dtypes, first and second derivatives (float64,
zeros in cumprod included), forward mode, and errors."""

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close

rng = np.random.default_rng(11)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _r(*shape):
    return rng.standard_normal(shape)


def _zeros_at(shape, *flat_positions):
    v = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    v.reshape(-1)[list(flat_positions)] = 0.0
    return v


def _distinct(*shape):
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.3).reshape(shape)


CASES = {
    "cumprod": (lambda m, x: m.cumprod(x, 1), [_r(2, 5)]),
    "cumprod-one-zero": (lambda m, x: x.cumprod(-1), [_zeros_at((2, 5), 2, 5)]),
    "cumprod-two-zeros": (lambda m, x: m.cumprod(x, 0), [_zeros_at((5, 2), 2, 6, 3)]),
    "cumprod-all-zeros": (lambda m, x: m.cumprod(x, 0), [np.zeros((3, 2))]),
    "cumprod-dtype": (lambda m, x: m.cumprod(x.float(), 1, dtype=m.float64), [_r(2, 3)]),
    "cumprod-length-one": (lambda m, x: m.cumprod(x, 1), [_r(3, 1)]),
    "cummax": (lambda m, x: m.cummax(x, 1), [_distinct(3, 5)]),
    "cummin": (lambda m, x: x.cummin(dim=0).values, [_distinct(4, 3)]),
    "cummax-ties": (lambda m, x: m.cummax(x, -1)[0], [np.array([[1.0, 3.0, 2.0, 3.0, 0.5]])]),
    "logcumsumexp": (lambda m, x: m.logcumsumexp(x, -1), [_r(2, 6) * 3]),
    "logcumsumexp-dim0": (lambda m, x: x.logcumsumexp(0), [_r(4, 2)]),
    "diff": (lambda m, x: m.diff(x), [_r(2, 5)]),
    "diff-n-dim-prepend-append": (
        lambda m, x, p, a: m.diff(x, n=2, dim=0, prepend=p, append=a),
        [_r(3, 2), _r(1, 2), _r(2, 2)],
    ),
    "diff-n-beyond-the-size": (lambda m, x: x.diff(n=4), [_r(2, 3)]),
    "diff-n-0": (lambda m, x: m.diff(x, 0), [_r(3)]),
    "trapezoid-dx": (lambda m, y: (m.trapezoid(y), m.trapezoid(y, dx=0.5, dim=0)), [_r(3, 4)]),
    "trapezoid-x": (lambda m, y, x: m.trapezoid(y, x), [_r(2, 4), np.sort(_r(4))]),
    "trapezoid-x-broadcast": (
        lambda m, y, x: m.trapezoid(y, x, dim=0),
        [_r(3, 2), np.sort(_r(3, 2), axis=0)],
    ),
    "trapezoid-x-fewer-dims": (lambda m, y, x: m.trapezoid(y, x), [_r(2, 3, 4), _r(3, 4)]),
    "trapezoid-one-sample": (lambda m, y: m.trapezoid(y), [_r(2, 1)]),
    "trapz": (lambda m, y, x: (m.trapz(y, x), m.trapz(y, dx=2.0)), [_r(2, 3), _r(3)]),
    "cumulative_trapezoid-dx": (
        lambda m, y: (m.cumulative_trapezoid(y), m.cumulative_trapezoid(y, dx=3, dim=0)),
        [_r(3, 4)],
    ),
    "cumulative_trapezoid-x": (
        lambda m, y, x: m.cumulative_trapezoid(y, x),
        [_r(2, 5), np.sort(_r(5))],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_values_and_derivatives_match_torch(name, torch):
    fn, arrays = CASES[name]
    compare(fn, arrays, torch=torch)


@pytest.mark.parametrize("zeros", [(), (1,), (1, 3)])
def test_cumprod_gradient_without_a_graph_equals_the_differentiable_one(zeros):
    # Backward without create_graph takes the O(n) formula, with it the omitted products.
    x = lg.tensor(_zeros_at((2, 5), *zeros), requires_grad=True)
    w = lg.tensor(_r(2, 5))
    (fast,) = lg.autograd.grad((x.cumprod(1) * w).sum(), x)
    (full,) = lg.autograd.grad((x.cumprod(1) * w).sum(), x, create_graph=True)
    assert_close(fast, full.detach().numpy())


@pytest.mark.parametrize(
    "fn, x",
    [
        (lambda m, x: m.cummax(x, 1), np.array([[0.5, -1.0, 2.0, 1.5], [3.0, 2.5, -2.0, 4.0]])),
        (lambda m, x: (x * x).cummin(1), np.array([[1.0, -3.0, 2.0, -1.0, 0.5]])),
        (lambda m, x: x.cummax(0), np.array(1.5)),
        (lambda m, x: m.cummin(x[:, :0], 1), np.ones((2, 3))),
    ],
)
def test_cummax_and_cummin_are_one_node_saving_what_torch_saves(fn, x, torch):
    ours = fn(lg, lg.tensor(x, requires_grad=True))
    theirs = fn(torch, torch.tensor(x, requires_grad=True))
    node, tnode = ours.values.grad_fn, theirs.values.grad_fn
    assert node.name() == tnode.name()
    assert node._saved_dim == tnode._saved_dim
    assert node._saved_indices.tolist() == tnode._saved_indices.tolist()
    assert node._saved_self.shape == tnode._saved_self.shape
    compare(fn, [x], torch=torch)


def test_indices_of_cummax_changed_in_place_make_its_backward_raise_as_in_torch(torch):
    for m in (torch, lg):
        x = m.tensor([1.0, 3.0, 2.0], requires_grad=True) * 1
        values, indices = x.cummax(0)
        indices.add_(0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            values.sum().backward()


@pytest.mark.parametrize(
    "fn, x",
    [
        (lambda m, x: m.cumprod(x, 1), _zeros_at((2, 4), 1, 6)),
        (lambda m, x: m.cumprod(x, 0), _r(3, 2)),
        (lambda m, x: m.logcumsumexp(x, 1), _r(2, 4)),
        (lambda m, x: m.cummax(x, 1).values, _distinct(2, 4)),
    ],
)
def test_forward_mode_tangents_match_torch(fn, x, torch):
    t = _r(*x.shape)
    with lg.autograd.forward_ad.dual_level():
        ours = lg.autograd.forward_ad.unpack_dual(
            fn(lg, lg.autograd.forward_ad.make_dual(lg.tensor(x), lg.tensor(t)))
        ).tangent
    with torch.autograd.forward_ad.dual_level():
        theirs = torch.autograd.forward_ad.unpack_dual(
            fn(torch, torch.autograd.forward_ad.make_dual(torch.tensor(x), torch.tensor(t)))
        ).tangent
    assert_close(ours, theirs.numpy())


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.cumprod(m.tensor([1, 2, 3]), 0),
        lambda m: m.cumprod(m.tensor([1, 2], dtype=m.int32), 0),
        lambda m: m.cumprod(m.tensor([True, False, True]), 0),
        lambda m: m.cumprod(m.tensor([1.5, 2.0]), 0, dtype=m.int32),
        lambda m: m.cumprod(m.tensor(3), 0),
        lambda m: m.cummax(m.tensor([1, 3, 2, 3]), 0),
        lambda m: m.cummin(m.tensor([[4, 1], [1, 2]]), 0),
        lambda m: m.cummax(m.tensor([True, False, True]), 0),
        lambda m: m.cummax(m.tensor([1.0, float("nan"), 1.0, 3.0]), 0),
        lambda m: m.cummin(m.tensor([float("nan"), 1.0, -3.0]), 0),
        # every NaN moves the index (the latest NaN), nothing after one but another NaN
        lambda m: m.cummax(m.tensor([1.0, float("nan"), 3.0, float("nan"), 2.0]), 0),
        lambda m: m.cummin(m.tensor([[float("nan"), 2.0], [float("nan"), 1.0]]), 0),
        lambda m: m.cummax(m.tensor(2.0), 0),
        lambda m: m.cummin(m.ones(0, 2), 0),
        lambda m: m.logcumsumexp(m.tensor([-float("inf"), 1.0, float("inf")]), 0),
        lambda m: m.logcumsumexp(m.tensor(2.0, dtype=m.float64), 0),
        lambda m: m.diff(m.tensor([1, 5, 2])),
        lambda m: m.diff(m.tensor([True, False, False, True])),
        lambda m: m.diff(m.tensor([1, 2]), append=m.tensor([2.5])),
        lambda m: m.trapezoid(m.tensor([1, 2, 3])),
        lambda m: m.trapezoid(m.tensor([1, 2, 3]), m.tensor([1, 2, 4])),
        lambda m: m.trapezoid(m.ones(2, 0)),
        lambda m: m.trapezoid(m.ones(3), m.ones(3, dtype=m.float64)),
        lambda m: m.cumulative_trapezoid(m.tensor([1, 2, 3])),
        lambda m: m.cumulative_trapezoid(m.ones(2, 1)),
        lambda m: m.trapezoid(m.tensor([1, 2, 3]), dx=0.5),
        lambda m: m.cumprod(m.ones(0), 0),
        lambda m: m.logcumsumexp(m.ones(0, 2), 1),
    ],
)
def test_exact_values_and_dtypes_match_torch(call, torch):
    ours, theirs = call(lg), call(torch)
    ours, theirs = (
        (ours if isinstance(ours, tuple) else (ours,)),
        (theirs if isinstance(theirs, tuple) else (theirs,)),
    )
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype) and o.shape == tuple(t.shape)
        np.testing.assert_array_equal(o.numpy(), t.numpy())


def test_cummax_and_cummin_return_named_pairs():
    out = lg.cummax(lg.tensor([1.0, 3.0, 2.0]), 0)
    assert out.values.tolist() == [1.0, 3.0, 3.0] and out.indices.tolist() == [0, 1, 1]
    assert type(out).__name__ == "cummax" and type(lg.cummin(lg.ones(2), 0)).__name__ == "cummin"


def test_cumprod_and_cumsum_have_in_place_twins(torch):
    for m in (lg, torch):
        x = m.tensor([[1.0, 2.0, 3.0]])
        assert x.cumprod_(1) is x and x.tolist() == [[1.0, 2.0, 6.0]]
        assert x.cumsum_(1) is x and x.tolist() == [[1.0, 3.0, 9.0]]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.cumprod(m.ones(2, 3)),
        lambda m: m.cumprod(m.ones(2, 3), 2),
        lambda m: m.logcumsumexp(m.tensor([1, 2]), 0),
        lambda m: m.logcumsumexp(m.ones(2), 1),
        lambda m: m.cummax(m.ones(2), 1),
        lambda m: m.diff(m.tensor(1.0)),
        lambda m: m.diff(m.ones(3), n=-1),
        lambda m: m.diff(m.ones(2, 2), prepend=m.ones(2)),
        lambda m: m.diff(m.ones(2), prepend=m.tensor(0.0)),
        lambda m: m.trapezoid(m.ones(2, 3), m.ones(2)),
        lambda m: m.trapezoid(m.ones(2, 3), dim=2),
        lambda m: m.trapezoid(m.tensor(1.0)),
        lambda m: m.trapezoid(m.ones(3), m.ones(3), dx=1.0),
        lambda m: m.trapezoid(m.tensor([True, False])),
        lambda m: m.cumulative_trapezoid(m.ones(2, 3), m.ones(4)),
        lambda m: m.cumulative_trapezoid(m.tensor(1.0)),
    ],
)
def test_bad_arguments_raise_torchs_exception_type(call, torch):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(lg)


def test_cummax_and_cummin_write_into_a_pair_of_out_tensors(torch):
    results = []
    for m in (lg, torch):
        x = m.tensor([[1.0, 3.0, 2.0], [0.0, -1.0, 5.0]])
        values, indices = m.empty(0), m.empty(0, dtype=m.int64)
        out = m.cummax(x, 1, out=(values, indices))
        assert out[0] is values and out.indices is indices
        low = m.cummin(x, 0, out=(m.empty(2, 3), m.empty(2, 3, dtype=m.int64)))
        results.append((values.numpy(), indices.numpy(), low.values.numpy(), low[1].numpy()))
        with pytest.raises(TypeError):
            m.cummax(x, 1, out=values)
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.cumprod(x, 1),
        lambda m, x: m.logcumsumexp(x, 0),
        lambda m, x: m.cummin(x, 1).values,
        lambda m, x: m.diff(x, 2, 0),
        lambda m, x: m.trapezoid(x, dx=0.1),
        lambda m, x: m.trapezoid(x, m.linspace(0, 1, 4)),
        lambda m, x: m.cumulative_trapezoid(x, dim=0),
        lambda m, x: m.logaddexp2(x, x.flip(0)),
        lambda m, x: m.renorm(x, 2, 1, 0.5),
        lambda m, x: m.tensordot(x, x, ([0], [0])),
        lambda m, x: m.copysign(x, -x.flip(1)),
    ],
)
def test_float32_results_keep_the_dtype_and_match_torch(call, torch):
    x = _r(3, 4).astype(np.float32)
    ours, theirs = call(lg, lg.tensor(x)), call(torch, torch.tensor(x))
    assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
    assert_close(ours, theirs.numpy())


def _numba_on_and_off():
    """The compiled pass where numba is installed, and NumPy's widened copy."""
    from leafgrad.ops import _fused

    return [True, False] if _fused.available() else [False]


@pytest.mark.parametrize("compiled", _numba_on_and_off())
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_running_sums_and_products_accumulate_as_pytorch(torch, name, dtype, compiled, monkeypatch):
    """float32 carried in double and float16 in float, each running value rounded once:
    PyTorch's values to the bit along every dim, and its gradient (a reversed cumsum)."""
    from leafgrad.ops import _fused

    if not compiled:
        monkeypatch.setattr(_fused, "_numba", False)
    values = (1 + 0.01 * np.random.default_rng(3).standard_normal((16, 700))).astype(dtype)
    for dim in (1, 0, -1):
        want = getattr(torch, name)(torch.from_numpy(values), dim).numpy()
        got = getattr(lg, name)(lg.tensor(values), dim).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    x, t = lg.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    seed = np.random.default_rng(4).standard_normal(values.shape).astype(dtype)
    (got,) = lg.autograd.grad(lg.cumsum(x, 1), x, lg.tensor(seed))
    (want,) = torch.autograd.grad(torch.cumsum(t, 1), t, torch.from_numpy(seed))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_running_sums_in_another_dtype_round_the_input_first(torch):
    values = np.random.default_rng(5).standard_normal((4, 600))
    for name in ("cumsum", "cumprod"):
        want = getattr(torch, name)(torch.from_numpy(values), 1, dtype=torch.float32).numpy()
        got = getattr(lg, name)(lg.tensor(values), 1, dtype=lg.float32).numpy()
        np.testing.assert_array_equal(got, want)
        ints = np.arange(-6, 6).reshape(3, 4)
        want = getattr(torch, name)(torch.from_numpy(ints), 1)
        got = getattr(lg, name)(lg.tensor(ints), 1)
        assert got.dtype == lg.int64 and want.dtype == torch.int64
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_logcumsumexp_accumulates_as_pytorch(torch, dtype):
    """float32 carried in double and float16 in float, with infinities and a NaN in the
    rows: within an ulp of PyTorch's values (its exp/log1p and NumPy's may round apart on
    other CPUs; accumulated in the result's dtype they were 6-10 ulp off)."""
    x = (3 * np.random.default_rng(6).standard_normal((4, 300))).astype(dtype)
    x[0, 5], x[1, 7], x[2, 9] = np.inf, -np.inf, np.nan
    for dim in (0, 1):
        want = torch.logcumsumexp(torch.from_numpy(x), dim).numpy()
        got = lg.logcumsumexp(lg.tensor(x), dim).numpy()
        finite = np.isfinite(want)
        np.testing.assert_array_equal(got[~finite], want[~finite])
        np.testing.assert_array_max_ulp(
            got[finite], want[finite], maxulp=1 if dtype != "float64" else 4
        )
