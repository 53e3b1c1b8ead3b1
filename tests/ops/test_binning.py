"""searchsorted, bucketize, histc, histogram and bincount against PyTorch: values, dtypes,
bins on their edges, the histogram namedtuple, what is recorded for autograd and errors."""

import numpy as np
import pytest

import leafgrad as lg

RNG = np.random.default_rng(11)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _same(ours, theirs):
    """Same dtype, shape and values (counts and indices are exact; edges from the same
    linspace formula, weighted sums to the direct tolerance)."""
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=0, equal_nan=True
    )


# ----------------------------------------------------------------------------- searchsorted
SEQ = np.array([1, 3, 3, 5, 7])
VALUES = np.array([[0, 3, 6], [7, 8, 5]])


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}],
)
def test_searchsorted_matches_torch(kwargs, torch):
    for seq, values in [(SEQ, VALUES), (SEQ.astype(np.float32), VALUES), (SEQ, VALUES[0] + 0.5)]:
        ours = lg.searchsorted(lg.tensor(seq), lg.tensor(values), **kwargs)
        _same(ours, torch.searchsorted(torch.tensor(seq), torch.tensor(values), **kwargs))


def test_searchsorted_searches_each_row_of_an_nd_sequence(torch):
    seq = [[1.0, 3, 5, 7], [2, 4, 6, 8]]
    values = [[3.0, 6], [3, 6]]
    for right in (False, True):
        ours = lg.searchsorted(lg.tensor(seq), lg.tensor(values), right=right)
        _same(ours, torch.searchsorted(torch.tensor(seq), torch.tensor(values), right=right))


def test_searchsorted_with_a_sorter_a_scalar_and_nans_matches_torch(torch):
    for fn in (
        lambda m: m.searchsorted(
            m.tensor([7.0, 1, 5, 3]), m.tensor([3.0, 6]), sorter=m.tensor([1, 3, 2, 0])
        ),
        lambda m: m.searchsorted(m.tensor([1, 3, 5, 7]), 3),
        lambda m: m.searchsorted(m.tensor([1, 3, 5, 7]), 3, right=True),
        lambda m: m.searchsorted(m.tensor([1.0, 3, float("nan")]), m.tensor([float("nan"), 6.0])),
    ):
        _same(fn(lg), fn(torch))


def test_bucketize_matches_torch(torch):
    boundaries = [1, 3, 5, 7]
    for values in ([0, 3, 6, 9], [[1.5, 7.0]], 4):
        for kwargs in ({}, {"right": True}, {"out_int32": True}):
            v = values if isinstance(values, int) else lg.tensor(values)
            tv = values if isinstance(values, int) else torch.tensor(values)
            ours = lg.bucketize(v, lg.tensor(boundaries), **kwargs)
            _same(ours, torch.bucketize(tv, torch.tensor(boundaries), **kwargs))


@pytest.mark.parametrize(
    "call, error",
    [
        (
            lambda m: m.searchsorted(m.tensor([1.0, 3]), m.tensor([2.0]), side="middle"),
            RuntimeError,
        ),
        (
            lambda m: m.searchsorted(m.tensor([1.0, 3]), m.tensor([2.0]), side="left", right=True),
            RuntimeError,
        ),
        (lambda m: m.searchsorted(m.tensor(1.0), m.tensor([3.0])), RuntimeError),
        (lambda m: m.searchsorted(m.tensor([[1.0, 3], [2, 4]]), m.tensor([2.0])), RuntimeError),
        (
            lambda m: m.searchsorted(m.tensor([1.0, 3]), m.tensor([2.0]), sorter=m.tensor([0])),
            RuntimeError,
        ),
        (
            lambda m: m.searchsorted(
                m.tensor([1.0, 3]), m.tensor([2.0]), sorter=m.tensor([0.0, 1])
            ),
            RuntimeError,
        ),
        (lambda m: m.searchsorted(m.tensor([True, False]), m.tensor([True])), NotImplementedError),
        (lambda m: m.bucketize(m.tensor([3]), m.tensor([[1, 3]])), RuntimeError),
    ],
)
def test_searchsorted_and_bucketize_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


# ----------------------------------------------------------------------------- histc, histogram
def test_histc_matches_torch_including_values_on_bin_edges(torch):
    for trial in range(30):
        data = (RNG.standard_normal(60) * 3).astype(np.float32)
        if trial % 2:
            data = np.round(data * 4) / 4  # many values exactly on edges
        for kwargs in (
            {"bins": 7},
            {"bins": 5, "min": -1, "max": 2},
            {"bins": 8, "min": 2, "max": 2},
        ):
            _same(lg.histc(lg.tensor(data), **kwargs), torch.histc(torch.tensor(data), **kwargs))


def test_histc_corner_cases_match_torch(torch):
    for fn in (
        lambda m: m.histc(m.tensor([1.0, 2, 1])),
        lambda m: m.histc(m.tensor([1.0, 1, 1]), bins=4),
        lambda m: m.histc(m.tensor([]), bins=4),
        lambda m: m.histc(m.tensor([[1.0, 2], [3, 4]], dtype=m.float64), bins=2),
        lambda m: m.histc(m.tensor([1.0, 2, 5, float("nan")]), bins=4, min=0, max=3),
    ):
        _same(fn(lg), fn(torch))
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    assert not lg.histc(x, bins=2).requires_grad  # as in PyTorch: never recorded


def _hist(m, data, weights, **kwargs):
    if kwargs.pop("weighted", False):
        kwargs["weight"] = m.tensor(weights)
    if "edges" in kwargs:
        return m.histogram(m.tensor(data), m.tensor(kwargs.pop("edges")), **kwargs)
    return m.histogram(m.tensor(data), **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bins": 7},
        {"bins": 5, "range": (-1.0, 2.0)},
        {"bins": 4, "density": True},
        {"bins": 6, "weighted": True},
        {"edges": [-2.0, -0.5, 0.0, 1.5, 3.0]},
        {"edges": [-2.0, -0.5, 0.0, 1.5, 3.0], "density": True, "weighted": True},
    ],
)
def test_histogram_matches_torch(kwargs, torch):
    for trial in range(10):
        data = (RNG.standard_normal(50) * 2).astype(np.float32)
        if trial % 2:
            data = np.round(data * 4) / 4
        weights = RNG.random(50).astype(np.float32)
        ours = _hist(lg, data, weights, **dict(kwargs))
        theirs = _hist(torch, data, weights, **dict(kwargs))
        assert type(ours).__name__ == "histogram" and ours._fields == ("hist", "bin_edges")
        _same(ours.hist, theirs.hist)
        _same(ours.bin_edges, theirs.bin_edges)


def test_histogram_corner_cases_match_torch(torch):
    for fn in (
        lambda m: m.histogram(m.tensor([1.0, 1.0]), 2),
        lambda m: m.histogram(m.tensor([]), 3),
        lambda m: m.histogram(m.tensor([[1.0, 5], [2, 3]], dtype=m.float64), 3),
    ):
        ours, theirs = fn(lg), fn(torch)
        _same(ours.hist, theirs.hist)
        _same(ours.bin_edges, theirs.bin_edges)


def test_histogram_of_a_tensor_requiring_grad_is_recorded_but_has_no_derivative(torch):
    for m in (lg, torch):
        result = m.histogram(m.tensor([1.0, 2.0, 3.0], requires_grad=True), 3)
        assert result.hist.requires_grad and result.bin_edges.requires_grad
        with pytest.raises(RuntimeError):
            result.hist.sum().backward()


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.histc(m.tensor([1, 2, 1]), bins=4, min=0, max=3), NotImplementedError),
        (lambda m: m.histc(m.tensor([1.0, 2]), bins=0), RuntimeError),
        (lambda m: m.histc(m.tensor([1.0, 2]), bins=4, min=3, max=1), RuntimeError),
        (lambda m: m.histc(m.tensor([1.0, float("nan")]), bins=4), RuntimeError),
        (lambda m: m.histc(m.tensor([1.0, float("inf")]), bins=4), RuntimeError),
        (lambda m: m.histogram(m.tensor([1, 2]), 4), NotImplementedError),
        (lambda m: m.histogram(m.tensor([1.0, 2]), 2, range=(3.0, 1.0)), RuntimeError),
        (lambda m: m.histogram(m.tensor([1.0, 2]), 2, weight=m.tensor([1.0])), RuntimeError),
        (
            lambda m: m.histogram(
                m.tensor([1.0, 2]), 2, weight=m.tensor([1.0, 2], dtype=m.float64)
            ),
            RuntimeError,
        ),
        (lambda m: m.histogram(m.tensor([1.0, float("nan")]), 3), RuntimeError),
        (lambda m: m.histogram(m.tensor([1.0, 2]), bins=[0.0, 1.0, 2.0]), TypeError),
    ],
)
def test_histogram_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


# ----------------------------------------------------------------------------- bincount
def test_bincount_matches_torch(torch):
    values = [0, 1, 1, 3, 5, 1]
    for fn in (
        lambda m: m.bincount(m.tensor(values)),
        lambda m: m.tensor(values).bincount(minlength=9),
        lambda m: m.bincount(m.tensor(values, dtype=m.uint8)),
        lambda m: m.bincount(m.tensor([], dtype=m.int64)),
        lambda m: m.bincount(m.tensor([], dtype=m.int64), minlength=3),
        lambda m: m.bincount(m.tensor(values), m.tensor([1.0, 2, 3, 4, 5, 6])),
        lambda m: m.bincount(m.tensor(values), m.tensor([1.0, 2, 3, 4, 5, 6], dtype=m.float64)),
        lambda m: m.bincount(m.tensor(values), m.tensor([1, 2, 3, 4, 5, 6])),
        lambda m: m.bincount(m.tensor(values), m.tensor([True, False] * 3)),
    ):
        _same(fn(lg), fn(torch))


def test_bincount_with_weights_requiring_grad_is_recorded_without_derivative(torch):
    for m in (lg, torch):
        out = m.bincount(m.tensor([0, 1, 1]), m.tensor([1.0, 2.0, 3.0], requires_grad=True))
        assert out.requires_grad
        with pytest.raises(RuntimeError):
            out.sum().backward()


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.bincount(m.tensor([-1, 2])), RuntimeError),
        (lambda m: m.bincount(m.tensor([[1, 2]])), RuntimeError),
        (lambda m: m.bincount(m.tensor(1)), RuntimeError),
        (lambda m: m.bincount(m.tensor([1.0, 2.0])), NotImplementedError),
        (lambda m: m.bincount(m.tensor([True, False])), NotImplementedError),
        (lambda m: m.bincount(m.tensor([1, 2]), minlength=-1), RuntimeError),
        (lambda m: m.bincount(m.tensor([1, 2]), weights=m.tensor([1.0])), RuntimeError),
    ],
)
def test_bincount_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


def test_out_is_written_and_returned_as_torch_does(torch):
    data = RNG.standard_normal((2, 5)).astype(np.float32)
    for fn, dtype in (
        (lambda m, o: m.histc(m.tensor(data), 4, out=o), "float32"),
        (lambda m, o: m.searchsorted(m.tensor([-1.0, 0.0, 1.0]), m.tensor(data), out=o), "int64"),
        (lambda m, o: m.bucketize(m.tensor(data), m.tensor([-1.0, 0.0, 1.0]), out=o), "int64"),
    ):
        outs = [m.empty(0, dtype=getattr(m, dtype)) for m in (lg, torch)]
        ours, theirs = fn(lg, outs[0]), fn(torch, outs[1])
        assert ours is outs[0] and theirs is outs[1]
        _same(ours, theirs)
    for m in (lg, torch):  # indices and counts: an input requiring grad is no obstacle
        m.histc(m.tensor(data, requires_grad=True), 4, out=m.empty(0))
    hists = [(m.empty(0), m.empty(0)) for m in (lg, torch)]
    ours = lg.histogram(lg.tensor(data), 3, out=hists[0])
    theirs = torch.histogram(torch.tensor(data), 3, out=hists[1])
    assert type(ours).__name__ == "histogram_out" and ours.hist is hists[0][0]
    _same(ours.hist, theirs.hist)
    _same(ours.bin_edges, theirs.bin_edges)
