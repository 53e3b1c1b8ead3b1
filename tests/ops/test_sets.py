"""unique, unique_consecutive, isin and argwhere against PyTorch: values, inverse indices,
counts, dims, NaNs, what is recorded for autograd and errors."""

import math

import numpy as np
import pytest

import leafgrad as lg

RNG = np.random.default_rng(5)
NAN = math.nan


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _same(ours, theirs):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype) == str(b.dtype)
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


FLAGS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("return_inverse, return_counts", FLAGS)
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_unique_and_unique_consecutive_match_torch(dim, return_inverse, return_counts, torch):
    for _trial in range(5):
        data = RNG.integers(0, 3, (4, 3, 2)).astype(np.float32)
        for op in ("unique", "unique_consecutive"):
            kwargs = dict(return_inverse=return_inverse, return_counts=return_counts, dim=dim)
            ours = getattr(lg, op)(lg.tensor(data), **kwargs)
            _same(ours, getattr(torch, op)(torch.tensor(data), **kwargs))


def test_unique_sorts_even_when_asked_not_to_as_torch_on_the_cpu(torch):
    data = RNG.integers(0, 50, 200)
    for sorted_ in (True, False):
        ours = lg.unique(lg.tensor(data), sorted_, True, True)
        _same(ours, torch.unique(torch.tensor(data), sorted_, True, True))


def test_unique_of_nans_bools_zero_dim_and_empty_tensors_matches_torch(torch):
    for fn in (
        lambda m: m.unique(m.tensor([3.0, NAN, 1, NAN]), return_counts=True),
        lambda m: m.unique_consecutive(m.tensor([1.0, NAN, NAN]), return_counts=True),
        lambda m: m.unique(m.tensor([True, False, True]), return_counts=True),
        lambda m: m.unique(m.tensor(3.0), return_inverse=True, return_counts=True),
        lambda m: m.unique_consecutive(m.tensor(3.0), return_inverse=True, return_counts=True),
        lambda m: m.unique(m.tensor([]), return_inverse=True, return_counts=True),
        lambda m: m.unique(m.empty(0, 3), dim=0, return_inverse=True, return_counts=True),
        lambda m: m.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(
            dim=0, return_inverse=True, return_counts=True
        ),
        lambda m: m.tensor([3, 1, 3]).unique(return_inverse=True),
    ):
        _same(fn(lg), fn(torch))


def test_unique_of_a_tensor_requiring_grad_is_recorded_without_derivative(torch):
    for fn in (
        lambda m, x: m.unique(x),
        lambda m, x: m.unique(x, dim=0),
        lambda m, x: m.unique_consecutive(x, return_counts=True)[0],
    ):
        names = []
        for m in (lg, torch):
            out = fn(m, m.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True))
            assert out.requires_grad
            names.append(out.grad_fn.name())
            with pytest.raises(NotImplementedError):
                out.sum().backward()
        assert names[0] == names[1]


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.unique(m.empty(2, 0), dim=0), RuntimeError),
        (lambda m: m.unique(m.ones(2, 2), dim=2), IndexError),
        (lambda m: m.unique_consecutive(m.ones(2, 2), dim=-3), IndexError),
    ],
)
def test_unique_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


# ----------------------------------------------------------------------------- isin, argwhere
def test_isin_matches_torch(torch):
    for fn in (
        lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([2, 5])),
        lambda m: m.isin(m.tensor([[1.0, 2], [3, 4]]), m.tensor([2, 4]), invert=True),
        lambda m: m.isin(m.tensor([1, 2, 3]), 2),
        lambda m: m.isin(2, m.tensor([1, 2, 3])),
        lambda m: m.isin(m.tensor([[1.0, NAN]]), m.tensor([NAN, 1.0])),
        lambda m: m.isin(m.tensor(2), m.tensor([[2]])),
        lambda m: m.isin(m.tensor([1, 2]), m.tensor([1, 2]), assume_unique=True),
    ):
        _same(fn(lg), fn(torch))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda m: m.isin(2, 3), TypeError),
        (lambda m: m.isin(m.tensor([1, 2]), m.tensor([True])), RuntimeError),
    ],
)
def test_isin_errors_match_torch(call, error, torch):
    for m in (lg, torch):
        with pytest.raises(error):
            call(m)


def test_argwhere_matches_torch(torch):
    data = RNG.integers(0, 2, (3, 4))
    for fn in (
        lambda m: m.argwhere(m.tensor(data)),
        lambda m: m.tensor(data).float().argwhere(),
        lambda m: m.argwhere(m.tensor(5)),
        lambda m: m.argwhere(m.tensor(0.0)),
        lambda m: m.argwhere(m.zeros(0, 2)),
    ):
        _same(fn(lg), fn(torch))


def test_isin_writes_out_as_torch_does(torch):
    for m in (lg, torch):
        out = m.empty(0, dtype=m.bool)
        got = m.isin(m.tensor([1.0, 2.0, 3.0], requires_grad=True), m.tensor([2.0]), out=out)
        assert got is out and out.tolist() == [False, True, False]
