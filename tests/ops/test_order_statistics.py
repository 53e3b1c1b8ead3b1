"""median, nanmedian, kthvalue, mode, quantile, nanquantile, nansum and nanmean against
PyTorch: values, dtypes, the returned (values, indices) namedtuples, gradients to second
order, NaN handling and the errors raised on bad input."""

import math
import pickle

import numpy as np
import pytest

import leafgrad as lg
from tests._against_torch import compare
from tests._tolerance import assert_close

NAN = math.nan
RNG = np.random.default_rng(3)
X34 = RNG.permutation(12).reshape(3, 4) * 0.5 - 2.0  # distinct: indices are well defined
X345 = RNG.standard_normal((3, 4, 5))


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _same(ours, theirs, kind="direct"):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert_close(ours, theirs.detach().numpy(), kind)


# ----------------------------------------------------------------------------- selection
SELECTIONS = {
    "median-all": lambda m, x: m.median(x),
    "median-dim": lambda m, x: m.median(x, 1),
    "median-dim-keepdim": lambda m, x: x.median(dim=0, keepdim=True),
    "nanmedian-all": lambda m, x: x.nanmedian(),
    "nanmedian-dim": lambda m, x: m.nanmedian(x, -1, True),
    "kthvalue": lambda m, x: m.kthvalue(x, 2),
    "kthvalue-dim0-keepdim": lambda m, x: x.kthvalue(3, 0, True),
    "mode": lambda m, x: m.mode(x),
    "mode-dim0": lambda m, x: x.mode(dim=0),
}


@pytest.mark.parametrize("name", SELECTIONS)
def test_selection_values_indices_and_gradients_match_torch(name, torch):
    fn = SELECTIONS[name]
    compare(fn, [X34], torch=torch)
    ours, theirs = fn(lg, lg.tensor(X34)), fn(torch, torch.tensor(X34))
    if isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__
        assert type(ours).__module__ == "torch.return_types"
        assert ours._fields == ("values", "indices")
        assert np.array_equal(ours.indices.numpy(), theirs.indices.numpy())
        assert ours.indices.dtype == lg.int64


def test_median_of_an_even_count_is_the_lower_median(torch):
    for m in (lg, torch):
        assert m.median(m.tensor([4.0, 1.0, 3.0, 2.0])).item() == 2.0
        assert m.tensor([[4, 1, 3, 2]]).median(1).values.tolist() == [2]


def test_whole_tensor_median_shares_its_gradient_among_ties(torch):
    x = [1.0, 2.0, 2.0, 3.0, 2.0]
    for m in (lg, torch):
        t = m.tensor(x, requires_grad=True)
        m.median(t).backward()
        assert t.grad.tolist() == pytest.approx([0.0, 1 / 3, 1 / 3, 0.0, 1 / 3])


def test_per_dim_median_sends_its_gradient_to_the_returned_index():
    x = lg.tensor([[1.0, 2.0, 2.0, 3.0]], requires_grad=True)
    values, indices = lg.median(x, 1)
    values.sum().backward()
    expected = np.zeros((1, 4))
    expected[0, indices.item()] = 1.0
    assert np.array_equal(x.grad.numpy(), expected)
    assert x[0, indices.item()].item() == values.item()


def test_nan_handling_matches_torch(torch):
    data = [[1.0, NAN, 3.0, NAN, 2.0], [NAN] * 5, [5.0, 4.0, 3.0, 2.0, 1.0]]
    for fn in (
        lambda m, x: m.median(x, 1),
        lambda m, x: m.nanmedian(x, 1),
        lambda m, x: m.kthvalue(x, 5, 1),
    ):
        ours, theirs = fn(lg, lg.tensor(data)), fn(torch, torch.tensor(data))
        _same(ours.values, theirs.values)
        assert ours.indices.tolist() == theirs.indices.tolist()
    for op in ("median", "nanmedian"):
        for row in ([1.0, NAN, 3.0, 4.0], [NAN, NAN]):
            _same(getattr(lg, op)(lg.tensor(row)), getattr(torch, op)(torch.tensor(row)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_kthvalue_among_ties_returns_torchs_index(torch, dtype):
    # PyTorch's quickselect decides which of equal values it returns (not a stable sort).
    rng = np.random.default_rng(0)
    for trial in range(150):
        n = int(rng.integers(1, 30))
        x = rng.integers(0, 4, (3, n)).astype(dtype)
        if dtype != "int64" and trial % 3 == 0:
            x[rng.random(x.shape) < 0.2] = NAN
        if dtype != "int64" and trial % 4 == 0:
            x[x == 0] = -0.0
        for dim in (0, 1):
            k = int(rng.integers(1, x.shape[dim] + 1))
            ours, theirs = lg.tensor(x).kthvalue(k, dim), torch.tensor(x).kthvalue(k, dim)
            _same(ours.values, theirs.values)
            assert ours.indices.tolist() == theirs.indices.tolist()


def test_mode_picks_the_smallest_of_the_most_frequent_and_its_last_index(torch):
    data = [[1.0, 1, 1, 2, 2], [3, 1, 3, 1, 3], [2, 1, 2, 1, 0], [1, NAN, NAN, 2, 2]]
    ours, theirs = lg.mode(lg.tensor(data)), torch.mode(torch.tensor(data))
    _same(ours.values, theirs.values)
    assert ours.indices.tolist() == theirs.indices.tolist()
    assert lg.mode(lg.tensor([True, False, True])).indices.item() == 2


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32"])
def test_selection_keeps_the_input_dtype(dtype, torch):
    data = [[5, 3, 1, 2], [0, 7, 7, 1]]
    for fn in (
        lambda m, x: m.median(x),
        lambda m, x: m.median(x, 1).values,
        lambda m, x: m.kthvalue(x, 1).values,
        lambda m, x: m.mode(x).values,
    ):
        ours = fn(lg, lg.tensor(data, dtype=getattr(lg, dtype)))
        theirs = fn(torch, torch.tensor(data, dtype=getattr(torch, dtype)))
        _same(ours, theirs)


def test_selection_of_zero_dim_and_empty_tensors_matches_torch(torch):
    for fn in (
        lambda m: m.median(m.tensor(3.0), 0),
        lambda m: m.kthvalue(m.tensor(2.0), 1),
        lambda m: m.mode(m.tensor(2.0)),
        lambda m: m.median(m.empty(0, 3), 1),
        lambda m: m.mode(m.empty(2, 0), 0),
    ):
        ours, theirs = fn(lg), fn(torch)
        _same(ours.values, theirs.values)
        assert tuple(ours.indices.shape) == tuple(theirs.indices.shape)
    assert math.isnan(lg.median(lg.tensor([])).item())


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.median(m.empty(0, 3), 0), IndexError),
        (lambda m: m.median(m.tensor(3.0), 1), IndexError),
        (lambda m: m.median(m.tensor([True, False])), NotImplementedError),
        (lambda m: m.kthvalue(m.tensor([1.0, 2.0]), 3), RuntimeError),
        (lambda m: m.kthvalue(m.tensor([1.0, 2.0]), 0), RuntimeError),
        (lambda m: m.kthvalue(m.tensor([1.0, 2.0]), 1.0), TypeError),
        (lambda m: m.kthvalue(m.empty(2, 0), 1, 1), IndexError),
        (lambda m: m.mode(m.tensor([])), IndexError),
        (lambda m: m.mode(m.empty(2, 0), 1), IndexError),
    ],
)
def test_selection_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


def test_returned_namedtuples_pickle_and_unpack():
    values, indices = lg.kthvalue(lg.tensor([3.0, 1.0, 2.0]), 2)
    assert (values.item(), indices.item()) == (2.0, 2)
    result = lg.median(lg.tensor([[3.0, 1.0, 2.0]]), 1)
    assert result[0] is result.values and result[1] is result.indices
    assert not result.indices.requires_grad and result.indices.grad_fn is None
    assert "values" in repr(result)
    assert pickle.loads(pickle.dumps(tuple(result)))[1].tolist() == [2]


def test_grad_fn_names_match_torch(torch):
    x = RNG.standard_normal((2, 3))
    for fn in (
        lambda m, t: m.median(t),
        lambda m, t: m.median(t, 1).values,
        lambda m, t: m.nanmedian(t),
        lambda m, t: m.nanmedian(t, 0).values,
        lambda m, t: m.kthvalue(t, 1).values,
        lambda m, t: m.mode(t).values,
    ):
        ours = fn(lg, lg.tensor(x, requires_grad=True)).grad_fn.name()
        assert ours == fn(torch, torch.tensor(x, requires_grad=True)).grad_fn.name()


# ----------------------------------------------------------------------------- quantiles
INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
def test_quantile_values_and_gradients_match_torch(op, interpolation, torch):
    for q, dim, keepdim in [
        (0.3, None, False),
        (0.5, 1, False),
        (1.0, -1, True),
        ("tensor", 0, False),
        ("tensor", None, True),
        ("scalar-tensor", 2, False),
    ]:

        def fn(m, x, q=q, dim=dim, keepdim=keepdim):
            if q == "tensor":
                q = m.tensor([0.0, 0.25, 0.5, 0.9], dtype=m.float64)
            elif q == "scalar-tensor":
                q = m.tensor(0.7, dtype=m.float64)
            f = getattr(m, op)
            return f(x, q, dim=dim, keepdim=keepdim, interpolation=interpolation)

        compare(fn, [X345], torch=torch)


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
def test_linear_quantiles_are_differentiable_in_q_as_in_torch(op, torch):
    q = np.array([0.1, 0.45, 0.8])
    data = X345.copy()
    data[1, 2, 3] = NAN
    data[2, :, 1] = NAN  # a row (along dim 1) of NaNs only
    for dim in (None, 1):
        compare(lambda m, x, q, dim=dim: getattr(m, op)(x, q, dim), [X345, q], torch=torch)
        for interpolation in ("linear", "nearest"):
            grads = []
            for m in (lg, torch):
                qt = m.tensor(q, requires_grad=True)
                out = getattr(m, op)(m.tensor(data), qt, dim, interpolation=interpolation)
                grads.append(qt.grad if not out.requires_grad else None)
                if out.requires_grad:
                    out.sum().backward()
                    grads[-1] = qt.grad
            assert (grads[0] is None) == (grads[1] is None)
            if grads[0] is not None:
                _same(grads[0], grads[1])


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
def test_quantile_with_nans_matches_torch_in_float32(op, torch):
    data = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    data[0, 1, 2] = NAN
    data[2, 2, :] = NAN
    q = [0.1, 0.5, 0.77]
    for dim in (None, 0, 1, 2):
        for interpolation in INTERPOLATIONS:
            ours = getattr(lg, op)(lg.tensor(data), lg.tensor(q), dim, interpolation=interpolation)
            theirs = getattr(torch, op)(
                torch.tensor(data), torch.tensor(q), dim, interpolation=interpolation
            )
            _same(ours, theirs)


def test_quantile_of_a_zero_dim_tensor_is_that_value(torch):
    for m in (lg, torch):
        assert m.quantile(m.tensor(3.0), 0.3).item() == 3.0
        assert m.quantile(m.tensor(3.0), 0.3, dim=0).shape == ()


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.quantile(m.arange(6), 0.5),
        lambda m: m.quantile(m.arange(6.0), 1.5),
        lambda m: m.quantile(m.arange(6.0), -0.1),
        lambda m: m.quantile(m.arange(6.0), m.tensor([0.1, 2.0])),
        lambda m: m.quantile(m.arange(6.0), m.tensor([0.5], dtype=m.float64)),
        lambda m: m.quantile(m.arange(6.0), m.tensor([[0.5]])),
        lambda m: m.quantile(m.tensor([]), 0.5),
        lambda m: m.nanquantile(m.empty(2, 0), 0.5, dim=0),
        lambda m: m.quantile(m.arange(6.0), 0.5, interpolation="cubic"),
    ],
)
def test_quantile_errors_are_runtime_errors_as_in_torch(call, torch):
    for m in (lg, torch):
        with pytest.raises(RuntimeError):
            call(m)


# ----------------------------------------------------------------------------- nansum, nanmean
def test_nansum_and_nanmean_ignore_nans_in_values_and_gradients(torch):
    data = X345.copy()
    data[0, 1, 2] = data[2, 2, :] = NAN
    for fn in (
        lambda m, x: m.nansum(x),
        lambda m, x: x.nansum((0, 2)),
        lambda m, x: m.nansum(x, 1, keepdim=True),
        lambda m, x: m.nanmean(x),
        lambda m, x: x.nanmean(-1),
        lambda m, x: m.nanmean(x, (0, 1), True),
    ):
        ours, theirs = lg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        a, b = fn(lg, ours), fn(torch, theirs)
        _same(a, b)
        a.sum().backward()
        b.sum().backward()
        _same(ours.grad, theirs.grad)
    compare(lambda m, x: m.nanmean(x, 1), [X345], torch=torch)


def test_nansum_and_nanmean_dtypes_match_torch(torch):
    for fn in (
        lambda m: m.nansum(m.tensor([1, 2])),
        lambda m: m.nansum(m.tensor([True, True])),
        lambda m: m.nansum(m.tensor([1.0, NAN]), dtype=m.float64),
        lambda m: m.nanmean(m.tensor([1.0, 2.0]), dtype=m.float64),
        lambda m: m.nanmean(m.tensor([NAN])),
        lambda m: m.nanmean(m.empty(0)),
    ):
        _same(fn(lg), fn(torch))
    for m in (lg, torch):
        with pytest.raises(RuntimeError):
            m.nanmean(m.tensor([1, 2]))
        with pytest.raises(RuntimeError):
            m.nanmean(m.tensor([1.0, 2.0]), dtype=m.int64)


def test_saved_attributes_match_torch(torch):
    x = RNG.standard_normal((2, 3))
    names = ["_saved_self", "_saved_result", "_saved_indices", "_saved_dim", "_saved_keepdim"]
    for fn in (
        lambda m, t: m.median(t),
        lambda m, t: m.nanmedian(t, 1).values,
        lambda m, t: m.kthvalue(t, 2).values,
        lambda m, t: m.mode(t, 0).values,
        lambda m, t: m.nansum(t, 1),
    ):
        ours = fn(lg, lg.tensor(x, requires_grad=True)).grad_fn
        theirs = fn(torch, torch.tensor(x, requires_grad=True)).grad_fn
        assert [hasattr(ours, n) for n in names] == [hasattr(theirs, n) for n in names]
    values, indices = lg.kthvalue(lg.tensor(x, requires_grad=True), 2)
    assert np.array_equal(values.grad_fn._saved_indices.numpy(), indices.numpy())


def test_forward_mode_through_an_integer_count_keeps_float64_precision():
    fwAD = lg.autograd.forward_ad
    x = lg.tensor([[1.1, 2.3, 3.7]], dtype=lg.float64)
    t = lg.tensor([[0.3, 0.7, -1.1]], dtype=lg.float64)
    with fwAD.dual_level():
        mean = lg.nanmean(fwAD.make_dual(x, t), 1)
        tangent = fwAD.unpack_dual(mean).tangent
    assert tangent.dtype == lg.float64
    assert abs(tangent.item() - (-0.1 / 3)) < 1e-15


def test_mode_matches_torch_on_random_integer_valued_rows(torch):
    for _ in range(50):
        data = RNG.integers(0, 4, (3, int(RNG.integers(1, 9)), 2)).astype(np.float32)
        for dim in (0, 1, 2):
            ours, theirs = lg.mode(lg.tensor(data), dim), torch.mode(torch.tensor(data), dim)
            _same(ours.values, theirs.values)
            assert ours.indices.tolist() == theirs.indices.tolist()


OUT_CALLS = {
    "median": lambda m, x, e, i: m.median(x, 1, out=(e, i)),
    "nanmedian-keepdim": lambda m, x, e, i: m.nanmedian(x, 0, True, out=(e, i)),
    "kthvalue": lambda m, x, e, i: m.kthvalue(x, 2, out=(e, i)),
    "mode": lambda m, x, e, i: m.mode(x, 1, out=(e, i)),
}


@pytest.mark.parametrize("name", OUT_CALLS)
def test_out_pairs_are_written_and_returned_as_torch_does(name, torch):
    results = []
    for m in (lg, torch):
        values, indices = m.empty(0, dtype=m.float64), m.empty(0, dtype=m.int64)
        got = OUT_CALLS[name](m, m.tensor(X34), values, indices)
        assert type(got).__name__ == f"{name.split('-')[0]}_out"
        assert got.values is values and got.indices is indices
        results.append(got)
        with pytest.raises(RuntimeError):  # not differentiable with out=, as in PyTorch
            x = m.tensor(X34, requires_grad=True)
            OUT_CALLS[name](m, x, m.empty(0, dtype=m.float64), m.empty(0, dtype=m.int64))
    _same(results[0].values, results[1].values)
    assert results[0].indices.tolist() == results[1].indices.tolist()


def test_out_of_quantiles_nansum_and_nanmean_matches_torch(torch):
    for fn in (
        lambda m, o: m.quantile(m.tensor(X345), 0.3, 1, out=o),
        lambda m, o: m.nanquantile(m.tensor(X345), m.tensor([0.2, 0.9], dtype=m.float64), out=o),
        lambda m, o: m.nansum(m.tensor(X345), (0, 2), out=o),
        lambda m, o: m.nanmean(m.tensor(X345), -1, out=o),
    ):
        outs = [m.empty(0, dtype=m.float64) for m in (lg, torch)]
        ours, theirs = fn(lg, outs[0]), fn(torch, outs[1])
        assert ours is outs[0] and theirs is outs[1]
        _same(ours, theirs)
    for m in (lg, torch):
        with pytest.raises(RuntimeError):
            m.nanmean(m.tensor(X345, requires_grad=True), out=m.empty(0, dtype=m.float64))
        # PyTorch composes quantile: out= then holds a differentiable copy.
        x = m.tensor(X345, requires_grad=True)
        out = m.quantile(x, 0.5, out=m.empty(0, dtype=m.float64))
        out.backward()
        assert x.grad.sum().item() == pytest.approx(1.0)


def test_descending_orders_of_unsigned_and_extreme_integers_and_nans_match_torch(torch):
    nan, inf = math.nan, math.inf
    cases = [
        ("uint8", [[3, 2, 1], [0, 5, 2], [255, 0, 128]]),
        ("int8", [[-128, 127, 0], [-128, -128, 1], [5, -1, 5]]),
        ("float32", [[1.0, nan, 3.0, inf, 3.0, -nan], [0.0, -0.0, 2.0, 2.0, nan, -1.0]]),
    ]
    for dtype, rows in cases:
        ours = lg.tensor(rows, dtype=getattr(lg, dtype))
        theirs = torch.tensor(rows, dtype=getattr(torch, dtype))
        for dim in (0, 1):
            assert (
                lg.argsort(ours, dim, descending=True).tolist()
                == torch.sort(theirs, dim=dim, descending=True, stable=True).indices.tolist()
            )
            ov, oi = lg.sort(ours, dim, descending=True)
            tv, ti = torch.sort(theirs, dim=dim, descending=True, stable=True)
            np.testing.assert_array_equal(ov.numpy(), tv.numpy())
            assert oi.tolist() == ti.tolist()
        np.testing.assert_array_equal(lg.topk(ours, 2).values.numpy(), torch.topk(theirs, 2).values)


def test_clamp_of_a_zero_dim_tensor_by_numbers(torch):
    for lo, hi in [(0, 1), (0.5, 3.0), (None, 1.0), (3.0, None)]:
        ours = lg.tensor(2.5, dtype=lg.float64).clamp(lo, hi)
        theirs = torch.tensor(2.5, dtype=torch.float64).clamp(lo, hi)
        assert ours.shape == theirs.shape == ()
        assert ours.item() == theirs.item()


def _numba_on_and_off():
    from leafgrad.ops import _fused

    return [True, False] if _fused.available() else [False]


@pytest.mark.parametrize("compiled", _numba_on_and_off())
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_topk_takes_pytorchs_pick_among_ties(torch, dim, largest, compiled, monkeypatch):
    """Among equal values topk returns the indices PyTorch's std::nth_element / partial_sort
    leave first (replayed), by a partition where nothing is tied; sorted=False keeps
    nth_element's order."""
    from leafgrad.ops import _fused

    if not compiled:
        monkeypatch.setattr(_fused, "_numba", False)
    rng = np.random.default_rng(3)
    data = rng.integers(-4, 5, (20, 24, 18)).astype(np.float32)  # many ties
    data[0, 0, :3] = [-0.0, 0.0, np.inf]
    data[1, 1, :3] = np.nan
    data[2] = rng.standard_normal((24, 18))  # untied rows
    x, t = lg.tensor(data), torch.from_numpy(data)
    for k in (1, 5, 9):
        for ordered in (True, False):
            values, indices = x.topk(k, dim, largest=largest, sorted=ordered)
            want = torch.topk(t, k, dim, largest=largest, sorted=ordered)
            np.testing.assert_array_equal(indices.numpy(), want.indices.numpy())
            np.testing.assert_array_equal(values.numpy(), want.values.numpy())
            assert indices.dtype == lg.int64


def test_topk_of_few_values_matches_torch_values_and_gradient(torch):
    rng = np.random.default_rng(4)
    data = rng.standard_normal((16, 300))
    compare(lambda m, t: (t * t).topk(7, dim=1).values.sin(), [data], torch=torch)


# ----------------------------------------------------------------------- probe regressions
def test_kthvalue_of_a_vector_with_ties_picks_and_differentiates():
    # A 1-D input has one row; ties made the quickselect replay fail on it.
    x = lg.tensor([0.0, 0.0, 1.0], requires_grad=True)
    values, indices = x.kthvalue(1)
    assert values.item() == 0.0 and indices.item() in (0, 1)
    values.backward()
    assert x.grad.sum().item() == 1.0 and x.grad[2].item() == 0.0


def test_kthvalue_of_vectors_with_ties_matches_torch(torch):
    for data in ([0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [3.0, 1.0, 1.0, 2.0, 1.0], [2, 2, 0]):
        for k in range(1, len(data) + 1):
            ours = lg.tensor(data).kthvalue(k)
            theirs = torch.tensor(data).kthvalue(k)
            assert ours.values.item() == theirs.values.item()
            assert ours.indices.item() == theirs.indices.item()


@pytest.mark.parametrize("op", ["median", "nanmedian", "kthvalue", "mode"])
@pytest.mark.parametrize("shape, dim", [((2, 0), 0), ((0, 3), -1), ((0, 3), 1)])
def test_keepdim_beside_an_empty_dim_keeps_the_reduced_dim_as_one(op, shape, dim):
    x = lg.zeros(shape)
    args = (1,) if op == "kthvalue" else ()
    values, indices = getattr(x, op)(*args, dim=dim, keepdim=True)
    expected = list(shape)
    expected[dim] = 1
    assert list(values.shape) == expected == list(indices.shape)
    assert values.dtype == lg.float32 and indices.dtype == lg.int64


@pytest.mark.parametrize("op", ["median", "nanmedian", "kthvalue", "mode"])
def test_keepdim_beside_an_empty_dim_matches_torch(torch, op):
    args = (1,) if op == "kthvalue" else ()
    for shape, dim in (((2, 0), 0), ((0, 3), -1), ((2, 0, 3), 2)):
        for keepdim in (True, False):
            ours = getattr(lg.zeros(shape), op)(*args, dim=dim, keepdim=keepdim)
            theirs = getattr(torch.zeros(shape), op)(*args, dim=dim, keepdim=keepdim)
            assert tuple(ours.values.shape) == tuple(theirs.values.shape)
            assert tuple(ours.indices.shape) == tuple(theirs.indices.shape)
